"""The bridge, byte for byte: view -> ACP update, per wire-contract.md §2-§5.

Payloads are compared as the SDK puts them on the wire (`wire_dict`: aliases, no `None`s).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, cast

import pytest
from acp.schema import FileEditToolCallContent, SessionNotification

from agent.bridge import (
    call_update,
    display_title,
    output_update,
    plan_update,
    result_update,
    terminal_cwd,
    unstreamed_tail,
    wire_dict,
)
from agent.jsonvalue import JsonObject
from agent.views import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    PlanItem,
    TerminalCallView,
    TerminalResultView,
    TextBlock,
    ToolCallView,
    ToolResultView,
)

CWD = "/home/u/proj"
DESCRIPTION = {"type": "content", "content": {"type": "text", "text": "Say hi"}}


def call(view: ToolCallView, *, cwd: str | None = CWD, terminal: bool = False) -> dict[str, Any]:
    return wire_dict(call_update(view, "c1", cwd, terminal))


def result(
    view: ToolResultView,
    *,
    cwd: str | None = CWD,
    terminal: bool = False,
    error: bool = False,
    streamed: str = "",
) -> dict[str, Any]:
    update = result_update(
        view, "c1", is_error=error, session_cwd=cwd, terminal_cards=terminal, streamed=streamed
    )
    return wire_dict(update)


def text(value: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": value}}


ECHO = TerminalCallView(card="terminal", title="echo hi", description="Say hi")
HI = TerminalResultView(card="terminal", output="hi\n", exit_code=0)


# --- terminal card, capability ON ----------------------------------------------------------


def test_terminal_call_capability_on() -> None:
    assert call(ECHO, terminal=True) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "echo hi",
        "kind": "execute",
        "status": "in_progress",
        "rawInput": {"command": "echo hi", "description": "Say hi"},
        "content": [DESCRIPTION, {"type": "terminal", "terminalId": "c1"}],
        "_meta": {"terminal_info": {"terminal_id": "c1", "cwd": CWD}},
    }


def test_terminal_result_capability_on_has_no_content() -> None:
    assert result(HI, terminal=True) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "_meta": {
            "terminal_output": {"terminal_id": "c1", "data": "hi\n"},
            "terminal_exit": {"terminal_id": "c1", "exit_code": 0},
        },
    }


@pytest.mark.parametrize(
    ("view_cwd", "session_cwd", "expected"),
    [
        (None, CWD, CWD),
        ("/abs/elsewhere", CWD, "/abs/elsewhere"),  # an absolute tool cwd wins
        ("sub/dir", CWD, f"{CWD}/sub/dir"),  # a relative one joins the session cwd
        ("../sibling", CWD, "/home/u/sibling"),
        ("sub", None, "sub"),  # no session cwd: passed through
    ],
)
def test_terminal_info_cwd(view_cwd: str | None, session_cwd: str | None, expected: str) -> None:
    assert terminal_cwd(view_cwd, session_cwd) == expected
    view = TerminalCallView(card="terminal", title="ls", cwd=view_cwd)
    meta = call(view, cwd=session_cwd, terminal=True)["_meta"]
    assert meta == {"terminal_info": {"terminal_id": "c1", "cwd": expected}}


def test_terminal_info_without_any_cwd_omits_the_key() -> None:
    view = TerminalCallView(card="terminal", title="ls")
    assert call(view, cwd=None, terminal=True)["_meta"] == {"terminal_info": {"terminal_id": "c1"}}


def test_terminal_title_is_never_relativized() -> None:
    view = TerminalCallView(card="terminal", title=f"cat {CWD}/a.txt")
    assert call(view, terminal=True)["title"] == f"cat {CWD}/a.txt"


def test_terminal_exit_signal_and_unknown() -> None:
    killed = TerminalResultView(card="terminal", output="x", signal="SIGTERM")
    assert result(killed, terminal=True)["_meta"]["terminal_exit"] == {
        "terminal_id": "c1",
        "signal": "SIGTERM",
    }
    unknown = TerminalResultView(card="terminal", output="x")
    meta = result(unknown, terminal=True)["_meta"]
    assert meta == {"terminal_output": {"terminal_id": "c1", "data": "x"}}  # no terminal_exit


def test_terminal_result_carries_the_measured_duration() -> None:
    """`_meta["dsh.duration_ms"]`: how long the command ran, so a replayed card shows the same
    duration as the live one; absent when the run was not timed."""
    timed = TerminalResultView(card="terminal", output="hi\n", exit_code=0, duration_ms=5500)
    assert result(timed, terminal=True)["_meta"] == {
        "terminal_output": {"terminal_id": "c1", "data": "hi\n"},
        "terminal_exit": {"terminal_id": "c1", "exit_code": 0},
        "dsh.duration_ms": 5500,
    }
    assert "dsh.duration_ms" not in result(HI, terminal=True)["_meta"]


def test_terminal_result_title_and_missing_output() -> None:
    view = TerminalResultView(card="terminal", title="renamed", exit_code=1)
    update = result(view, terminal=True, error=True)
    assert update["title"] == "renamed"
    assert update["status"] == "failed"
    assert update["_meta"]["terminal_output"] == {"terminal_id": "c1", "data": ""}
    assert "content" not in update


# --- terminal card, capability OFF (the console fallback) -----------------------------------


def test_terminal_call_capability_off_byte_for_byte() -> None:
    assert call(ECHO) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "echo hi",
        "kind": "execute",
        "status": "in_progress",
        "rawInput": {"command": "echo hi", "description": "Say hi"},
        "content": [DESCRIPTION],
    }


def test_terminal_raw_input_is_the_calls_argument_object() -> None:
    args: JsonObject = {"command": "echo hi", "description": "Say hi", "timeoutMs": 5}
    for terminal in (False, True):
        update = wire_dict(call_update(ECHO, "c1", CWD, terminal, args))
        assert update["rawInput"] == args


def test_terminal_result_capability_off_byte_for_byte() -> None:
    assert result(HI) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "content": [text("```console\nhi\n```")],
    }


@pytest.mark.parametrize(
    ("output", "fenced"),
    [
        ("oops\n[exit code: 3]", "```console\noops\n[exit code: 3]\n```"),
        ("", "```console\n\n```"),
        (None, "```console\n\n```"),
        (
            "(no output)\n[killed by signal: SIGTERM]",
            "```console\n(no output)\n[killed by signal: SIGTERM]\n```",
        ),
    ],
)
def test_console_fallback(output: str | None, fenced: str) -> None:
    view = TerminalResultView(card="terminal", output=output, exit_code=3)
    assert result(view)["content"] == [text(fenced)]
    assert "_meta" not in result(view)


def test_console_fallback_carries_the_title() -> None:
    view = TerminalResultView(card="terminal", title="renamed", output="hi\n")
    assert result(view)["title"] == "renamed"


def test_bare_execute_card_without_description_or_capability() -> None:
    view = TerminalCallView(card="terminal", title="ls")
    assert call(view) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "ls",
        "kind": "execute",
        "status": "in_progress",
        "rawInput": {"command": "ls"},
    }


# --- live output -----------------------------------------------------------------------------


def test_output_update_carries_only_terminal_output() -> None:
    assert wire_dict(output_update("c1", "partial")) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "_meta": {"terminal_output": {"terminal_id": "c1", "data": "partial"}},
    }


@pytest.mark.parametrize(
    ("output", "streamed", "tail"),
    [
        ("hi\n", "", "hi\n"),
        ("hi\n", "hi\n", ""),
        ("oops\n[exit code: 3]", "oops\n", "[exit code: 3]"),
        ("out\n[stderr]\nerr\n[exit code: 2]", "out\nerr\n", "[exit code: 2]"),
        ("out\n[stderr]\nerr\n[exit code: 2]", "err\nout\n", "[exit code: 2]"),
        ("out\n[stderr]\nerr\n", "out\nerr\n", ""),
        ("partial", "par", "tial"),
        (
            "a\n[timed out after 5ms]\n[killed by signal: SIGTERM]",
            "a",
            "\n[timed out after 5ms]\n[killed by signal: SIGTERM]",
        ),
        ("x\n[stderr]\ny\n[exit code: 1]", "yx", "\n[exit code: 1]"),
    ],
)
def test_unstreamed_tail(output: str, streamed: str, tail: str) -> None:
    assert unstreamed_tail(output, streamed) == tail


def test_final_update_after_streaming_appends_only_the_rest() -> None:
    view = TerminalResultView(card="terminal", output="oops\n[exit code: 3]", exit_code=3)
    assert result(view, terminal=True, streamed="oops\n")["_meta"] == {
        "terminal_output": {"terminal_id": "c1", "data": "[exit code: 3]"},
        "terminal_exit": {"terminal_id": "c1", "exit_code": 3},
    }
    done = TerminalResultView(card="terminal", output="hi\n", exit_code=0)
    assert result(done, terminal=True, streamed="hi\n")["_meta"] == {
        "terminal_exit": {"terminal_id": "c1", "exit_code": 0}
    }


# --- generic cards ---------------------------------------------------------------------------


def test_generic_call_defaults() -> None:
    assert call(GenericCallView(card="generic", title="thing")) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "thing",
        "kind": "other",
        "status": "in_progress",
    }


def test_generic_call_full() -> None:
    view = GenericCallView(
        card="generic",
        title="Update todo list",
        kind="search",
        raw_input={"q": [1, 2]},
        content=(TextBlock("one"), TextBlock("two")),
        locations=(FileLocation("/x/a.py", 4), FileLocation("b.py")),
    )
    assert call(view) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Update todo list",
        "kind": "search",
        "status": "in_progress",
        "rawInput": {"q": [1, 2]},
        "locations": [{"path": "/x/a.py", "line": 4}, {"path": "b.py"}],
        "content": [text("one"), text("two")],
    }


def test_generic_results() -> None:
    raw = GenericResultView(card="generic", content=(TextBlock("done"),))
    assert result(raw) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "content": [text("done")],
    }
    failed = GenericResultView(card="generic", content=(TextBlock("Error: nope"),))
    assert result(failed, error=True)["status"] == "failed"
    titled = GenericResultView(card="generic", title=f"Read {CWD}/a.py")
    assert result(titled) == {  # result titles are not relativized
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "title": f"Read {CWD}/a.py",
    }
    emptied = GenericResultView(card="generic", content=())
    assert result(emptied)["content"] == []


# --- diff cards ------------------------------------------------------------------------------


def test_diff_call_from_first_diff_path_without_locations() -> None:
    view = DiffCallView(
        card="diff",
        title=f"Write {CWD}/a.txt",
        diffs=(FileDiff(f"{CWD}/a.txt", None, "hello\n"),),
    )
    update = call(view)
    assert update == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Write a.txt",
        "kind": "edit",
        "status": "in_progress",
        "content": [
            {"type": "diff", "path": f"{CWD}/a.txt", "oldText": None, "newText": "hello\n"}
        ],
    }
    model = call_update(view, "c1", CWD, False)
    assert model.content is not None
    block = model.content[0]
    assert isinstance(block, FileEditToolCallContent)
    assert block.old_text is None  # a new file: `"oldText": null`, the key always present


def test_diff_call_with_locations_and_old_text() -> None:
    view = DiffCallView(
        card="diff",
        title=f"Edit {CWD}/src/b.ts",
        diffs=(FileDiff(f"{CWD}/src/b.ts", "x", "y"),),
        locations=(FileLocation(f"{CWD}/src/b.ts"),),
    )
    assert call(view) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Edit src/b.ts",
        "kind": "edit",
        "status": "in_progress",
        "locations": [{"path": f"{CWD}/src/b.ts"}],
        "content": [{"type": "diff", "path": f"{CWD}/src/b.ts", "oldText": "x", "newText": "y"}],
    }


def test_diff_call_without_diffs_has_no_content() -> None:
    update = call(DiffCallView(card="diff", title="Write x", diffs=()))
    assert "content" not in update
    assert "rawInput" not in update


def test_diff_result_relativizes_title_and_keeps_paths() -> None:
    view = DiffResultView(
        card="diff",
        title=f"Edit {CWD}/src/b.ts",
        diffs=(FileDiff(f"{CWD}/src/b.ts", "a\nx\nb", "a\ny\nb"),),
    )
    assert result(view) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "title": "Edit src/b.ts",
        "content": [
            {"type": "diff", "path": f"{CWD}/src/b.ts", "oldText": "a\nx\nb", "newText": "a\ny\nb"}
        ],
    }


def test_diff_call_snippet_with_its_start_line_byte_for_byte() -> None:
    """§6: a call-time snippet whose old_string matched once carries `_meta["dsh.line"]`."""
    view = DiffCallView(
        card="diff",
        title=f"Edit {CWD}/a.txt",
        diffs=(FileDiff(f"{CWD}/a.txt", "beta", "BETA", 2, 2),),
        locations=(FileLocation(f"{CWD}/a.txt"),),
    )
    assert call(view) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Edit a.txt",
        "kind": "edit",
        "status": "in_progress",
        "locations": [{"path": f"{CWD}/a.txt"}],
        "content": [
            {
                "type": "diff",
                "path": f"{CWD}/a.txt",
                "oldText": "beta",
                "newText": "BETA",
                "_meta": {"dsh.line": {"old": 2, "new": 2}},
            }
        ],
    }


def test_diff_result_hunks_carry_start_lines_and_one_location_each() -> None:
    """§6: each applied hunk has `_meta["dsh.line"]`, and `locations` one entry per hunk at
    its first changed line; a whole-file block has no `_meta`."""
    path = f"{CWD}/src/b.ts"
    view = DiffResultView(
        card="diff",
        title=f"Edit {path}",
        diffs=(
            FileDiff(path, "a\nx\nb", "a\ny\nb", 16, 16),
            FileDiff(path, "c\nd", "c\nD\nE", 40, 40),
            FileDiff(f"{CWD}/new.ts", None, "n\n"),
        ),
        locations=(FileLocation(path, 17), FileLocation(path, 41)),
    )
    assert result(view) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "title": "Edit src/b.ts",
        "content": [
            {
                "type": "diff",
                "path": path,
                "oldText": "a\nx\nb",
                "newText": "a\ny\nb",
                "_meta": {"dsh.line": {"old": 16, "new": 16}},
            },
            {
                "type": "diff",
                "path": path,
                "oldText": "c\nd",
                "newText": "c\nD\nE",
                "_meta": {"dsh.line": {"old": 40, "new": 40}},
            },
            {"type": "diff", "path": f"{CWD}/new.ts", "oldText": None, "newText": "n\n"},
        ],
        "locations": [{"path": path, "line": 17}, {"path": path, "line": 41}],
    }


def test_edit_of_line_17_through_the_presenter_byte_for_byte(tmp_path: Any) -> None:
    """The whole agent path: the call inspected on arrival, then the applied hunk."""
    import asyncio

    from agent.presenter import SessionPresenter, call_meta
    from agent.tools.base import ToolContext
    from agent.tools.fs import EditTool

    target = tmp_path / "f.py"
    target.write_text("".join(f"line {n}\n" for n in range(1, 41)))
    args = '{"file_path": "f.py", "old_string": "line 17\\n", "new_string": "LINE 17\\n"}'
    meta = call_meta("edit", args, str(tmp_path))
    assert meta == {"line": 17}
    presenter = SessionPresenter(str(tmp_path), False)
    [started] = presenter.on_call("c1", "edit", args, meta)
    assert wire_dict(started)["content"] == [
        {
            "type": "diff",
            "path": "f.py",
            "oldText": "line 17\n",
            "newText": "LINE 17\n",
            "_meta": {"dsh.line": {"old": 17, "new": 17}},
        }
    ]
    parsed = {"file_path": "f.py", "old_string": "line 17\n", "new_string": "LINE 17\n"}
    outcome = asyncio.run(EditTool().execute(parsed, ToolContext(cwd=tmp_path)))
    [finished] = presenter.on_result("c1", "edit", args, outcome)
    payload = wire_dict(finished)
    old = "\n".join(f"line {n}" for n in range(14, 21))
    assert payload["content"] == [
        {
            "type": "diff",
            "path": "f.py",
            "oldText": old,
            "newText": old.replace("line 17", "LINE 17"),
            "_meta": {"dsh.line": {"old": 14, "new": 14}},
        }
    ]
    assert payload["locations"] == [{"path": "f.py", "line": 17}]


def test_empty_diff_result_without_title_has_neither_key() -> None:
    assert result(DiffResultView(card="diff")) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
    }


# --- display titles --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "raw_path", "cwd", "expected"),
    [
        (f"Read {CWD}/src/a.ts", f"{CWD}/src/a.ts", CWD, "Read src/a.ts"),
        (f"Read {CWD}/src/a.ts", f"{CWD}/src/a.ts", CWD + "/", "Read src/a.ts"),
        ("Read /etc/passwd", "/etc/passwd", CWD, "Read /etc/passwd"),  # outside
        ("Read /home/u/other/x", "/home/u/other/x", CWD, "Read /home/u/other/x"),
        (f"Read {CWD}/..cache/x.ts", f"{CWD}/..cache/x.ts", CWD, "Read ..cache/x.ts"),
        (f"Read {CWD}", CWD, CWD, f"Read {CWD}"),  # the workspace itself
        ("Read /home/u", "/home/u", CWD, "Read /home/u"),  # rel == '..'
        (f"Read {CWD}/a", f"{CWD}/a", None, f"Read {CWD}/a"),  # no session cwd
        ("Read src/a.ts", "src/a.ts", CWD, "Read src/a.ts"),  # relative path
        (f"Read {CWD}/a", f"{CWD}/a", "rel/cwd", f"Read {CWD}/a"),  # relative cwd
        (f"Diff {CWD}/a vs {CWD}/a", f"{CWD}/a", CWD, "Diff a vs a"),  # every occurrence
        ("Read thing", None, CWD, "Read thing"),
    ],
)
def test_display_title(title: str, raw_path: str | None, cwd: str | None, expected: str) -> None:
    assert display_title(title, raw_path, cwd) == expected


def test_relativized_title_keeps_location_paths_raw() -> None:
    view = GenericCallView(
        card="generic",
        title=f"Read {CWD}/a.py",
        kind="read",
        locations=(FileLocation(f"{CWD}/a.py", 1),),
    )
    update = call(view)
    assert update["title"] == "Read a.py"
    assert update["locations"] == [{"path": f"{CWD}/a.py", "line": 1}]


# --- plan ------------------------------------------------------------------------------------


def test_plan_update() -> None:
    items = [PlanItem("a", "pending"), PlanItem("b", "in_progress"), PlanItem("c", "completed")]
    assert wire_dict(plan_update(items)) == {
        "sessionUpdate": "plan",
        "entries": [
            {"content": "a", "priority": "medium", "status": "pending"},
            {"content": "b", "priority": "medium", "status": "in_progress"},
            {"content": "c", "priority": "medium", "status": "completed"},
        ],
    }
    assert wire_dict(plan_update([])) == {"sessionUpdate": "plan", "entries": []}


# --- the closed union ------------------------------------------------------------------------


@dataclass(frozen=True)
class TableView:
    """A fourth card the bridge has no arm for (reachable only by a cast)."""

    card: str = "table"
    title: str = "t"


def test_unknown_call_card_raises() -> None:
    with pytest.raises(AssertionError):
        call_update(cast(ToolCallView, TableView()), "c1", CWD, True)


def test_unknown_result_card_raises() -> None:
    with pytest.raises(AssertionError):
        result_update(
            cast(ToolResultView, TableView()),
            "c1",
            is_error=False,
            session_cwd=CWD,
            terminal_cards=True,
        )


def test_payloads_validate_as_session_updates() -> None:
    updates = [
        call_update(ECHO, "c1", CWD, True),
        result_update(HI, "c1", is_error=False, session_cwd=CWD, terminal_cards=True),
        output_update("c1", "x"),
        plan_update([PlanItem("a", "pending")]),
    ]
    for update in updates:
        payload = {"sessionId": "s1", "update": wire_dict(update)}
        parsed = SessionNotification.model_validate(payload)
        assert wire_dict(parsed.update) == payload["update"]


def test_host_separator_is_used() -> None:
    assert display_title(f"Read {CWD}/a/b", f"{CWD}/a/b", CWD) == f"Read a{os.sep}b"
