"""`dsh-tui serve` as a user starts it, and its page in a real headless Chromium.

The page draws the terminal on a canvas (xterm.js), so its text is not in the DOM. The page's
WebSocket is wrapped by an init script that keeps every byte the terminal was given, and those
bytes are rendered here by the same VT emulator as the pty tests (tests/tty/harness.py): the
text read is what xterm.js drew from the same stream. Screenshots show the canvas itself.
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyte

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tty"))

from harness import (
    DSH_TUI,
    SYNC_END,
    SYNC_START,
    EscapeRecorder,
    app_env,
    descendants,
)

CHROMIUM_NAMES = ("chromium", "chromium-browser")

# Kept by the page for the test: every binary frame the terminal was written, and the size the
# page asked for (the WebSocket URL's, then each `resize` it sent).
CAPTURE_SCRIPT = """
(() => {
  const Native = window.WebSocket;
  const capture = { chunks: [], size: null, sockets: [] };
  window.__dshCapture = capture;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      capture.sockets.push(this);
      const query = new URL(url).searchParams;
      capture.size = [Number(query.get("width")), Number(query.get("height"))];
      this.addEventListener("message", (event) => {
        if (typeof event.data !== "string") capture.chunks.push(new Uint8Array(event.data));
      });
    }
    send(data) {
      try {
        const message = JSON.parse(data);
        if (message[0] === "resize") capture.size = [message[1].width, message[1].height];
      } catch (error) {}
      return super.send(data);
    }
  };
  window.__dshTake = (from) => {
    const chunks = capture.chunks.slice(from);
    let text = "";
    for (const chunk of chunks) for (const byte of chunk) text += String.fromCharCode(byte);
    return { count: capture.chunks.length, data: btoa(text), size: capture.size };
  };
})();
"""


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    return None


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (it is in the `test` extra: ./dev sets it up)"
    if chromium_path() is None:
        return (
            "no Chromium on PATH (Debian: apt-get install chromium); the browser tests drive "
            "the system Chromium, Playwright's own download is not used"
        )
    return None


class Served:
    """`dsh-tui serve --port 0 -- ARGS` in a session of its own; `url` is the printed one."""

    def __init__(self, home: Path, app_args: Sequence[str], serve_args: Sequence[str] = ()):
        self.home = home
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [str(DSH_TUI), "serve", "--port", "0", *serve_args, "--", *app_args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=app_env(home),
            cwd=home,
            text=True,
            start_new_session=True,
        )
        self.seen: set[int] = set()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url = self._wait_url()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def _wait_url(self, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if line.startswith("dsh-tui serve: http://"):
                    return line.split(": ", 1)[1]
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("serve printed no URL:\n" + "\n".join(self.lines))

    @property
    def origin(self) -> str:
        return self.url.split("/", 3)[0] + "//" + self.url.split("/", 3)[2]

    def tree(self) -> set[int]:
        """The live processes below serve (apps, agents, commands); remembered, so one that
        outlives its parent is still checked after it was reparented."""
        found = descendants(self.process.pid)
        self.seen |= found
        return found

    def alive_seen(self) -> set[int]:
        self.tree()
        return {pid for pid in self.seen if _alive(pid)}

    def interrupt(self, timeout: float = 30.0) -> int:
        """Ctrl+C, as in serve's terminal; returns the exit status."""
        self.tree()
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.interrupt()
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for pid in self.alive_seen():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return data[data.rindex(")") + 2 :].split()[0] != "Z"


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


class PageScreen:
    """What the page's terminal shows, rendered from the bytes it was written."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.recorder = EscapeRecorder()
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.taken = 0
        self.in_frame = False
        self.shown: list[str] = []
        self.bytes_seen = 0

    def _update(self) -> None:
        got = self.page.evaluate(f"window.__dshTake({self.taken})")
        if got["size"] is not None and tuple(got["size"]) != (
            self.screen.columns,
            self.screen.lines,
        ):
            self.screen.resize(got["size"][1], got["size"][0])
        self.taken = got["count"]
        data = base64.b64decode(got["data"])
        self.bytes_seen += len(data)
        for piece in self.recorder.feed(self.decoder.decode(data)):
            self.stream.feed(piece)
            if piece == SYNC_START:
                self.in_frame = True
            elif piece == SYNC_END:
                self.in_frame = False
                self.shown = list(self.screen.display)
        if not self.in_frame:
            self.shown = list(self.screen.display)

    def lines(self) -> list[str]:
        self._update()
        return list(self.shown)

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines())

    def wait_for(self, wanted: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        check = wanted if callable(wanted) else (lambda text: wanted in text)
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never showed {wanted!r}; it shows:\n{text}")
            time.sleep(0.1)
