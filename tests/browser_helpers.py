"""Headless Chromium from Debian (``scripts/chromium.sh``) driven by Selenium, for the tests
that look at pages as a person would: the moderators' console (tests/test_console.py) and the
Matrix formatting on Element's themes (tests/test_theme_screenshot.py). Nothing downloads a
browser of its own."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from needs import need

ROOT = Path(__file__).resolve().parents[1]


def chromium_paths() -> tuple[str, str]:
    """(chromium, chromedriver); without them the test skips (fails under CI) saying how to
    install them."""
    r = subprocess.run(["bash", str(ROOT / "scripts" / "chromium.sh"), "path"],
                       capture_output=True, text=True)
    need(r.returncode == 0, "Debian's chromium and chromium-driver",
         "bash scripts/chromium.sh install, as root")
    browser, driver = r.stdout.split()
    return browser, driver


@contextmanager
def chromium(*extra: str, window: str = "1400,1000") -> Iterator[Any]:
    """A headless Chromium session (a Selenium driver), closed afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = chromium_paths()
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch a browser
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={window}", "--no-first-run", *extra):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
    drv.set_page_load_timeout(30)
    try:
        yield drv
    finally:
        drv.quit()
