"""How a bash call that did not finish on its own is shown, live and on replay alike: a command
aborted while it ran ends like any killed command (its signal, its duration), and one that never
started says so (`_meta["dsh.not_run"]`), so a resumed card can say "not run" too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent.events import ToolCall, ToolFinished
from agent.presenter import SessionPresenter
from agent.tools.base import ToolContext, ToolResult
from agent.tools.bash import BashTool
from agent.translate import replay
from agent.views import GenericResultView, TerminalResultView
from support import cancel_once_written

CWD = "/home/u/proj"
ARGS = {"command": "sleep 30", "description": "Wait"}
ARGUMENTS = '{"command": "sleep 30", "description": "Wait"}'
ABORTED = ToolResult.error(
    "command aborted\n(no output)\n[killed by signal: SIGTERM]", meta={"duration_ms": 3200}
)
REJECTED = ToolResult.error("the user rejected this bash call")


def wire(updates: Any) -> list[dict[str, Any]]:
    return [u.model_dump(by_alias=True, exclude_none=True) for u in updates]


def test_an_aborted_run_is_a_killed_command_with_its_duration() -> None:
    view = BashTool().present_result(ARGS, ABORTED)
    assert view == TerminalResultView(
        card="terminal",
        output="(no output)\n[killed by signal: SIGTERM]",
        signal="SIGTERM",
        duration_ms=3200,
        headline="Error: command aborted",  # the text fallback's first line
    )


def test_a_rejected_call_never_ran() -> None:
    view = BashTool().present_result(ARGS, REJECTED)
    assert isinstance(view, GenericResultView) and view.not_run


def test_the_final_updates_say_how_the_call_ended() -> None:
    presenter = SessionPresenter(CWD, True)
    presenter.on_call("c1", "bash", ARGS)
    [aborted] = wire(presenter.on_result("c1", "bash", ARGS, ABORTED))
    assert aborted["status"] == "failed"
    assert aborted["_meta"]["terminal_exit"] == {"terminal_id": "c1", "signal": "SIGTERM"}
    assert aborted["_meta"]["dsh.duration_ms"] == 3200
    assert "content" not in aborted  # content would replace the pane
    presenter.on_call("c2", "bash", ARGS)
    [rejected] = wire(presenter.on_result("c2", "bash", ARGS, REJECTED))
    assert rejected["status"] == "failed" and rejected["_meta"] == {"dsh.not_run": True}


def test_without_the_terminal_capability_both_are_text_as_the_tool_wrote_it() -> None:
    presenter = SessionPresenter(CWD, False)
    for call_id, result in (("c1", ABORTED), ("c2", REJECTED)):
        presenter.on_call(call_id, "bash", ARGS)
        [update] = wire(presenter.on_result(call_id, "bash", ARGS, result))
        # Only the mark that the turn's cancel stopped it: the card says cancelled, not failed.
        expected = {"dsh.cancelled": True} if result is ABORTED else None
        assert update.get("_meta") == expected
        assert update["content"][0]["content"]["text"] == f"```console\n{result.output}\n```"


def test_a_replayed_log_sends_the_same_final_updates_as_live() -> None:
    live = SessionPresenter(CWD, True)
    sent: list[dict[str, Any]] = []
    events: list[Any] = []
    for call_id, result in (("c1", ABORTED), ("c2", REJECTED)):
        sent += wire(live.on_call(call_id, "bash", ARGS))
        sent += wire(live.on_result(call_id, "bash", ARGS, result))
        events.append(ToolCall(call_id, "bash", ARGUMENTS))
        events.append(ToolFinished(call_id, "bash", result.output, True, result.meta))
    assert wire(replay(events, CWD, True)) == sent


async def test_a_real_aborted_run_logs_its_duration(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    pid_file = tmp_path / "pid"
    canceller = asyncio.create_task(cancel_once_written(pid_file, ctx.cancel))
    result = await BashTool().execute({"command": f"echo $$ > {pid_file}; sleep 30"}, ctx)
    await canceller
    assert result.is_error and result.output.startswith("Error: command aborted\n")
    assert isinstance(result.meta, dict) and isinstance(result.meta["duration_ms"], int)
    view = BashTool().present_result({"command": "sleep 30"}, result)
    assert isinstance(view, TerminalResultView)
    assert view.duration_ms == result.meta["duration_ms"]
