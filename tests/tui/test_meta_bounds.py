"""Numbers in a tool call's `_meta` and in the agent's closing marker lines that no command
could produce: ignored (with one note per update), never an exception that leaves the card
half-updated."""

from __future__ import annotations

from typing import Any

from acp.schema import ToolCallProgress, ToolCallStart

from tui.state import Conversation, NoticeEntry, ToolCallEntry


def finished(meta: dict[str, Any]) -> ToolCallProgress:
    return ToolCallProgress(
        session_update="tool_call_update", tool_call_id="c1", status="completed", field_meta=meta
    )


def run(meta: dict[str, Any]) -> tuple[ToolCallEntry, list[str]]:
    conversation = Conversation()
    conversation.add_prompt("go")
    conversation.apply(ToolCallStart(session_update="tool_call", tool_call_id="c1", title="ls"))
    conversation.apply(finished(meta))
    [entry] = [e for e in conversation.entries if isinstance(e, ToolCallEntry)]
    notes = [e.text for e in conversation.entries if isinstance(e, NoticeEntry)]
    return entry, notes


def test_a_duration_of_ten_to_the_400_is_ignored_with_one_note() -> None:
    entry, notes = run({"terminal_exit": {"exit_code": 0}, "dsh.duration_ms": 10**400})
    assert entry.status == "completed"
    assert entry.terminal is not None and entry.terminal.exited
    assert (entry.terminal.exit_code, entry.terminal.duration_s) == (0, None)
    assert notes == ["ignored out-of-range values in a tool call's _meta: dsh.duration_ms"]


def test_an_exit_code_beyond_uint32_is_ignored_with_one_note() -> None:
    entry, notes = run({"terminal_exit": {"exit_code": 10**5000}, "dsh.duration_ms": -(10**400)})
    assert entry.terminal is not None and entry.terminal.exit_code is None
    assert notes == [  # one note for the update, naming both
        "ignored out-of-range values in a tool call's _meta: terminal_exit.exit_code, "
        "dsh.duration_ms"
    ]


def test_a_5000_digit_exit_marker_is_no_marker_and_stays_output() -> None:
    marker = f"[exit code: {'9' * 5000}]"
    entry, notes = run(
        {
            "terminal_output": {"data": f"hi\n{marker}"},
            "terminal_exit": {"exit_code": 0},
            "dsh.duration_ms": 1200,
        }
    )
    assert entry.terminal is not None
    assert entry.terminal.output.chars == len(f"hi\n{marker}")  # the line kept as output
    assert (entry.terminal.exit_code, entry.terminal.duration_s) == (0, 1.2)
    assert notes == []


def test_5000_digit_timeout_and_truncation_markers_stay_output() -> None:
    digits = "7" * 5000
    data = (
        f"x\n[timed out after {digits}ms]\n[output truncated; kept the last {digits} bytes of 1 MB]"
    )
    entry, _ = run({"terminal_output": {"data": data}, "terminal_exit": {"exit_code": 0}})
    assert entry.terminal is not None
    assert entry.terminal.timed_out_after_s is None and entry.terminal.agent_kept is None
    assert entry.terminal.output.chars == len(data)
