"""Headless Chromium for the tests that look at a page as a reader's browser
draws it (the replay viewer, the HTML report). Needs selenium (a test
dependency) and a Chromium with its driver on PATH (`apt-get install chromium
chromium-driver`); the tests skip without them."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from typing import Iterator

import pytest

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
DRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(CHROMIUM is None or DRIVER is None,
                                    reason="no Chromium binary and chromedriver on PATH (apt-get install chromium "
                                           "chromium-driver)")


@contextmanager
def chromium(width: int = 1400, height: int = 1200) -> Iterator:
    """A headless Chromium driven by selenium, closed on exit."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    try:
        yield driver
    finally:
        driver.quit()
