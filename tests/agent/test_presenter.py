"""SessionPresenter: correlation, containment, the capability snapshot, and replay equality."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from agent.bridge import ToolUpdate, wire_dict
from agent.jsonvalue import JsonObject
from agent.presenter import SessionPresenter, parse_arguments
from agent.tools import ALL_TOOLS
from agent.tools.base import Tool, ToolContext, ToolResult
from agent.views import (
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    ToolCallView,
    ToolResultView,
)

CWD = "/home/u/proj"


def wires(updates: list[ToolUpdate]) -> list[dict[str, Any]]:
    return [wire_dict(update) for update in updates]


def text(value: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": value}}


class FakeTool:
    """A tool whose presenters are scripted per test."""

    description = "fake"
    parameters: JsonObject = {"type": "object"}
    read_only = True

    def __init__(
        self,
        name: str = "fake",
        call: ToolCallView | None = None,
        result: ToolResultView | None = None,
        raises: bool = False,
    ) -> None:
        self.name = name
        self.call = call
        self.result = result
        self.raises = raises

    def present_call(self, args: Mapping[str, object]) -> ToolCallView | None:
        if self.raises:
            raise RuntimeError("presenter bug")
        return self.call

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None:
        if self.raises:
            raise RuntimeError("presenter bug")
        return self.result

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")


def presenter(*tools: Tool, terminal: bool = False, **kwargs: Any) -> SessionPresenter:
    return SessionPresenter(CWD, terminal, {tool.name: tool for tool in tools}, **kwargs)


# --- the generic fallback --------------------------------------------------------------------


def test_unknown_tool_falls_back_to_a_generic_card() -> None:
    p = presenter()
    assert wires(p.on_call("c1", "mystery", '{"a": 1}')) == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c1",
            "title": "mystery",
            "kind": "other",
            "status": "in_progress",
            "rawInput": {"a": 1},
        }
    ]


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [("", {}), ("  ", {}), ("not json", "not json"), ('{"x": [1]}', {"x": [1]}), ("[1]", [1])],
)
def test_argument_parsing(raw: str, parsed: object) -> None:
    assert parse_arguments(raw) == parsed
    [update] = wires(presenter().on_call("c1", "mystery", raw))
    # Always an object on the wire: what is not one is kept whole under "arguments".
    assert update["rawInput"] == (parsed if isinstance(parsed, dict) else {"arguments": parsed})


def test_result_resolves_through_the_remembered_call() -> None:
    p = presenter()
    p.on_call("c1", "mystery", "{}")
    assert wires(p.on_result("c1", "mystery", "{}", ToolResult("done"))) == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "content": [text("done")],
        }
    ]


def test_failed_result_is_prefixed_once() -> None:
    p = presenter()
    p.on_call("c1", "mystery", "{}")
    p.on_call("c2", "mystery", "{}")
    [failed] = wires(p.on_result("c1", "mystery", {}, ToolResult("boom", is_error=True)))
    assert failed["status"] == "failed"
    assert failed["content"] == [text("Error: boom")]
    [again] = wires(p.on_result("c2", "mystery", {}, ToolResult.error("tool call aborted")))
    assert again["content"] == [text("Error: tool call aborted")]


def test_unknown_and_finished_ids_render_raw_content() -> None:
    terminal = TerminalResultView(card="terminal", output="hi\n", exit_code=0)
    tool = FakeTool(call=TerminalCallView(card="terminal", title="x"), result=terminal)
    p = presenter(tool, terminal=True)
    raw = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c9",
        "status": "completed",
        "content": [text("late")],
    }
    assert wires(p.on_result("c9", "fake", {}, ToolResult("late"))) == [raw]
    p.on_call("c1", "fake", {})
    [first] = wires(p.on_result("c1", "fake", {}, ToolResult("hi\n")))
    assert "terminal_output" in first["_meta"]
    [second] = wires(p.on_result("c1", "fake", {}, ToolResult("hi\n")))
    assert second == {**raw, "toolCallId": "c1", "content": [text("hi\n")]}  # only in-flight


def test_a_tools_card_wins() -> None:
    view = GenericCallView(
        card="generic", title="List files", kind="execute", raw_input={"command": "ls"}
    )
    [update] = wires(presenter(FakeTool(call=view)).on_call("c1", "fake", {"command": "ls"}))
    assert update == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "List files",
        "kind": "execute",
        "status": "in_progress",
        "rawInput": {"command": "ls"},
    }


def test_a_tools_card_defaults_to_kind_other_and_no_raw_input() -> None:
    tool = FakeTool(call=GenericCallView(card="generic", title="t"))
    [update] = wires(presenter(tool).on_call("c1", "fake", {"a": 1}))
    assert update["kind"] == "other"
    assert "rawInput" not in update


def test_title_only_result_keeps_the_raw_body() -> None:
    tool = FakeTool(result=GenericResultView(card="generic", title="Renamed"))
    p = presenter(tool)
    p.on_call("c1", "fake", {})
    [update] = wires(p.on_result("c1", "fake", {}, ToolResult("body")))
    assert update["title"] == "Renamed"
    assert update["content"] == [text("body")]


def test_non_mapping_args_skip_the_tool_presenter() -> None:
    tool = FakeTool(raises=True)
    errors: list[str] = []
    p = presenter(tool, on_error=lambda where, exc: errors.append(where))
    [update] = wires(p.on_call("c1", "fake", "not json"))
    assert update["rawInput"] == {"arguments": "not json"}  # an object, as strict clients need
    assert errors == []


# --- containment -----------------------------------------------------------------------------


def test_throwing_presenters_are_contained() -> None:
    errors: list[tuple[str, BaseException]] = []
    p = presenter(FakeTool(raises=True), on_error=lambda where, exc: errors.append((where, exc)))
    [call] = wires(p.on_call("c1", "fake", {"a": 1}))
    assert call["title"] == "fake"
    assert call["rawInput"] == {"a": 1}
    [done] = wires(p.on_result("c1", "fake", {"a": 1}, ToolResult("out")))
    assert done["content"] == [text("out")]
    assert [where for where, _ in errors] == ["fake.present_call", "fake.present_result"]
    assert all(isinstance(exc, RuntimeError) for _, exc in errors)


def test_default_error_sink_logs(caplog: pytest.LogCaptureFixture) -> None:
    p = presenter(FakeTool(raises=True))
    with caplog.at_level(logging.WARNING, logger="agent.presenter"):
        p.on_call("c1", "fake", {})
        p.on_result("c1", "fake", {}, ToolResult("out"))
    assert len([r for r in caplog.records if "presenter bug" in str(r.exc_info)]) == 2


class _Table:
    card = "table"
    title = "t"


def test_an_unknown_card_is_not_contained() -> None:
    tool = FakeTool(call=_Table())  # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        presenter(tool).on_call("c1", "fake", {})
    result_tool = FakeTool(result=_Table())  # type: ignore[arg-type]
    p = presenter(result_tool)
    p.on_call("c1", "fake", {})
    with pytest.raises(AssertionError):
        p.on_result("c1", "fake", {}, ToolResult("x"))


# --- terminal cards, the orphan guard and live output ----------------------------------------


def test_orphan_guard_downgrades_a_terminal_result() -> None:
    result = TerminalResultView(card="terminal", output="hi\n", exit_code=0)
    tool = FakeTool(call=GenericCallView(card="generic", title="g"), result=result)
    p = presenter(tool, terminal=True)
    p.on_call("c1", "fake", {})
    [update] = wires(p.on_result("c1", "fake", {}, ToolResult("hi\n")))
    assert "_meta" not in update
    assert update["content"] == [text("hi\n")]


def test_bash_capability_off() -> None:
    p = SessionPresenter(CWD, False)
    args = {"command": "echo hello", "description": "Say hello"}
    assert wires(p.on_call("c1", "bash", args)) == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c1",
            "title": "echo hello",
            "kind": "execute",
            "status": "in_progress",
            "rawInput": args,
            "content": [text("Say hello")],
        }
    ]
    assert p.on_output("c1", "hello\n") == []
    assert wires(p.on_result("c1", "bash", args, ToolResult("hello\n"))) == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "content": [text("```console\nhello\n```")],
        }
    ]


def test_bash_capability_on_streams_then_completes() -> None:
    p = SessionPresenter(CWD, True)
    args = {"command": "make", "description": "Build", "workdir": "sub"}
    [call] = wires(p.on_call("c1", "bash", args))
    assert call["content"] == [text("Build"), {"type": "terminal", "terminalId": "c1"}]
    assert call["_meta"] == {"terminal_info": {"terminal_id": "c1", "cwd": f"{CWD}/sub"}}
    chunks = wires(p.on_output("c1", "oops\n"))
    assert chunks == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "_meta": {"terminal_output": {"terminal_id": "c1", "data": "oops\n"}},
        }
    ]
    assert p.on_output("c1", "") == []
    [final] = wires(p.on_result("c1", "bash", args, ToolResult("oops\n[exit code: 3]")))
    assert final == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "_meta": {
            "terminal_output": {"terminal_id": "c1", "data": "[exit code: 3]"},
            "terminal_exit": {"terminal_id": "c1", "exit_code": 3},
        },
    }
    assert p.on_output("c1", "late") == []  # finished


def test_bash_capability_on_without_streaming_sends_everything_once() -> None:
    p = SessionPresenter(CWD, True)
    args = {"command": "echo hi", "description": "Say hi"}
    p.on_call("c1", "bash", args)
    [final] = wires(p.on_result("c1", "bash", args, ToolResult("hi\n")))
    assert final == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "_meta": {
            "terminal_output": {"terminal_id": "c1", "data": "hi\n"},
            "terminal_exit": {"terminal_id": "c1", "exit_code": 0},
        },
    }


def test_output_for_non_terminal_or_unknown_calls_is_dropped() -> None:
    p = SessionPresenter(CWD, True)
    p.on_call("c1", "read", {"file_path": "a"})
    assert p.on_output("c1", "x") == []
    assert p.on_output("nope", "x") == []


def test_bash_errors_and_background_runs_are_fenced_generic_cards() -> None:
    p = SessionPresenter(CWD, True)
    args = {"command": "sleep 9", "description": "Wait"}
    p.on_call("c1", "bash", args)
    [aborted] = wires(p.on_result("c1", "bash", args, ToolResult.error("command aborted")))
    assert aborted == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "failed",
        "content": [text("```console\nError: command aborted\n```")],
        # Aborted (the turn's cancel) before it started.
        "_meta": {"dsh.not_run": True, "dsh.cancelled": True},
    }
    bg = {"command": "serve", "description": "Serve", "run_in_background": True}
    [call] = wires(p.on_call("c2", "bash", bg))
    assert call == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c2",
        "title": "serve",
        "kind": "execute",
        "status": "in_progress",
        "rawInput": bg,
        "content": [text("Serve")],
    }
    [ack] = wires(p.on_result("c2", "bash", bg, ToolResult("started background task bash-1")))
    assert ack["content"] == [text("```console\nstarted background task bash-1\n```")]


def test_the_capability_is_a_per_presenter_snapshot() -> None:
    args = {"command": "echo hi", "description": "Say hi"}
    on, off = SessionPresenter(CWD, True), SessionPresenter(CWD, False)
    assert "_meta" in wires(on.on_call("c1", "bash", args))[0]
    assert "_meta" not in wires(off.on_call("c1", "bash", args))[0]
    assert "_meta" in wires(on.on_result("c1", "bash", args, ToolResult("hi\n")))[0]
    assert "_meta" not in wires(off.on_result("c1", "bash", args, ToolResult("hi\n")))[0]


# --- the real file tools ---------------------------------------------------------------------


def test_read_card() -> None:
    [update] = wires(
        SessionPresenter(CWD, False).on_call("c1", "read", {"file_path": "src/a.ts", "offset": 12})
    )
    assert update == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Read src/a.ts (from line 12)",
        "kind": "read",
        "status": "in_progress",
        "locations": [{"path": "src/a.ts", "line": 12}],
    }


def test_read_card_with_an_absolute_path_is_relativized() -> None:
    args = {"file_path": f"{CWD}/big.txt", "offset": 5, "limit": 4}
    [update] = wires(SessionPresenter(CWD, False).on_call("c1", "read", args))
    assert update["title"] == "Read big.txt (5 - 8)"
    assert update["locations"] == [{"path": f"{CWD}/big.txt", "line": 5}]


def test_edit_card_and_result_hunks() -> None:
    p = SessionPresenter(CWD, False)
    args = {"file_path": "src/b.ts", "old_string": "x", "new_string": "y"}
    [call] = wires(p.on_call("c1", "edit", args))
    assert call == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Edit src/b.ts",
        "kind": "edit",
        "status": "in_progress",
        "locations": [{"path": "src/b.ts"}],
        "content": [{"type": "diff", "path": "src/b.ts", "oldText": "x", "newText": "y"}],
    }
    meta = {"diffs": [{"path": "src/b.ts", "oldText": "a\nx\nb", "newText": "a\ny\nb"}]}
    [done] = wires(p.on_result("c1", "edit", args, ToolResult("updated", meta=meta)))
    assert done == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "title": "Edit src/b.ts",
        "content": [
            {"type": "diff", "path": "src/b.ts", "oldText": "a\nx\nb", "newText": "a\ny\nb"}
        ],
    }


def test_edit_error_has_no_diff_card() -> None:
    p = SessionPresenter(CWD, False)
    args = {"file_path": "a.txt", "old_string": "x", "new_string": "y"}
    p.on_call("c1", "edit", args)
    [done] = wires(p.on_result("c1", "edit", args, ToolResult.error("old_string was not found")))
    assert done == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "failed",
        "content": [text("Error: old_string was not found")],
    }


def test_write_result_diff_title_is_relativized_and_paths_stay_absolute() -> None:
    p = SessionPresenter(CWD, False)
    path = f"{CWD}/notes/a.txt"
    args = {"file_path": path, "content": "new\n"}
    [call] = wires(p.on_call("c1", "write", args))
    assert call["title"] == "Write notes/a.txt"
    assert call["content"] == [{"type": "diff", "path": path, "oldText": None, "newText": "new\n"}]
    [done] = wires(p.on_result("c1", "write", args, ToolResult("Created", meta={"diffs": []})))
    assert done["title"] == "Write notes/a.txt"
    assert done["content"] == [{"type": "diff", "path": path, "oldText": None, "newText": "new\n"}]


# --- todo_write and the plan -----------------------------------------------------------------


def test_todo_write_plan_comes_before_its_own_update() -> None:
    p = SessionPresenter(CWD, False)
    args = {
        "todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]
    }
    [call] = wires(p.on_call("c1", "todo_write", args))
    assert call == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Update todo list",
        "kind": "other",
        "status": "in_progress",
        "rawInput": {"todos": args["todos"]},
    }
    meta = {"todos": args["todos"]}
    plan, done = wires(p.on_result("c1", "todo_write", args, ToolResult("Updated", meta=meta)))
    assert plan == {
        "sessionUpdate": "plan",
        "entries": [
            {"content": "a", "priority": "medium", "status": "completed"},
            {"content": "b", "priority": "medium", "status": "pending"},
        ],
    }
    assert done["sessionUpdate"] == "tool_call_update"


def test_rejected_todo_write_sends_no_plan() -> None:
    p = SessionPresenter(CWD, False)
    p.on_call("c1", "todo_write", {"todos": []})
    updates = wires(p.on_result("c1", "todo_write", {}, ToolResult.error("bad")))
    assert [u["sessionUpdate"] for u in updates] == ["tool_call_update"]


# --- replay equals live ----------------------------------------------------------------------


async def test_replay_through_a_throwaway_presenter_equals_live(tmp_path: Path) -> None:
    """Run real tools, log what the presenter saw, replay the log: the same updates."""
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    live = SessionPresenter(tmp_path, True)
    log: list[tuple[Any, ...]] = []
    sent: list[ToolUpdate] = []

    def sink(call_id: str) -> Callable[[str], None]:
        def output(data: str) -> None:
            log.append(("output", call_id, data))
            sent.extend(live.on_output(call_id, data))

        return output

    steps: list[tuple[str, dict[str, object]]] = [
        ("read", {"file_path": "a.txt"}),
        ("edit", {"file_path": "a.txt", "old_string": "two", "new_string": "2"}),
        ("write", {"file_path": "b/c.txt", "content": "hi\n"}),
        ("bash", {"command": "echo out; echo err >&2; exit 4", "description": "Fail"}),
        ("todo_write", {"todos": [{"content": "x", "status": "in_progress"}]}),
        ("edit", {"file_path": "a.txt", "old_string": "nope", "new_string": "x"}),
    ]
    for n, (name, args) in enumerate(steps):
        call_id = f"c{n}"
        log.append(("call", call_id, name, args))
        sent += live.on_call(call_id, name, args)
        result = await ALL_TOOLS[name].execute(args, ToolContext(tmp_path, on_output=sink(call_id)))
        log.append(("result", call_id, name, args, result))
        sent += live.on_result(call_id, name, args, result)

    replay = SessionPresenter(tmp_path, True)
    replayed: list[ToolUpdate] = []
    for event in log:
        if event[0] == "call":
            replayed += replay.on_call(event[1], event[2], event[3])
        elif event[0] == "output":
            replayed += replay.on_output(event[1], event[2])
        else:
            replayed += replay.on_result(event[1], event[2], event[3], event[4])
    assert wires(replayed) == wires(sent)
    assert any(event[0] == "output" for event in log)  # live chunks are part of the log
    kinds = [wire_dict(u)["sessionUpdate"] for u in sent]
    assert kinds.count("plan") == 1
    assert "tool_call_update" in kinds
    ended = {
        wire_dict(u)["toolCallId"]: wire_dict(u).get("status")
        for u in sent
        if wire_dict(u)["sessionUpdate"] == "tool_call_update"
    }
    assert len(ended) == len(steps)  # every call got its result
    assert set(ended.values()) <= {"completed", "failed"}
