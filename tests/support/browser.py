"""Headless Chromium for the tests that look at rendered pages (the Phoenix UI, the HTML report).

One set of flags: no sandbox (containers), no GPU, no network chatter of its own, a profile folder per
call so runs never share state. Skips the calling test when no Chromium is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.skip("headless Chromium is not installed (Debian: apt-get install -y chromium)")


def _command(profile: Path, wait_ms: int, window: tuple[int, int]) -> list[str]:
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--window-size={window[0]},{window[1]}",
    ]
    if wait_ms:  # let a single-page app fetch its data before the picture or the DOM is taken
        command.append(f"--virtual-time-budget={wait_ms}")
    return command


def screenshot(
    url: str, png: Path, profile: Path, wait_ms: int = 0, window: tuple[int, int] = (1280, 900)
) -> None:
    """A PNG of `url` as rendered."""
    command = [*_command(profile, wait_ms, window), f"--screenshot={png}", url]
    subprocess.run(command, check=True, timeout=180, capture_output=True)


def rendered_dom(
    url: str,
    profile: Path,
    wait_ms: int = 20000,
    window: tuple[int, int] = (1280, 900),
    screenshot_to: Path | None = None,
) -> str:
    """The page's DOM after its scripts ran (--dump-dom); with ``screenshot_to``, also a PNG of that
    page as rendered (one Chromium run and page load for both)."""
    shot = [f"--screenshot={screenshot_to}"] if screenshot_to is not None else []
    command = [*_command(profile, wait_ms, window), "--dump-dom", *shot, url]
    return subprocess.run(command, check=True, timeout=180, capture_output=True, text=True).stdout
