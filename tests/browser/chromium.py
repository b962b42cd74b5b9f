"""One headless Chromium for the whole browser test, driven over the DevTools protocol.

Chromium is started once with ``--remote-debugging-pipe`` (the protocol's JSON messages, each ended by a NUL
byte, on file descriptors 3 and 4: no websocket, no library beyond the standard one). Each page is loaded
once, in a tab of its own; in that one load the test reads the DOM after the scripts ran, measures the
layout and takes the screenshots at each width. Starting Chromium per page and per check, as the test did
before, cost about 110 browser starts and as many MathJax typesettings per build (AMD EPYC, loaded: 221
against 109 core-seconds with one load per page and width).

- `Chromium(binary, flags)`: the browser; `with` closes it.
- `Chromium.tab(width, height)`: a tab with a window of that size (`with` closes it);
  `Tab.load(url)` returns once the page's load event fired and MathJax finished typesetting;
  `Tab.evaluate(expression)` the value of a JavaScript expression (a promise is awaited);
  `Tab.screenshot(width, height)` a PNG of the top of the page in a window of that size;
  `Tab.accessible_roles()` the roles of its accessibility tree, counted.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import subprocess
import tempfile
import threading
from collections import Counter
from concurrent.futures import Future
from pathlib import Path

# Resolves when the page's load event has fired, then once MathJax (where the page loads it) has typeset
# the page, then once its fonts are ready.
TYPESET = """new Promise(function (done) {
  if (document.readyState === "complete") { done(); } else { window.addEventListener("load", function () { done(); }); }
}).then(function () {
  return window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
}).then(function () { return document.fonts.ready; }).then(function () { return true; })"""


def _above(fd: int, lowest: int) -> int:
    """`fd` moved to the lowest free descriptor number >= `lowest` (the original is closed)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, lowest)
    os.close(fd)
    return moved


class BrowserError(RuntimeError):
    """Chromium failed, answered with an error, or did not answer in time."""


class Chromium:
    """A headless Chromium process and its DevTools connection (thread-safe: one tab per thread)."""

    def __init__(self, binary: str, flags: list[str], timeout: float = 120.0):
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="book-chromium-")
        # its messages go to a file: a pipe nobody reads would stop Chromium once the pipe's buffer is full
        self._log = Path(self._profile.name) / "chromium.log"
        to_browser, self._from_test = os.pipe()
        self._to_test, from_browser = os.pipe()
        # Chromium reads the protocol on fd 3 and writes on fd 4: bash puts the pipes there (dash reads one
        # digit), then execs it.
        # Its ends are first moved to fds from 10 up, so that putting one on 3 cannot overwrite the other
        # (under pytest's output capture, a pipe can itself be fd 3 or 4).
        to_browser, from_browser = (_above(fd, 10) for fd in (to_browser, from_browser))
        with self._log.open("wb") as log:  # the child keeps its own copy of the file
            self._process = subprocess.Popen(
                ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}', binary, *flags,
                 "--remote-debugging-pipe", f"--user-data-dir={self._profile.name}", "about:blank"],
                pass_fds=(to_browser, from_browser),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=dict(os.environ, HOME=self._profile.name),
            )  # fmt: skip
        os.close(to_browser)
        os.close(from_browser)
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending: dict[int, Future] = {}
        self._events: dict[str, queue.Queue] = {}
        self._reader = threading.Thread(target=self._read, name="chromium-devtools", daemon=True)
        self._reader.start()

    # ---- the protocol ----------------------------------------------------------------------
    def _read(self) -> None:
        buffer = b""
        with os.fdopen(self._to_test, "rb", buffering=0) as stream:
            while chunk := stream.read(1 << 16):
                buffer += chunk
                *messages, buffer = buffer.split(b"\0")
                for raw in messages:
                    self._dispatch(json.loads(raw))
        with self._lock:  # the browser went away: every waiting call fails now, not at its timeout
            for future in self._pending.values():
                future.set_exception(BrowserError(f"Chromium exited: {self._stderr_tail()}"))
            self._pending.clear()

    def _dispatch(self, message: dict) -> None:
        if "id" in message:
            with self._lock:
                future = self._pending.pop(message["id"], None)
            if future is None:
                return
            if "error" in message:
                future.set_exception(BrowserError(f"DevTools error: {message['error']}"))
            else:
                future.set_result(message.get("result", {}))
        elif "sessionId" in message:
            with self._lock:
                events = self._events.get(message["sessionId"])
            if events is not None:
                events.put(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """The result of one DevTools command (in a tab when `session` names it)."""
        future: Future = Future()
        with self._lock:
            self._next_id += 1
            message = {"id": self._next_id, "method": method, "params": params or {}}
            if session is not None:
                message["sessionId"] = session
            self._pending[self._next_id] = future
            try:
                os.write(self._from_test, json.dumps(message).encode() + b"\0")
            except BrokenPipeError:
                raise BrowserError(f"{method}: Chromium exited: {self._stderr_tail()}") from None
        try:
            return future.result(timeout=self.timeout)
        except TimeoutError:
            raise BrowserError(f"{method}: no answer from Chromium in {self.timeout:g} s") from None

    def _stderr_tail(self) -> str:
        if self._process.poll() is None:
            return "(still running)"
        return f"exit code {self._process.returncode}; " + self._log.read_bytes().decode("utf-8", "replace")[-1500:]

    # ---- tabs ------------------------------------------------------------------------------
    def tab(self, width: int, height: int) -> Tab:
        # Each tab in a window of its own: tabs of one window are hidden but for one, and a hidden page draws no
        # frame, so a screenshot's wait for the next frame lasted until the tabs before it closed (16 s).
        target = self.call("Target.createTarget", {"url": "about:blank", "newWindow": True})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        with self._lock:
            self._events[session] = queue.Queue()
        tab = Tab(self, target, session)
        tab.resize(width, height)
        self.call("Page.enable", session=session)
        return tab

    def wait_event(self, session: str, method: str) -> dict:
        events = self._events[session]
        while True:
            try:
                message = events.get(timeout=self.timeout)
            except queue.Empty:
                raise BrowserError(f"no {method} from Chromium in {self.timeout:g} s") from None
            if message.get("method") == method:
                return message.get("params", {})

    def close_tab(self, tab: Tab) -> None:
        self.call("Target.closeTarget", {"targetId": tab.target})
        with self._lock:
            self._events.pop(tab.session, None)

    def close(self) -> None:
        try:
            if self._process.poll() is None:
                self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._from_test)
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Tab:
    """One page of the browser (see `Chromium.tab`)."""

    def __init__(self, browser: Chromium, target: str, session: str):
        self.browser, self.target, self.session = browser, target, session

    def _call(self, method: str, params: dict | None = None) -> dict:
        return self.browser.call(method, params, self.session)

    def resize(self, width: int, height: int) -> None:
        """A window of `width` x `height` CSS px, one device pixel each (a desk's screen, not a phone's emulation)."""
        self._call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def load(self, url: str) -> None:
        """Open `url`; return once it loaded and MathJax typeset it."""
        navigated = self._call("Page.navigate", {"url": url})
        if navigated.get("errorText"):
            raise BrowserError(f"{url}: {navigated['errorText']}")
        self.browser.wait_event(self.session, "Page.loadEventFired")
        self.evaluate(TYPESET)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited), as JSON makes it."""
        answer = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise BrowserError(f"JavaScript failed: {details.get('exception', {}).get('description') or details}")
        return answer["result"].get("value")

    def accessible_roles(self) -> Counter:
        """How many nodes of each role ("row", "columnheader", ...) the page's accessibility tree has, as a
        screen reader is given them."""
        self._call("Accessibility.enable")
        nodes = self._call("Accessibility.getFullAXTree")["nodes"]
        return Counter(node.get("role", {}).get("value") for node in nodes if not node.get("ignored"))

    def screenshot(self, path: Path, width: int, height: int) -> None:
        """A PNG of the page's top `width` x `height` px (the window is resized to that, then back)."""
        previous = self.evaluate("[window.innerWidth, window.innerHeight]")
        self.resize(width, height)
        self.evaluate("new Promise(function (done) { requestAnimationFrame(function () { done(true); }); })")
        data = self._call("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        self.resize(*previous)

    def close(self) -> None:
        self.browser.close_tab(self)

    def __enter__(self) -> Tab:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
