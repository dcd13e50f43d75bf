"""Headless Chromium for the browser tests (the replay page, the browser game): where
the browser and its driver are, a skip mark when they are missing, and one driver."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

#: skip a test module without Debian's chromium and chromium-driver
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="needs chromium and chromium-driver"
)


@contextmanager
def chromium(profile: Path, size: str = "1400,950", console_log: bool = False) -> Iterator[Any]:
    """A headless Chromium driven by selenium, with its profile in ``profile`` and no
    network of its own (no sync, updates or background requests); ``console_log``
    keeps the page's console for ``driver.get_log("browser")``."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", f"--window-size={size}",
    ):  # fmt: skip
        opts.add_argument(flag)
    if console_log:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield drv
    finally:
        drv.quit()
