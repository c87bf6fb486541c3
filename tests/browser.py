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
from collections.abc import Callable
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
        self.unanswered: set[int] = set()  # ids of `send` commands: their answers are dropped
        self.hooks: dict[str, Callable[[dict[str, Any]], None]] = {}  # event method -> handler

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
        import select

        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("Chromium did not answer")
            if not select.select([self.reader], [], [], remaining)[0]:
                continue
            chunk = os.read(self.reader, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def _next(self, deadline: float) -> dict[str, Any]:
        """The next message no hook took: answers to `send` are dropped, and an event with a
        hook (a paused request, say) is handled as it arrives, whatever the caller waits for."""
        while True:
            message = self._read_message(deadline)
            if message.get("id") in self.unanswered:
                self.unanswered.discard(message["id"])
                continue
            hook = self.hooks.get(message.get("method", ""))
            if hook is not None:
                hook(message)
                continue
            return message

    def _write(self, method: str, session: str | None, params: dict[str, Any]) -> int:
        self.next_id += 1
        request: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            request["sessionId"] = session
        os.write(self.writer, json.dumps(request).encode() + b"\0")
        return self.next_id

    def send(self, method: str, session: str | None = None, **params: Any) -> None:
        """A command whose answer nobody waits for (a hook's, inside another call's wait)."""
        self.unanswered.add(self._write(method, session, params))

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        asked = self._write(method, session, params)
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self._next(deadline)
            if message.get("id") == asked:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            message = self._next(deadline)
            if message.get("method") == method:
                return message
            self.events.append(message)

    def pump(self, seconds: float) -> None:
        """Handle what arrives for `seconds` (hooks run; other events are kept)."""
        deadline = time.monotonic() + seconds
        with contextlib.suppress(TimeoutError):
            while True:
                self.events.append(self._next(deadline))


class Page:
    """One tab: load a URL, run JavaScript, take a screenshot, collect console errors."""

    def __init__(self, browser: Chromium) -> None:
        self.browser = browser
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        self.target = target
        attached = browser.call("Target.attachToTarget", targetId=target, flatten=True)
        self.session: str = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.call(f"{domain}.enable", self.session)

    def close(self) -> None:
        self.browser.call("Target.closeTarget", targetId=self.target)

    def load(self, url: str) -> None:
        self.browser.call("Page.navigate", self.session, url=url)
        self.browser.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        answer = self.browser.call(
            "Runtime.evaluate",
            self.session,
            expression=expression,
            returnByValue=True,
            awaitPromise=True,  # a promise's value, once it settles
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(f"JavaScript failed: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, width: int = 1100, height: int = 1400) -> bytes:
        self.browser.call("Page.bringToFront", self.session)  # a tab behind others draws nothing
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


class OfflinePage(Page):
    """A tab that may reach only `origin`: every other request is refused (Fetch.failRequest)
    and kept in `blocked`, so a test can say none was made."""

    def __init__(self, browser: Chromium, origin: str) -> None:
        super().__init__(browser)
        self.origin = origin.rstrip("/") + "/"
        self.blocked: list[str] = []
        self.requested: list[str] = []
        earlier = browser.hooks.get("Fetch.requestPaused")  # another tab's, kept for its own

        def paused(event: dict[str, Any]) -> None:
            if event.get("sessionId") == self.session:
                self._paused(event)
            elif earlier is not None:
                earlier(event)

        browser.hooks["Fetch.requestPaused"] = paused
        browser.call("Fetch.enable", self.session, patterns=[{"urlPattern": "*"}])

    def _paused(self, event: dict[str, Any]) -> None:
        params = event["params"]
        url: str = params["request"]["url"]
        session = event.get("sessionId")
        if url.startswith(self.origin) or url.startswith(("data:", "blob:")):
            self.requested.append(url)
            self.browser.send("Fetch.continueRequest", session, requestId=params["requestId"])
        else:
            self.blocked.append(url)
            self.browser.send(
                "Fetch.failRequest",
                session,
                requestId=params["requestId"],
                errorReason="BlockedByClient",
            )

    def wait_until(self, expression: str, timeout: float = 120.0) -> Any:
        """The value of `expression` once it is truthy (the page's requests served meanwhile)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"never true: {expression}")
            self.browser.pump(0.05)


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
