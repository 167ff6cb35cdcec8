"""Headless Chromium driven by Selenium (Debian's chromium and chromium-driver).

:func:`browser_or_skip_reason` says why a browser test cannot run here (then it
skips, with that reason); ``.ci/run`` installs what is missing, so CI runs it."""

from __future__ import annotations

import shutil
import tempfile
from typing import Any

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
DRIVER = ("chromedriver",)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1500,1000")


def _which(names: tuple[str, ...]) -> str | None:
    return next((p for p in map(shutil.which, names) if p), None)


def browser_or_skip_reason() -> tuple[Any, str | None]:
    """(a Selenium driver, None), or (None, why not)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None, "selenium is not installed (pip install 'gdrcheck[browser]')"
    binary, driver = _which(CHROMIUM), _which(DRIVER)
    if binary is None or driver is None:
        return None, ("no headless Chromium here (apt-get install chromium chromium-driver; "
                      ".ci/run does it)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for flag in (*FLAGS, f"--user-data-dir={tempfile.mkdtemp(prefix='gdrcheck-chromium-')}"):
        opts.add_argument(flag)
    try:
        return webdriver.Chrome(service=Service(driver), options=opts), None
    except Exception as err:  # selenium's WebDriverException and friends
        return None, f"Chromium did not start: {str(err).splitlines()[0]}"
