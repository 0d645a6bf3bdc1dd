"""Headless Chromium for the tests that look at rendered pages (the Phoenix UI, the HTML report).

One set of flags: no sandbox (containers), no GPU, no network chatter of its own, a profile folder per
call so runs never share state. Skips the calling test when no Chromium is installed. `screenshot` and
`rendered_dom` start a browser per call; `Browser` keeps one for several pages.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

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


def _above_9(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """One headless Chromium for several pages, driven over the DevTools protocol on a pipe
    (``--remote-debugging-pipe``): a test that looks at several pages starts the browser once, and waits
    for each page until it shows the texts the test looks for (not for a fixed time).

        with Browser(tmp_path / "profile") as browser:
            browser.open(url, wait_for=("rag_answer",))
            browser.screenshot(tmp_path / "page.png")
            dom = browser.dom()
    """

    def __init__(self, profile: Path, window: tuple[int, int] = (1280, 900), timeout: float = 180):
        self.timeout = timeout
        # fds above 9, so that none of them is 3 or 4 itself when Chromium's 3 and 4 are set from them
        commands, self._commands = (_above_9(fd) for fd in os.pipe())  # Chromium reads on its fd 3
        self._replies, replies = (_above_9(fd) for fd in os.pipe())  # Chromium writes on its fd 4
        command = [*_command(profile, 0, window), "--remote-debugging-pipe", "about:blank"]
        on_fds_3_and_4 = f'exec "$@" 3<&{commands} 4>&{replies} {commands}<&- {replies}>&-'
        self.process = subprocess.Popen(
            ["bash", "-c", on_fds_3_and_4, "chromium", *command],
            pass_fds=(commands, replies),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands)
        os.close(replies)
        self._buffer = b""
        self._last_id = 0
        self._events: list[dict] = []
        self._session: str | None = None
        try:
            target = self._call("Target.createTarget", url="about:blank")["targetId"]
            self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            width, height = window
            self._call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            self._call("Page.enable")
        except BaseException:
            self.close()
            raise

    # -- the protocol ---------------------------------------------------------------------------------

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer within {self.timeout:.0f} s")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium exited (code {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _call(self, method: str, **params: Any) -> dict:
        self._last_id += 1
        request: dict[str, Any] = {"id": self._last_id, "method": method, "params": params}
        if self._session is not None:
            request["sessionId"] = self._session
        os.write(self._commands, json.dumps(request).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._message(deadline)
            if message.get("id") == self._last_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._events.append(message)

    def _wait_event(self, method: str, deadline: float) -> None:
        while True:
            for event in self._events:
                if event["method"] == method and event.get("sessionId") == self._session:
                    return
            self._events.append(self._message(deadline))

    def _evaluate(self, expression: str) -> Any:
        reply = self._call("Runtime.evaluate", expression=expression, returnByValue=True)
        return reply.get("result", {}).get("value")

    # -- pages ----------------------------------------------------------------------------------------

    def open(self, url: str, wait_for: tuple[str, ...] = ()) -> None:
        """Load `url`; then wait until the page's text shows every one of `wait_for` (a single-page
        app fetches its data after the load event)."""
        self._events.clear()
        deadline = time.monotonic() + self.timeout
        reply = self._call("Page.navigate", url=url)
        if "errorText" in reply:
            raise RuntimeError(f"{url}: {reply['errorText']}")
        self._wait_event("Page.loadEventFired", deadline)
        check = (
            "(() => { const text = document.body ? document.body.innerText : '';"
            f" return {json.dumps(list(wait_for))}.filter(s => !text.includes(s)); }})()"
        )
        while missing := self._evaluate(check):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not show {missing} within {self.timeout:.0f} s")
            time.sleep(0.25)

    def screenshot(self, png: Path) -> None:
        """A PNG of the open page's viewport."""
        png.write_bytes(base64.b64decode(self._call("Page.captureScreenshot", format="png")["data"]))

    def dom(self) -> str:
        """The open page's DOM as its scripts left it."""
        return self._evaluate("document.documentElement.outerHTML")

    def close(self) -> None:
        """Stop Chromium by its pid (SIGKILL after 30 s)."""
        if self.process.poll() is None:
            with contextlib.suppress(OSError, RuntimeError, TimeoutError):
                self._session = None
                self.timeout = 10
                self._call("Browser.close")
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for fd in (self._commands, self._replies):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
