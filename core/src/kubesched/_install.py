"""What to tell a user to install, in commands that work as written.

kubesched's own distributions may not be on the user's package index (installed from a
checkout), so a hint names both the index form and the checkout folder. An extra's hint
names the third-party requirements themselves, read from kubesched's metadata, which are
always on the index.
"""

from __future__ import annotations

from typing import Final

import importlib_metadata
from packaging.requirements import Requirement

__all__ = ["CHECKOUT_FOLDERS", "extra_hint", "install_hint"]

CHECKOUT_FOLDERS: Final[dict[str, str]] = {
    "kubesched": "./core",
    "kubesched-builtin": "./plugins-builtin",
    "kubesched-coscheduling": "./plugins-coscheduling",
    "kubesched-dra": "./plugins-dra",
    "kubesched-volumebinding": "./plugins-volumebinding",
}
"""Where each of kubesched's distributions lives in the kubesched repository."""


def install_hint(*distributions: str) -> str:
    """``pip install A B`` for kubesched's distributions, with the same from a checkout
    when they are ours (``pip install ./plugins-builtin``)."""
    command = "pip install " + " ".join(distributions)
    folders = [CHECKOUT_FOLDERS[d] for d in distributions if d in CHECKOUT_FOLDERS]
    if not folders:
        return command
    return f"{command}; from a kubesched checkout: pip install {' '.join(folders)}"


def extra_hint(extra: str) -> str:
    """``pip install 'x>=1' 'y<2'``: the requirements kubesched's `extra` adds."""
    requires = importlib_metadata.metadata("kubesched").get_all("Requires-Dist") or []
    wanted = []
    for text in requires:
        requirement = Requirement(text)
        if requirement.marker is not None and requirement.marker.evaluate({"extra": extra}):
            requirement.marker = None
            wanted.append(f"'{requirement}'")
    return "pip install " + " ".join(wanted)
