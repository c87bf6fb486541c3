"""Real headless Chromium (Debian's `chromium` package, installed by scripts/provision.py), driven
over the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4 out, messages
ended by NUL), so the tests need no WebSocket client and no browser download."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import tempfile
import time
from typing import Any

from tests.real_parts import program

# The flags that keep Chromium off the network and quiet in a sandbox without a desktop.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-pipe",
)
TIMEOUT = 30.0


def chromium_binary() -> str | None:
    return program("chromium", "browser") or program("chromium-browser", "browser")


class Chromium:
    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.buffer = b""

    def __enter__(self) -> Chromium:
        self.profile = tempfile.TemporaryDirectory(prefix="nginxgen-chromium-")
        to_browser, self.writer = os.pipe()
        self.reader, from_browser = os.pipe()

        def child_fds() -> None:  # the protocol's fixed descriptors in the child
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [self.binary, *FLAGS, f"--user-data-dir={self.profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child_fds,
            pass_fds=(3, 4),
        )
        os.close(to_browser)
        os.close(from_browser)
        return self

    def __exit__(self, *exc_info: object) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        os.close(self.writer)
        os.close(self.reader)
        self.profile.cleanup()

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self.reader, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        request: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            request["sessionId"] = session
        os.write(self.writer, json.dumps(request).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            message = self._read_message(deadline)
            if message.get("method") == method:
                return message
            self.events.append(message)


class Page:
    """One tab: load a URL, run JavaScript, take a screenshot, collect console errors."""

    def __init__(self, browser: Chromium) -> None:
        self.browser = browser
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        attached = browser.call("Target.attachToTarget", targetId=target, flatten=True)
        self.session: str = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.call(f"{domain}.enable", self.session)

    def load(self, url: str) -> None:
        self.browser.call("Page.navigate", self.session, url=url)
        self.browser.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        answer = self.browser.call(
            "Runtime.evaluate", self.session, expression=expression, returnByValue=True
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(f"JavaScript failed: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, width: int = 1100, height: int = 1400) -> bytes:
        self.browser.call(
            "Emulation.setDeviceMetricsOverride",
            self.session,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        data = self.browser.call("Page.captureScreenshot", self.session, format="png")["data"]
        return base64.b64decode(data)

    def console_errors(self) -> list[str]:
        """Errors the page raised or logged so far: exceptions, console.error, Log errors."""
        errors = []
        for event in self.browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append(str(params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                errors.append(str(params.get("args")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(str(params["entry"]))
        return errors


def png_pixel_bytes(png: bytes) -> bytes:
    """The decompressed image data of a PNG (filter bytes and pixels), for a blankness check."""
    import zlib

    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, data = 8, b""
    while at < len(png):
        length = int.from_bytes(png[at : at + 4], "big")
        kind = png[at + 4 : at + 8]
        if kind == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    return zlib.decompress(data)
