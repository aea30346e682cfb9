"""The conversation tools, as a user reaches them from the keyboard: the transcript's cursor
(Alt+Up, Up/Down, Enter, `c`, the diff keys, Esc), search (Ctrl+F), `/export` and `/new`."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import SIZES, TtyApp, header_ready, script_agent_command, size_id
from harness import wait_until as wait_for_file

from tui.widgets.transcript.search_highlight import CURRENT_STYLE

Start = Callable[..., TtyApp]

# The mark at the left of the entry under the cursor (the outline CSS draws it).
MARK = "█"
THOUGHT = "THOUGHT-WORDS-HIDDEN"
FIRST = "FIRST-REPLY-ALPHA"
LAST = "LAST-REPLY-OMEGA"
CONSOLE = "```console\n$ echo COPIED-OUTPUT\nCOPIED-OUTPUT\n```"


def update(session_update: str, **fields: Any) -> dict[str, Any]:
    return {"update": {"sessionUpdate": session_update, **fields}}


def text(kind: str, words: str) -> dict[str, Any]:
    return update(kind, content={"type": "text", "text": words})


def filler(call_id: str) -> dict[str, Any]:
    """A card of 20 lines of text: pushes what came before it off the screen."""
    lines = "\n".join(f"filler line {i}" for i in range(20))
    body = {"type": "content", "content": {"type": "text", "text": lines}}
    return update(
        "tool_call",
        toolCallId=call_id,
        title="Read",
        kind="read",
        status="completed",
        content=[body],
    )


def conversation(done: Path, fillers: int = 0) -> list[dict[str, Any]]:
    """A thought, a reply, an edit, a command's card and a last reply."""
    edit = {
        "type": "diff",
        "path": "app.py",
        "oldText": "x = 1\ny = 2\n",
        "newText": "x = 3\ny = 2\n",
    }
    console = {"type": "content", "content": {"type": "text", "text": CONSOLE}}
    return [
        text("agent_thought_chunk", THOUGHT),
        text("agent_message_chunk", FIRST),
        update(
            "tool_call",
            toolCallId="e1",
            title="Edit app.py",
            kind="edit",
            status="completed",
            content=[edit],
        ),
        update(
            "tool_call",
            toolCallId="x1",
            title="Run echo",
            kind="execute",
            status="completed",
            content=[console],
        ),
        *[filler(f"f{i}") for i in range(fillers)],
        text("agent_message_chunk", LAST),
        {"touch": str(done)},
    ]


def start(tty: Start, home: Path, size: tuple[int, int], fillers: int = 0) -> TtyApp:
    done = home / "done"
    script = {"agent_name": "script-agent", "prompts": [conversation(done, fillers)]}
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=size)
    app.wait_for(header_ready)
    app.type("go")
    time.sleep(0.1)
    app.key("enter")
    wait_for_file(done.exists, what="the agent to send the conversation")
    app.wait_for(LAST)
    return app


def marked(app: TtyApp, words: str) -> Callable[[list[str]], bool]:
    """Whether the row showing `words` carries the cursor's mark at its left."""

    def check(lines: list[str]) -> bool:
        return any(words in line and MARK in line[:4] for line in lines)

    return check


def diff_view(lines: list[str]) -> str | None:
    for line in lines:
        found = re.search(r"(unified|split) · s", line)
        if found:
            return found.group(1)
    return None


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_keyboard_cursor_through_the_transcript(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    app = start(tty, home, size)
    app.key("alt+up")
    app.wait_for(marked(app, LAST))
    app.key("up")  # the command's card: `c` copies the code of its console block
    app.wait_for(marked(app, "Run echo"))
    app.type("c")
    wait_for_file(lambda: any("COPIED-OUTPUT" in c for c in app.clipboard()), what="a copy")
    assert app.clipboard()[-1] == "$ echo COPIED-OUTPUT\nCOPIED-OUTPUT"
    app.key("up")  # the edit: `s` switches its diff between unified and split
    app.wait_for(marked(app, "Edit app.py"))
    before = diff_view(app.display())
    assert before is not None, app.dump()
    app.type("s")
    app.wait_for(lambda lines: diff_view(lines) not in (None, before))
    app.key("up")
    app.wait_for(marked(app, FIRST))
    app.type("c")  # a message: its text
    wait_for_file(lambda: app.clipboard()[-1:] == [FIRST], what="the reply copied")
    app.key("up")  # the thought, folded (its title is highlighted): Enter opens it
    assert THOUGHT not in app.text()
    app.key("enter")
    app.wait_for(THOUGHT)
    app.key("down", "down", "down", "down")  # Down stops at the last entry
    app.wait_for(marked(app, LAST))
    app.key("escape")  # back to the prompt: typing goes there
    app.type("after")
    app.wait_for(lambda lines: any("after" in line and "│" in line for line in lines[-8:]))
    assert not marked(app, LAST)(app.display()), app.dump()


def test_keys_in_one_burst_follow_the_focus(tty: Start, home: Path) -> None:
    """Ctrl+Up then Up in one read: the Up moves the cursor, it does not recall a prompt."""
    app = start(tty, home, (80, 24))
    app.send(b"\x1b[1;5A\x1b[A")
    app.wait_for(marked(app, "Run echo"))
    assert "go" not in "".join(app.display()[-5:]), app.dump()


def search_line(lines: list[str]) -> str:
    """The search bar's row (the last with the icon: a read card's title has it too)."""
    return next((line for line in reversed(lines) if line.startswith(" ⌕ ")), "")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_search_finds_opens_and_steps(tty: Start, home: Path, size: tuple[int, int]) -> None:
    app = start(tty, home, size, fillers=3)
    assert THOUGHT not in app.text()
    app.key("ctrl+f")
    app.wait_for(search_line)
    app.type("thought-words")  # lower case: any case; in the closed thought, far above
    app.wait_for(THOUGHT)  # opened and scrolled to
    app.wait_for(lambda lines: "match 1 of 1" in search_line(lines))
    app.send(b"\x15")  # Ctrl+U: the query cleared (keys one a write: a burst loses keys today)
    app.wait_for(lambda lines: "enter next" in search_line(lines))
    app.type("COPIED")
    app.wait_for(lambda lines: "match 1 of 2" in search_line(lines))
    app.key("enter")
    app.wait_for(lambda lines: "match 2 of 2" in search_line(lines))
    app.key("shift+enter")
    app.wait_for(lambda lines: "match 1 of 2" in search_line(lines))
    app.key("enter")
    app.wait_for(lambda lines: "match 2 of 2" in search_line(lines))
    app.key("enter")  # wraps around
    app.wait_for(lambda lines: "match 1 of 2" in search_line(lines))
    app.type("-NOWHERE")
    app.wait_for(lambda lines: "no match" in search_line(lines))
    app.key("escape")
    app.wait_for(lambda lines: not search_line(lines))
    app.type("after")
    app.wait_for(lambda lines: any("after" in line and "│" in line for line in lines[-8:]))


def test_export_writes_markdown_and_html_never_sent(tty: Start, home: Path) -> None:
    app = start(tty, home, (80, 24))
    app.type("/export notes/talk")
    (home / "work" / "notes").mkdir()
    time.sleep(0.1)
    app.key("enter")
    md, page = home / "work" / "notes" / "talk.md", home / "work" / "notes" / "talk.html"
    wait_for_file(page.exists, what="the export")
    app.wait_for("Exported to")
    text = md.read_text()
    assert "```diff\n--- a/app.py\n+++ b/app.py\n" in text
    assert "-x = 1\n+x = 3\n" in text
    assert "$ echo COPIED-OUTPUT" in text and FIRST in text and THOUGHT in text
    assert md.stat().st_mode & 0o777 == 0o600
    assert page.stat().st_mode & 0o777 == 0o600
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and '<code class="language-diff">' in html
    assert "<script" not in html and "http" not in html
    # Never sent: no prompt of that text in the transcript, no second turn played.
    assert "› /export" not in app.text()


def test_new_session_closes_the_old_one_and_clears(tty: Start, home: Path) -> None:
    closed = home / "closed"
    done = home / "done"
    script = {
        "agent_name": "script-agent",
        "prompts": [conversation(done)],
        "closeFile": str(closed),
    }
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    app.wait_for(header_ready)
    app.type("go")
    time.sleep(0.1)
    app.key("enter")
    wait_for_file(done.exists, what="the agent to send the conversation")
    app.wait_for(LAST)
    app.type("/new")
    time.sleep(0.1)
    app.key("enter")
    wait_for_file(closed.exists, what="session/close")
    assert closed.read_text() == "s1\n"
    # The header reads the same before and after: the cleared screen is the sign.
    app.wait_for(lambda lines: not any(w in line for line in lines for w in (FIRST, LAST)))
    app.wait_for(header_ready)
    assert "/new" not in app.text(), app.dump()
    app.type("again")
    time.sleep(0.1)
    app.key("enter")  # the fresh session answers
    app.wait_for(LAST)


def occurrences(app: TtyApp, word: str) -> list[tuple[int, str, str]]:
    """Each place `word` is drawn in the transcript (above the search bar): its row, and the
    background of its cells and of the cell after it (one colour, when painted alone)."""
    with app.lock:
        lines = list(app.screen.display)
        buffer = app.screen.buffer
        found = []
        for row, line in enumerate(lines):
            if line.startswith(" ⌕ "):
                break
            at = line.find(word)
            while at >= 0:
                colours = {buffer[row][column].bg for column in range(at, at + len(word))}
                after = buffer[row][at + len(word)].bg
                found.append((row, "/".join(sorted(colours)), after))
                at = line.find(word, at + 1)
    return found


def painted(app: TtyApp, word: str, count: int) -> Callable[[list[str]], bool]:
    """`count` occurrences drawn, each painted in one colour of its own (not the cells')."""

    def check(_lines: list[str]) -> bool:
        found = occurrences(app, word)
        return len(found) == count and all("/" not in bg and bg != after for _, bg, after in found)

    return check


def current_row(app: TtyApp, word: str) -> int | None:
    """The row of the occurrence painted as the current match (when there is one only)."""
    triplet = CURRENT_STYLE.bgcolor.triplet if CURRENT_STYLE.bgcolor else None
    current = triplet.hex.lstrip("#") if triplet else ""
    rows = [row for row, bg, _ in occurrences(app, word) if bg == current]
    return rows[0] if len(rows) == 1 else None


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_search_paints_the_words_and_steps_with_n(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    """The matched words themselves are painted, the current one apart; after Enter the bar
    has the keys: n and N step, another letter refines the query."""
    app = start(tty, home, size)
    app.key("ctrl+f")
    app.wait_for(search_line)
    app.type("COPIED")
    app.wait_for(lambda lines: "match 1 of 2" in search_line(lines))
    app.wait_for(painted(app, "COPIED", 2))
    rows = sorted(row for row, _, _ in occurrences(app, "COPIED"))
    app.wait_for(lambda _lines: current_row(app, "COPIED") == rows[0])
    app.key("enter")
    app.wait_for(lambda lines: "match 2 of 2" in search_line(lines))
    app.wait_for(lambda lines: "n Next match  N Previous match" in lines[-1])  # the footer
    app.wait_for(lambda _lines: current_row(app, "COPIED") == rows[1])
    app.type("n")  # wraps around
    app.wait_for(lambda lines: "match 1 of 2" in search_line(lines))
    app.wait_for(lambda _lines: current_row(app, "COPIED") == rows[0])
    app.type("N")
    app.wait_for(lambda lines: "match 2 of 2" in search_line(lines))
    app.wait_for(lambda _lines: current_row(app, "COPIED") == rows[1])
    app.type("-OUT")  # back to the query: `COPIED-OUT`
    app.wait_for(lambda lines: "COPIED-OUT " in search_line(lines))
    app.wait_for(painted(app, "COPIED-OUT", 2))
    app.wait_for(lambda lines: "n Next match" not in lines[-1])  # n types in the query
    app.key("escape")
    app.wait_for(lambda lines: not search_line(lines))
    app.wait_for(lambda _lines: all(bg == after for _, bg, after in occurrences(app, "COPIED")))
    assert app.text().count("COPIED-OUTPUT") == 2, app.dump()
