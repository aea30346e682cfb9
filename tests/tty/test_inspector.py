"""The traffic inspector opened with F12 while a reply streams in: its list grows with the
wire, and the transcript keeps following the stream (beside the pane at 140×45; at 80×24,
behind it, and at the end once F12 closes it).

The agent says when it has sent everything through a side channel (a file it touches); the
screen then gets a bounded time to show the end.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from harness import SIZES, TtyApp, header_ready, script_agent_command, size_id
from harness import wait_until as wait_for_file
from loads import TOKEN, held_word_stream, nonce

F12 = b"\x1b[24~"  # what xterm sends for F12
COUNT = re.compile(r"Traffic · ([\d,]+) messages")
RENDER = 15.0

Start = Callable[..., TtyApp]


def message_count(lines: list[str]) -> int | None:
    for line in lines:
        found = COUNT.search(line)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


def newest_word(lines: list[str], columns: int) -> int:
    """The stream's newest word in the transcript's columns (left of a pane beside it)."""
    words = [int(w) for line in lines for w in TOKEN.findall(line[:columns])]
    return max(words, default=-1)


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_f12_during_a_stream(tty: Start, home: Path, size: tuple[int, int]) -> None:
    columns, rows = size
    marker, done, release = f"END-{nonce()}", home / "done", home / "release"
    screenful = (columns // 6) * rows
    # A screenful of words, then a hold while the pane opens, then two more to watch both
    # sides move (about two seconds).
    words = held_word_stream(screenful, screenful * 2, marker, 0.04, screenful // 25, release)
    script = {"agent_name": "script-agent", "prompts": [[*words, {"touch": str(done)}]]}
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=size)
    app.wait_for(header_ready)
    app.type("go")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(lambda lines: newest_word(lines, columns) > screenful // 2, 30, "the stream")

    app.send(F12)
    app.wait_for(lambda lines: message_count(lines) is not None, RENDER, "the inspector")
    first = message_count(app.display()) or 0
    release.touch()
    app.wait_for(lambda lines: (message_count(lines) or 0) > first + 20, RENDER, "the list to grow")
    assert "session/update agent_message_chunk" in app.text()

    if columns >= 100:
        # Beside the pane, the transcript goes on following the stream.
        pane_at = next(line.index("Traffic") for line in app.display() if "Traffic" in line)
        seen = newest_word(app.display(), pane_at)
        app.wait_for(
            lambda lines: newest_word(lines, pane_at) > seen + 50,
            RENDER,
            "newer words in the transcript beside the pane",
        )
        wait_for_file(done.exists, what="the stream to end")
        app.wait_for(lambda lines: any(marker in line[:pane_at] for line in lines), RENDER)
    else:
        # Over the transcript: the pane is what shows; F12 gives the transcript back at the end.
        wait_for_file(done.exists, what="the stream to end")
        app.wait_for(
            lambda lines: (message_count(lines) or 0) > first + 100, RENDER, "the whole stream"
        )
        app.send(F12)
        app.wait_gone("Traffic ·", RENDER)
        app.wait_for(marker, RENDER, "the end of the stream once the pane is closed")
