"""What reaches the terminal: only the sequences Textual itself writes, whatever agent and tool
output contains (window titles, clipboard writes and DCS/APC strings must not leak through)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pyte
from harness import (
    TEXTUAL_SEQUENCES,
    EscapeRecorder,
    TtyApp,
    agent_command,
    header_ready,
    turns_ended,
    unexpected_sequences,
)
from harness import wait_until as wait_for_log

Start = Callable[..., TtyApp]


def test_recorder_parses_sequences_split_across_reads() -> None:
    recorder = EscapeRecorder()
    screen = pyte.Screen(40, 3)
    stream = pyte.Stream(screen)
    data = (
        "\x1b[?1049h\x1b[1;1H\x1b[38;2;1;2;3mhi\x1b[0m\x1b]0;title\x07"
        "\x1b_apc payload\x1b\\\x1b[>25u\x1b[<u\x1b7ok\r\n\x1b[?2026$p\u009b"
    )
    pieces: list[str] = []
    for cut in range(0, len(data), 3):  # three characters a read: every sequence is split
        pieces += recorder.feed(data[cut : cut + 3])
    for piece in pieces:
        stream.feed(piece)
    assert recorder.pending == ""
    assert dict(recorder.counts) == {
        "CSI ?1049h": 1,
        "CSI H": 1,
        "CSI m": 2,
        "OSC 0": 1,
        "APC": 1,
        "CSI >25u": 1,
        "CSI <u": 1,
        "ESC 7": 1,
        "C0 0x0d": 1,
        "C0 0x0a": 1,
        "CSI ?2026$p": 1,
        "C1 U+009B": 1,
    }
    # pyte got neither the APC payload nor the final `u` of the kitty sequences as text
    assert screen.display[0].rstrip() == "hiok"
    assert unexpected_sequences(recorder.counts) == ["APC", "C1 U+009B", "ESC 7", "OSC 0"]


INJECTION = (
    r"$ printf '\033]0;EVIL-TITLE\007\033]52;c;ZXZpbA==\007\033P1$r\033\\"
    r"\033_apc\033\\\033[?1049l\033[2J\302\233Xplain text\n'"
)


def test_only_textual_sequences_reach_the_terminal(tty: Start, home: Path) -> None:
    """The demo (every card kind), a paste, a resize, and a command printing title, clipboard,
    DCS, APC, alternate-screen and C1 sequences: none of the latter reaches the pty."""
    app = tty(["--agent", agent_command("--mode", "full-access")])
    app.wait_for(header_ready)
    app.type("demo")
    time.sleep(0.1)
    app.key("enter")
    wait_for_log(lambda: turns_ended(home) >= 1, timeout=60, what="the demo to end")
    app.type(INJECTION)
    time.sleep(0.1)
    app.key("enter")
    wait_for_log(lambda: turns_ended(home) >= 2, what="the printf turn to end")
    app.paste("pasted\ntext")
    app.resize(100, 30)
    app.wait_stable(0.5)
    assert app.quit() == 0
    extra = app.unexpected_sequences()
    assert not extra, f"sequences outside Textual's own set: {extra}"
    assert set(app.sequences()) <= TEXTUAL_SEQUENCES
