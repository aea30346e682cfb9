"""The transcript's entries as text: what `c` copies, what search reads, what an export writes."""

from __future__ import annotations

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    TextContentBlock,
)

from tui.diff.diffing import DiffContent
from tui.state import MessageEntry, NoticeEntry, ToolCallEntry
from tui.terminal.source import TerminalState
from tui.transcript.text import (
    CommandRun,
    copy_text,
    entry_text,
    only_code,
    screen_text,
    unified_diff,
)


def text_item(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def test_a_message_copies_as_its_text() -> None:
    assert copy_text(MessageEntry("agent", "# Title\n\nbody")) == "# Title\n\nbody"
    assert copy_text(NoticeEntry("a note", "warning")) == "a note"


def test_a_console_block_copies_as_its_code() -> None:
    entry = ToolCallEntry(
        "c1", "Run ls", "execute", "completed", [text_item("```console\n$ ls\na\n```")]
    )
    assert copy_text(entry) == "$ ls\na"
    assert only_code("plain words") == "plain words"


def test_a_client_terminal_copies_as_its_output_with_escapes_gone() -> None:
    item = TerminalToolCallContent(type="terminal", terminal_id="t1")
    entry = ToolCallEntry("c1", "Run ls", "execute", "completed", [item])
    runs = {"t1": CommandRun(screen_text("\x1b[31mred\x1b[0m\r\nwork 10%\rwork 100%\r\n"), 3)}
    assert copy_text(entry, runs.get) == "red\nwork 100%"
    assert entry_text(entry, runs.get).endswith("exit 3")


def test_a_display_terminal_is_read_off_the_entry() -> None:
    state = TerminalState("d1", exit_code=0, exited=True)
    state.output.buffer.feed("hello\n")
    entry = ToolCallEntry("c1", "Run echo", "execute", "completed", terminal=state)
    assert copy_text(entry) == "hello"
    assert "exit 0" in entry_text(entry)


def test_a_diff_copies_as_unified_text() -> None:
    item = FileEditToolCallContent(type="diff", path="a.py", old_text="x = 1\n", new_text="x = 2\n")
    entry = ToolCallEntry("c1", "Edit a.py", "edit", "completed", [item])
    assert copy_text(entry) == "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2"
    new = unified_diff(DiffContent("n.py", None, "a\n"))
    assert new.startswith("--- /dev/null\n+++ b/n.py") and new.endswith("+a")


def test_controls_in_agent_text_never_reach_the_copy() -> None:
    entry = ToolCallEntry("c1", "t\x1b]0;x\x07", "other", "completed", [text_item("a\x1b[2Jb")])
    assert "\x1b" not in entry_text(entry)
    assert copy_text(entry) == "ab"
