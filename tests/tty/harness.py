"""The real `dsh-tui` console script in a pseudo-terminal, read back as a person sees it.

In-process tests (`App.run_test`) never see what reaches a terminal: the console script's own
start-up (PATH, imports, the first frame), the bytes a real keyboard sends (bracketed paste,
Alt+Enter, CSI-u keys), and the escape sequences the app writes. This harness runs the
installed script in a pty of a fixed size, renders everything it writes with `pyte`, and records
every control sequence, so tests can assert on the screen and on what the terminal received.

It is importable outside pytest (bench/bench_screen.py uses it); nothing here imports pytest.
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import os
import re
import select
import signal
import sys
import termios
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import ptyprocess
import pyte

VENV_BIN = Path(sys.executable).parent
# The console script pip generated, as a user runs it: not `python -m tui.cli`.
DSH_TUI = VENV_BIN / "dsh-tui"
DSH_AGENT = VENV_BIN / "dsh-agent"

# What a real xterm (with the kitty keyboard protocol where Textual asks for it) sends.
KEYS: dict[str, bytes] = {
    "enter": b"\r",
    "ctrl+j": b"\n",
    "alt+enter": b"\x1b\r",
    # CSI-u, as kitty/foot/wezterm/ghostty report Shift+Enter; plain xterm sends "\r".
    "shift+enter": b"\x1b[13;2u",
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "backspace": b"\x7f",
    "escape": b"\x1b",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "ctrl+home": b"\x1b[1;5H",
    "ctrl+end": b"\x1b[1;5F",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "ctrl+c": b"\x03",
    "ctrl+q": b"\x11",
    "ctrl+k": b"\x0b",
    "ctrl+l": b"\x0c",
    "alt+up": b"\x1b[1;3A",
    "ctrl+up": b"\x1b[1;5A",
    "ctrl+f": b"\x06",
    "ctrl+g": b"\x07",
    "ctrl+p": b"\x10",
    "ctrl+t": b"\x14",
    "ctrl+w": b"\x17",
    "ctrl+pageup": b"\x1b[5;5~",
    "ctrl+pagedown": b"\x1b[6;5~",
    **{f"alt+{n}": b"\x1b" + str(n).encode() for n in range(1, 10)},
    "f1": b"\x1bOP",
    "f2": b"\x1bOQ",
    "f5": b"\x1b[15~",
}

# The sizes the issue asks for where size matters: (columns, rows).
SIZES = [(80, 24), (140, 45)]


def size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


# Synchronized output (mode 2026): the app asks whether the terminal has it, and with it
# brackets each frame, so a reader can tell a whole frame from one half written.
SYNC_QUERY = "\x1b[?2026$p"
SYNC_ANSWER = b"\x1b[?2026;2$y"  # supported, currently reset
SYNC_START = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


def _utf8_locale() -> str:
    """A UTF-8 locale that exists here (C.UTF-8 on Debian-likes), so Textual draws box lines."""
    try:
        import subprocess

        names = subprocess.run(
            ["locale", "-a"], capture_output=True, text=True, timeout=5, check=False
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        names = []
    lowered = {name.lower().replace("-", ""): name for name in names}
    for wanted in ("c.utf8", "en_us.utf8"):
        if wanted in lowered:
            return lowered[wanted]
    return "C.UTF-8"


LOCALE = _utf8_locale()


def app_env(
    home: Path, extra: Mapping[str, str] | None = None, activated: bool = True
) -> dict[str, str]:
    """The app's real environment, minus what would make a run depend on the developer's
    terminal or data: no NO_COLOR or TEXTUAL_* settings, private state, data and log dirs.

    `activated` puts the venv's bin first on PATH, as `source .venv/bin/activate` (and ./dev)
    do; the test of a bare `.venv/bin/dsh-tui` passes False and its own PATH."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "NO_COLOR" and not key.startswith("TEXTUAL_") and key not in ("COLUMNS", "LINES")
    }
    env.update(
        TERM="xterm-256color",
        COLORTERM="truecolor",
        LANG=LOCALE,
        LC_ALL=LOCALE,
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        DSH_SESSION_DIR=str(home / "sessions"),
        DSH_LOG_DIR=str(home / "logs"),
    )
    if activated:
        env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", os.defpath)])
    env.pop("DSH_AGENT", None)
    env.pop("DSH_CONFIG", None)
    for key, value in (extra or {}).items():
        env[key] = value
    return env


# --- the escape recorder --------------------------------------------------------------------

# Complete sequences, tried at an ESC. Parameter bytes 0x30-0x3f include the private
# markers < = > ?; intermediates 0x20-0x2f; finals 0x40-0x7e (ECMA-48 5.4).
_CSI = re.compile(r"\x1b\[([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])")
_CSI_PARTIAL = re.compile(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*\Z")
_OSC = re.compile(r"\x1b\]([^\x07\x1b]*)(?:\x07|\x1b\\)")
_STRING = re.compile(r"\x1b([P_^X])(.*?)(?:\x1b\\|\x07)", re.DOTALL)
_ESC = re.compile(r"\x1b([\x20-\x2f]*)([\x30-\x7e])")
_ESC_PARTIAL = re.compile(r"\x1b[\x20-\x2f]*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_STRING_NAMES = {"P": "DCS", "_": "APC", "^": "PM", "X": "SOS"}
# Above this, an unterminated OSC/DCS/APC is taken as garbage rather than awaited.
_MAX_PENDING = 1 << 20


@dataclass
class EscapeRecorder:
    """Splits the app's output into text and control sequences, counting each sequence by its
    signature (family, private parameters, final byte), so a test can say which ones reached
    the terminal. Incremental: a sequence split across two reads is parsed once, whole."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    pending: str = ""
    clipboard: list[str] = field(default_factory=list)  # each OSC 52 write, whole

    @staticmethod
    def signature(raw: str) -> str:
        """The name a sequence is allowed by: e.g. `CSI m`, `CSI H`, `CSI ?1049h`, `OSC 52`."""
        if raw.startswith("\x1b["):
            match = _CSI.fullmatch(raw)
            if match is None:
                return "CSI malformed"
            params, inter, final = match.groups()
            # Private and mode sequences are told apart by their parameters; the rest (cursor
            # moves, SGR, erase) by their final byte only.
            if params[:1] in ("<", "=", ">", "?") or final in "hl":
                return f"CSI {params}{inter}{final}"
            return f"CSI {inter}{final}"
        if raw.startswith("\x1b]"):
            code = raw[2:].split(";", 1)[0].rstrip("\x07\x1b\\")
            return f"OSC {code}"
        if raw[:1] == "\x1b" and raw[1:2] in _STRING_NAMES:
            return _STRING_NAMES[raw[1]]
        if raw[:1] == "\x1b":
            return f"ESC {raw[1:]}"
        code = ord(raw[0])
        if 0x80 <= code <= 0x9F:
            return f"C1 U+{code:04X}"
        return f"C0 0x{code:02x}"

    def _record(self, raw: str) -> None:
        name = self.signature(raw)
        self.counts[name] += 1
        self.examples.setdefault(name, repr(raw[:80]))
        if name == "OSC 52":
            self.clipboard.append(raw)

    def feed(self, text: str) -> list[str]:
        """Record the sequences in `text`; return the pieces to hand to the screen emulator
        (text and the sequences pyte understands, in order)."""
        data = self.pending + text
        self.pending = ""
        out: list[str] = []
        pos = 0
        end = len(data)
        while pos < end:
            match = _CONTROL.search(data, pos)
            if match is None:
                out.append(data[pos:])
                break
            start = match.start()
            if start > pos:
                out.append(data[pos:start])
            char = data[start]
            if char != "\x1b":
                self._record(char)
                if not 0x80 <= ord(char) <= 0x9F:  # pyte would act on 8-bit C1; keep it out
                    out.append(char)
                pos = start + 1
                continue
            nxt = data[start + 1 : start + 2]
            if not nxt:
                self.pending = data[start:]
                break
            if nxt == "[":
                found = _CSI.match(data, start)
                if found is None:
                    if _CSI_PARTIAL.match(data, start):
                        self.pending = data[start:]
                        break
                    self._record("\x1b[")  # malformed: a control byte inside the parameters
                    pos = start + 2
                    continue
                raw = found.group(0)
                self._record(raw)
                # pyte draws the final byte of `CSI < u` and friends as text: keep them out.
                if found.group(1)[:1] not in ("<", "=", ">"):
                    out.append(raw)
                pos = found.end()
            elif nxt == "]":
                found = _OSC.match(data, start)
                if found is None:
                    if end - start < _MAX_PENDING and "\x07" not in data[start:]:
                        self.pending = data[start:]
                        break
                    self._record("\x1b]")
                    pos = start + 2
                    continue
                self._record(found.group(0))
                out.append(found.group(0))
                pos = found.end()
            elif nxt in _STRING_NAMES:
                found = _STRING.match(data, start)
                if found is None:
                    if end - start < _MAX_PENDING:
                        self.pending = data[start:]
                        break
                    self._record(data[start : start + 2])
                    pos = start + 2
                    continue
                self._record(found.group(0))  # pyte cannot parse these strings: drop them
                pos = found.end()
            else:
                found = _ESC.match(data, start)
                if found is None:
                    if _ESC_PARTIAL.match(data, start):
                        self.pending = data[start:]
                        break
                    self._record("\x1b")  # a lone ESC before a control byte
                    out.append("\x1b")
                    pos = start + 1
                    continue
                self._record(found.group(0))
                out.append(found.group(0))
                pos = found.end()
        return out


# The sequences Textual 8.2.8 itself writes to an xterm-256color pty, found by recording full
# sessions (start, demo, prompts, paste, resize, quit; see test_escapes.py) and checked against
# its drivers. Deliberately absent: titles (OSC 0/2; Textual never sets one), DCS/APC/PM/SOS
# strings and 8-bit C1 controls (never written by Textual), hyperlinks (OSC 8, only for
# `link` styles, which agent text must not get), and clipboard writes (OSC 52: Textual writes
# one only from App.copy_to_clipboard, which no test here triggers). Any of them on the pty
# means agent or tool text leaked through; a test that copies on purpose adds "OSC 52".
TEXTUAL_SEQUENCES: frozenset[str] = frozenset(
    {
        # every frame: cursor positioning and SGR colours and attributes
        "CSI H",
        "CSI m",
        # start and end (textual/drivers/linux_driver.py): alternate screen, cursor hidden,
        # mouse (basic, any-motion, urxvt, SGR), focus events, bracketed paste, no line wrap
        "CSI ?1049h",
        "CSI ?1049l",
        "CSI ?25l",
        "CSI ?25h",
        "CSI ?1000h",
        "CSI ?1000l",
        "CSI ?1003h",
        "CSI ?1003l",
        "CSI ?1015h",
        "CSI ?1015l",
        "CSI ?1006h",
        "CSI ?1006l",
        "CSI ?1004h",
        "CSI ?1004l",
        "CSI ?2004h",
        "CSI ?2004l",
        "CSI ?7l",
        "CSI ?7h",
        # queries for synchronized output and in-band resize (DECRQM); a terminal that
        # answers them gets the modes set too
        "CSI ?2026$p",
        "CSI ?2048$p",
        "CSI ?2026h",
        "CSI ?2026l",
        "CSI ?2048h",
        "CSI ?2048l",
        # kitty keyboard protocol: push flags 1|8|16, pop on exit
        "CSI >25u",
        "CSI <u",
        # kitty pointer shape (App.set_pointer_shape), "default" at start
        "OSC 22",
        # line ends between rows of a frame
        "C0 0x0d",
        "C0 0x0a",
    }
)


def unexpected_sequences(
    counts: Mapping[str, int], allowed: Iterable[str] = TEXTUAL_SEQUENCES
) -> list[str]:
    """Signatures that were emitted but are not in `allowed`, sorted."""
    permitted = set(allowed)
    return sorted(name for name in counts if name not in permitted)


# --- processes ------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, session id, state) of a process, or None when it is gone."""
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    fields = data[data.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[3]), fields[0]


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def descendants(root: int) -> set[int]:
    """Every live process whose parent chain reaches `root` or that is in `root`'s session
    (a pty child is a session leader; an orphan reparented to init is still in its session)."""
    table: dict[int, tuple[int, int, str]] = {}
    for pid in _all_pids():
        info = _stat(pid)
        if info is not None:
            table[pid] = info
    found: set[int] = set()
    for pid, (_ppid, sid, state) in table.items():
        if pid != root and sid == root and state != "Z":
            found.add(pid)
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _sid, state) in table.items():
            if (
                pid not in found
                and pid != root
                and state != "Z"
                and (ppid in found or ppid == root)
            ):
                found.add(pid)
                changed = True
    return found


def alive(pid: int) -> bool:
    info = _stat(pid)
    return info is not None and info[2] != "Z"


# --- the app in a pty -----------------------------------------------------------------------


class TtyTimeout(AssertionError):
    """A bounded wait ran out; the message holds the whole screen."""


@dataclass
class TtyApp:
    """One running `dsh-tui` in a pty, with its emulated screen and its escape record."""

    process: ptyprocess.PtyProcess
    screen: pyte.Screen
    home: Path
    argv: list[str]
    started: float
    recorder: EscapeRecorder = field(default_factory=EscapeRecorder)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # ptyprocess's isalive() and wait() reap the child with waitpid: from two threads at once
    # (the reader's process scan and the test's quit) the loser gets ECHILD. One at a time.
    _reap_lock: threading.RLock = field(default_factory=threading.RLock)
    bytes_read: int = 0
    updates: int = 0
    seen_pids: set[int] = field(default_factory=set)
    eof: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _reader: threading.Thread | None = None
    _stream: pyte.Stream | None = None
    exit_status: int | None = None
    # The screen as of the last whole frame: what `display` and `cursor` read.
    in_frame: bool = False
    _shown: list[str] = field(default_factory=list)
    _shown_cursor: tuple[int, int] = (0, 0)
    # perf_counter() of the last read from the pty, and of the read that ended the shown frame.
    _read_at: float = 0.0
    _shown_read_at: float = 0.0

    # -- start and stop

    @classmethod
    def start(
        cls,
        args: Sequence[str] = (),
        *,
        home: Path,
        size: tuple[int, int] = (80, 24),
        cwd: Path | None = None,
        env_extra: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        program: Path | str = DSH_TUI,
    ) -> TtyApp:
        """Launch `program args` in a `size` (columns, rows) pty. `home` holds the private
        state/data/log dirs and, unless `cwd` is given, the workspace (`home/work`), which is
        passed as --cwd when `args` does not name one."""
        columns, rows = size
        home.mkdir(parents=True, exist_ok=True)
        workspace = cwd or home / "work"
        workspace.mkdir(parents=True, exist_ok=True)
        argv = [str(program), *args]
        if "--cwd" not in args and args[:1] not in (["demo"], ["replay"], ["compare"]):
            argv += ["--cwd", str(workspace)]
        environment = dict(env) if env is not None else app_env(home, env_extra)
        screen = pyte.Screen(columns, rows)
        started = time.monotonic()
        process = ptyprocess.PtyProcess.spawn(
            argv, cwd=str(workspace), env=environment, dimensions=(rows, columns)
        )
        app = cls(process=process, screen=screen, home=home, argv=argv, started=started)
        app._stream = pyte.Stream(screen)
        app._reader = threading.Thread(target=app._read_loop, name="tty-reader", daemon=True)
        app._reader.start()
        return app

    def _read_loop(self) -> None:
        """Drain the pty all the time (a full pty buffer would block the app's writes) into
        the emulator. Also samples the process tree, so a child that outlives the app is known
        even after it was reparented."""
        fd = self.process.fd
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        last_scan = 0.0
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.05)
            except (OSError, ValueError):
                break
            if ready:
                data = self._drain(fd)
                if not data:
                    break
                # When the bytes reached the terminal, before the (slow, pure Python) emulator
                # parses them: a frame written at once is read whole, so this is its arrival.
                arrived = time.perf_counter()
                text = decoder.decode(data)
                with self.lock:
                    self._read_at = arrived
                    self.bytes_read += len(data)
                    assert self._stream is not None
                    for piece in self.recorder.feed(text):
                        self._stream.feed(piece)
                        if piece == SYNC_QUERY:
                            self.send(SYNC_ANSWER)  # as a modern terminal answers
                        elif piece == SYNC_START:
                            self.in_frame = True
                        elif piece == SYNC_END:
                            self.in_frame = False
                            self._show()
                    if not self.in_frame:
                        self._show()
                    self.updates += 1
            now = time.monotonic()
            if now - last_scan > 0.25:
                last_scan = now
                self.scan_processes()
        with self.lock:
            self.eof = True

    @staticmethod
    def _drain(fd: int) -> bytes:
        """What the pty holds now, read whole (up to 256 KiB): a frame arrives in pieces of a
        few KB, and parsing each before reading the next would time the emulator, not the app.
        Empty at the end of the output."""
        chunks: list[bytes] = []
        size = 0
        while size < 1 << 18:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            try:
                more, _, _ = select.select([fd], [], [], 0)
            except (OSError, ValueError):
                break
            if not more:
                break
        return b"".join(chunks)

    def scan_processes(self) -> set[int]:
        """Remember every descendant seen now; returns the live ones."""
        if not self.is_alive():
            return set()
        live = descendants(self.process.pid)
        with self.lock:
            self.seen_pids |= live
        return live

    @property
    def pid(self) -> int:
        return int(self.process.pid)

    def is_alive(self) -> bool:
        with self._reap_lock:
            return bool(self.process.isalive())

    def _reap(self) -> None:
        with self._reap_lock:
            self.process.wait()

    def leftover_pids(self) -> set[int]:
        """Descendants seen while the app ran that are still alive (not zombies)."""
        with self.lock:
            seen = set(self.seen_pids)
        if self.is_alive():
            seen |= descendants(self.pid)
        return {pid for pid in seen if alive(pid)}

    def wait_no_leftovers(self, timeout: float = 5.0) -> set[int]:
        """Wait (bounded) for the app's children to go; returns those still alive."""
        deadline = time.monotonic() + timeout
        while True:
            left = self.leftover_pids()
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    def wait_exit(self, timeout: float = 15.0) -> int:
        """The exit code (negative for a signal); raises TtyTimeout if it keeps running."""
        deadline = time.monotonic() + timeout
        while self.is_alive():
            if time.monotonic() > deadline:
                raise TtyTimeout(f"dsh-tui still running after {timeout:.0f} s\n{self.dump()}")
            time.sleep(0.02)
        self._reap()
        status = self.process.exitstatus
        if status is None:
            status = -int(self.process.signalstatus or 0)
        self.exit_status = int(status)
        return self.exit_status

    def quit(self, timeout: float = 15.0) -> int:
        """Ctrl+Q, as a user quits; the exit code."""
        self.key("ctrl+q")
        return self.wait_exit(timeout)

    def kill(self) -> None:
        """SIGKILL the app's process group and every descendant seen; reap the app."""
        pids = self.leftover_pids()
        if self.is_alive():
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ptyprocess.PtyProcessError):
            self._reap()

    def close(self, timeout: float = 10.0) -> None:
        """Quit politely if still running, then make sure nothing of it is left."""
        try:
            if self.is_alive():
                with contextlib.suppress(TtyTimeout, OSError):
                    self.quit(timeout)
        finally:
            self.kill()
            self._stop.set()
            if self._reader is not None:
                self._reader.join(timeout=5)
            with contextlib.suppress(Exception):
                self.process.close(force=True)

    # -- input

    def send(self, data: str | bytes) -> None:
        """Raw bytes to the app, as if typed (str is UTF-8 encoded)."""
        payload = data.encode() if isinstance(data, str) else data
        while payload:
            written = os.write(self.process.fd, payload)
            payload = payload[written:]

    def type(self, text: str) -> None:
        """Type printable text, one write (a fast typist or a paste without bracketing)."""
        self.send(text)

    def key(self, *names: str) -> None:
        """Named keys (see KEYS), one write each."""
        for name in names:
            self.send(KEYS[name])
            if name == "escape":
                # A lone ESC is told from the start of a sequence by a pause.
                time.sleep(0.15)

    def paste(self, text: str) -> None:
        """A bracketed paste, as a terminal sends it once the app enabled mode 2004."""
        self.send(PASTE_START + text.encode() + PASTE_END)

    def resize(self, columns: int, rows: int) -> None:
        """Resize the pty (the kernel sends SIGWINCH) and the emulated screen."""
        with self.lock:
            self.screen.resize(lines=rows, columns=columns)
            self._show()
        self.process.setwinsize(rows, columns)

    def cooked(self) -> bool:
        """Whether the pty is still in cooked mode (line editing on): the app has not yet
        taken it over, so what is typed now is echoed and CR becomes NL."""
        try:
            lflag = termios.tcgetattr(self.process.fd)[3]
        except termios.error:
            return False
        return bool(lflag & termios.ICANON)

    # -- reading the screen

    def _show(self) -> None:
        """Take the emulated screen as shown (the lock is held): a frame has ended, or output
        came outside any frame."""
        self._shown = list(self.screen.display)
        self._shown_cursor = (self.screen.cursor.x, self.screen.cursor.y)
        self._shown_read_at = self._read_at

    def display(self) -> list[str]:
        """The screen as lines of text, as a person reads it: the last whole frame, never
        one half drawn."""
        with self.lock:
            return list(self._shown or self.screen.display)

    def display_read_at(self) -> tuple[list[str], float]:
        """The screen as `display` gives it, and when its last bytes were read from the pty
        (`time.perf_counter()`): when the frame reached the terminal, before it was parsed."""
        with self.lock:
            return list(self._shown or self.screen.display), self._shown_read_at

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.display())

    def cursor(self) -> tuple[int, int]:
        with self.lock:
            return (
                self._shown_cursor if self._shown else (self.screen.cursor.x, self.screen.cursor.y)
            )

    def sequences(self) -> Counter[str]:
        """Every control sequence written so far, by signature, with counts."""
        with self.lock:
            return Counter(self.recorder.counts)

    def clipboard(self) -> list[str]:
        """What each clipboard write (OSC 52) carried, decoded, oldest first."""
        with self.lock:
            writes = list(self.recorder.clipboard)
        decoded = []
        for raw in writes:
            payload = raw[2:].split(";", 2)[-1].rstrip("\x07").removesuffix("\x1b\\")
            decoded.append(base64.b64decode(payload).decode("utf-8", "replace"))
        return decoded

    def sequence_examples(self) -> dict[str, str]:
        with self.lock:
            return dict(self.recorder.examples)

    def unexpected_sequences(self, allowed: Iterable[str] = TEXTUAL_SEQUENCES) -> dict[str, str]:
        """Emitted signatures outside `allowed`, each with its first raw example."""
        examples = self.sequence_examples()
        return {name: examples[name] for name in unexpected_sequences(self.sequences(), allowed)}

    def dump(self) -> str:
        """The screen in a frame, for failure messages."""
        lines = self.display()
        width = self.screen.columns
        border = "+" + "-" * width + "+"
        body = "\n".join(f"|{line}|" for line in lines)
        cursor = self.cursor()
        state = "running" if self.is_alive() else f"exited ({self.exit_status})"
        return (
            f"screen {width}x{len(lines)}, cursor {cursor}, app {state}, "
            f"{time.monotonic() - self.started:.1f} s since launch\n{border}\n{body}\n{border}"
        )

    # -- waiting

    def wait_for(
        self,
        condition: str | Callable[[list[str]], bool],
        timeout: float = 30.0,
        message: str = "",
    ) -> list[str]:
        """Poll the screen until `condition` (a substring of one line, or a predicate on the
        lines) holds; returns the lines. On timeout, raises with the screen in the message."""
        check = _as_predicate(condition)
        deadline = time.monotonic() + timeout
        while True:
            lines = self.display()
            if check(lines):
                return lines
            if time.monotonic() > deadline or (self.eof and not self.is_alive()):
                what = condition if isinstance(condition, str) else message or "condition"
                why = "timed out" if self.is_alive() else "app exited"
                raise TtyTimeout(f"{why} after {timeout:.0f} s waiting for {what!r}\n{self.dump()}")
            time.sleep(0.02)

    def wait_gone(
        self, condition: str | Callable[[list[str]], bool], timeout: float = 30.0
    ) -> list[str]:
        """Poll until `condition` no longer holds (e.g. a `queued` line went away)."""
        check = _as_predicate(condition)
        what = condition if isinstance(condition, str) else "condition"
        return self.wait_for(lambda lines: not check(lines), timeout, f"{what!r} to go away")

    def wait_stable(self, quiet: float = 0.5, timeout: float = 30.0) -> list[str]:
        """Wait until the text on screen stays the same for `quiet` seconds (bounded)."""
        deadline = time.monotonic() + timeout
        last = self.display()
        since = time.monotonic()
        while True:
            time.sleep(0.02)
            now = self.display()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return now
            if time.monotonic() > deadline:
                raise TtyTimeout(f"screen never settled in {timeout:.0f} s\n{self.dump()}")


def _as_predicate(condition: str | Callable[[list[str]], bool]) -> Callable[[list[str]], bool]:
    if isinstance(condition, str):
        needle = condition
        return lambda lines: any(needle in line for line in lines)
    return condition


def header_ready(lines: list[str]) -> bool:
    """The header names the agent once `initialize` answered ("dsh-tui · dsh-agent 0.1.0 ·
    mode: Ask …"; a narrow terminal drops the protocol details first); while connecting it
    says "dsh-tui · starting <command>" instead."""
    return any(
        line.lstrip().startswith("dsh-tui · ") and "dsh-tui · starting " not in line
        for line in lines[:2]
    )


# --- agents and side channels ---------------------------------------------------------------

SCRIPT_AGENT = Path(__file__).resolve().parent.parent / "e2e" / "script_agent.py"


def agent_command(*args: str) -> str:
    """`--agent` for the real dsh-agent of this venv, with extra flags (e.g. --mode)."""
    import shlex

    return shlex.join([str(DSH_AGENT), *args])


def script_agent_command(path: Path, script: Mapping[str, object]) -> str:
    """Write `script` (see tests/e2e/script_agent.py) to `path`; the `--agent` that plays it."""
    import json
    import shlex

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(script))
    return shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])


def turns_ended(home: Path) -> int:
    """Turns dsh-agent has finished, from its session logs (`DSH_SESSION_DIR` under `home`):
    tells a test that a turn is over even when its end is not on screen."""
    count = 0
    for log in (home / "sessions").glob("*.jsonl"):
        with contextlib.suppress(OSError):
            count += log.read_text(errors="replace").count('"type":"turn/end"')
    return count


def wait_until(
    predicate: Callable[[], bool], timeout: float = 30.0, what: str = "condition"
) -> None:
    """Bounded polling on anything but the screen (a file, a log)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TtyTimeout(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.02)
