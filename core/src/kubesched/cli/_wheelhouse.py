"""Wheels of the kubesched distributions this command runs from, for packages made by
`kubesched new-plugin` to install in environments of their own (tox, CI).

While kubesched is not on the user's package index (installed from a checkout, a wheel
file or a folder of wheels), a fresh environment cannot `pip install kubesched`. The
generated package then points pip at a wheelhouse in the user's cache (``--find-links``),
filled here: an installed distribution is packed back into a wheel from its RECORD; one
installed editable is built from its source folder with `pip wheel`. pip does not record
whether a distribution came from an index, so this is done unless the user says kubesched
is on theirs (`new-plugin --no-wheelhouse`); the wheelhouse is harmless where it is.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Final

import importlib_metadata

from kubesched._errors import KubeschedError

__all__ = ["CACHE_ENV", "cache_dir", "fill_wheelhouse", "pack_wheel"]

CACHE_ENV: Final = "KUBESCHED_CACHE_DIR"
"""Overrides where kubesched keeps the template repository and the wheelhouse."""

# written by the installer, not part of the wheel (PEP 376, PEP 610)
_INSTALLER_FILES: Final = frozenset({"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"})


def cache_dir() -> Path:
    """$KUBESCHED_CACHE_DIR, else $XDG_CACHE_HOME/kubesched, else ~/.cache/kubesched."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kubesched"


def _direct_url(dist: importlib_metadata.Distribution) -> dict[str, object] | None:
    text = dist.read_text("direct_url.json")
    if not text:
        return None
    data = json.loads(text)
    return data if isinstance(data, dict) else None


def _editable_source(dist: importlib_metadata.Distribution) -> Path | None:
    """The source folder of an editable install, else None."""
    data = _direct_url(dist)
    if not data:
        return None
    info = data.get("dir_info")
    url = data.get("url")
    editable = isinstance(info, dict) and info.get("editable")
    if editable and isinstance(url, str) and url.startswith("file://"):
        return Path(url.removeprefix("file://"))
    return None


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def pack_wheel(dist: importlib_metadata.Distribution, dest: Path) -> Path:
    """Pack an installed (non-editable) distribution back into a wheel in `dest`: the files
    its RECORD lists under site-packages, its metadata, a new RECORD (PEP 427). Console
    scripts are left out: installers make them again from entry_points.txt."""
    files = dist.files
    if not files:
        raise KubeschedError(f"cannot pack {dist.name}: its installation has no RECORD")
    wheel_text = dist.read_text("WHEEL") or ""
    tags = [
        line.split(":", 1)[1].strip() for line in wheel_text.splitlines() if line.startswith("Tag:")
    ]
    tag = tags[0] if tags else "py3-none-any"
    name = dist.name.replace("-", "_").replace(".", "_").lower()
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / f"{name}-{dist.version}-{tag}.whl"
    info_dir = f"{name}-{dist.version}.dist-info"
    record: list[str] = []
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path in sorted(files, key=str):
            parts = path.parts
            if parts[0] == ".." or "__pycache__" in parts:
                continue
            if parts[0].endswith(".dist-info") and parts[-1] in _INSTALLER_FILES:
                continue
            data = Path(str(path.locate())).read_bytes()
            arcname = "/".join(parts)
            if parts[0].endswith(".dist-info"):
                arcname = "/".join((info_dir, *parts[1:]))
            wheel.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        record.append(f"{info_dir}/RECORD,,")
        wheel.writestr(f"{info_dir}/RECORD", "\n".join(record) + "\n")
    tmp.replace(target)
    return target


def _build_wheels(sources: list[Path], dest: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest)]
        + [str(source) for source in sources],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise KubeschedError(
            f"cannot build wheels of {', '.join(map(str, sources))} for the wheelhouse "
            f"{dest}: {' '.join(last)}"
        )


def _is_current(dist: importlib_metadata.Distribution, source: Path, dest: Path) -> bool:
    """Whether `dest` holds a wheel of this version built after every file of `source`
    changed (make's rule), so an editable install is not rebuilt on every new-plugin."""
    name = dist.name.replace("-", "_").replace(".", "_").lower()
    wheels = list(dest.glob(f"{name}-{dist.version}-*.whl"))
    if not wheels:
        return False
    built = min(w.stat().st_mtime for w in wheels)
    skip = {"__pycache__", ".tox", ".git", ".pytest_cache", ".mypy_cache", "build", "dist"}
    return not any(
        path.stat().st_mtime > built
        for path in source.rglob("*")
        if path.is_file() and not skip & set(path.relative_to(source).parts)
    )


def fill_wheelhouse(names: tuple[str, ...], dest: Path) -> Path | None:
    """Put a wheel of each installed distribution in `names` into `dest`; returns `dest`,
    or None when none of them is installed."""
    editable: list[Path] = []
    wrote = False
    for name in names:
        try:
            dist = importlib_metadata.Distribution.from_name(name)
        except importlib_metadata.PackageNotFoundError:
            continue
        source = _editable_source(dist)
        if source is not None:
            if not _is_current(dist, source, dest):
                editable.append(source)
        else:
            pack_wheel(dist, dest)
        wrote = True
    if editable:
        _build_wheels(editable, dest)
    return dest if wrote else None
