"""A real headless Chromium for the HTML report's tests, driven by Playwright.

The browser is the system's (Debian's `chromium` package: /usr/bin/chromium, or the path in
KUBESCHED_CHROMIUM); nothing is downloaded (never `playwright install`). Without it the
tests fail, naming what to install: they never skip.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Playwright, sync_playwright

CHROMIUM = os.environ.get("KUBESCHED_CHROMIUM", "/usr/bin/chromium")

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture
def browser(playwright: Playwright, tmp_path: Path) -> Iterator[BrowserContext]:
    """A Chromium with a fresh profile (--user-data-dir) for each test."""
    if shutil.which(CHROMIUM) is None:
        pytest.fail(
            f"no Chromium at {CHROMIUM}: install it (Debian: apt-get install -y chromium) "
            "or set KUBESCHED_CHROMIUM to its path"
        )
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=FLAGS,
        headless=True,
        viewport={"width": 1280, "height": 900},
    )
    try:
        yield context
    finally:
        context.close()
