"""`dsh-tui replay --step` steps by what a person reads: a whole thought, a whole reply, a tool
call with its updates, the end of a turn; `.` is one wire message, `e` plays the rest. A
replay is marked as one: the prompt is closed, the agent's keys are gone, no history."""

from __future__ import annotations

import json
from pathlib import Path

from support import wait_until
from tui.replay.app import PLAY_PLACEHOLDER, STEP_PLACEHOLDER, ReplayApp, replay_app
from tui.replay.recording import Recording
from tui.replay.steps import prompt_request_ids, step_starts
from tui.state import MessageEntry, ToolCallEntry
from tui.widgets.prompt.prompt import PromptArea

DEMO = Path(__file__).parents[2] / "tui" / "replay" / "recordings" / "demo-terminal-off.jsonl"


def recorded(kind: str) -> str:
    """The whole text of one kind of chunk in the demo's recording."""
    text = []
    for line in DEMO.read_text(encoding="utf-8").splitlines():
        update = json.loads(line)["msg"].get("params", {}).get("update", {})
        if update.get("sessionUpdate") == kind:
            text.append(update["content"]["text"])
    return "".join(text)


def entries(app: ReplayApp, kind: type) -> list[object]:
    return [e for e in app.controller.conversation.entries if isinstance(e, kind)]


def test_steps_start_at_each_run_of_chunks_each_tool_call_and_each_turn_end() -> None:
    recording = Recording.load(DEMO)
    starts = step_starts(recording.entries, prompt_request_ids(recording.entries))
    started = [e for e, start in zip(recording.entries, starts, strict=True) if start]
    kinds = [
        e.message["params"]["update"]["sessionUpdate"] if e.method else "turn end"
        for e in started
        if e.message is not None
    ]
    assert kinds[:3] == ["agent_thought_chunk", "agent_message_chunk", "tool_call"]
    assert kinds[-1] == "turn end"
    assert kinds.count("tool_call") == 9
    assert kinds.count("agent_thought_chunk") == 1  # 38 chunks on the wire, one step
    assert all(e.incoming for e in started)
    assert len(started) < len(recording.entries) // 3


async def test_space_shows_a_whole_thought_then_a_whole_reply(tmp_path: Path) -> None:
    app = replay_app(DEMO, step=True, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.query_one(PromptArea)
        # The session opens with no key: the first step is the first thing to read.
        await wait_until(pilot, lambda: app.controller.session is not None, 30)
        await wait_until(pilot, lambda: len(entries(app, MessageEntry)) == 1, 30)  # the prompt
        assert prompt.disabled and prompt.placeholder == STEP_PLACEHOLDER
        await pilot.press("space")
        thought = recorded("agent_thought_chunk")
        await wait_until(
            pilot, lambda: any(m.text == thought for m in entries(app, MessageEntry)), 30
        )
        await pilot.press("space")
        reply = recorded("agent_message_chunk").split("First, a plan.")[0] + "First, a plan."
        await wait_until(
            pilot, lambda: any(m.text == reply for m in entries(app, MessageEntry)), 30
        )
        await pilot.pause()
        assert not entries(app, ToolCallEntry)
        await pilot.press("space")
        await wait_until(pilot, lambda: len(entries(app, ToolCallEntry)) == 1, 30)
        # `.` is one wire message: the next reply's first chunk only.
        played = app.replay.agent.played
        await pilot.press(".")
        await wait_until(pilot, lambda: app.replay.agent.played == played + 1, 30)
        await pilot.pause()
        assert app.replay.agent.played == played + 1
        await pilot.press("e")
        await wait_until(pilot, lambda: app.replay.agent.finished, 30)
        await wait_until(pilot, lambda: len(entries(app, ToolCallEntry)) == 9, 30)
        await pilot.pause()
        assert prompt.placeholder == PLAY_PLACEHOLDER
        assert not app.check_action("replay_step", ())
        await app.action_quit()


async def test_a_replay_has_no_agent_keys_and_writes_no_history(tmp_path: Path) -> None:
    app = replay_app(DEMO, speed=0, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.replay.agent.finished, 30)
        await wait_until(pilot, lambda: not app.controller.turn_running, 30)
        await pilot.pause()
        prompt = app.query_one(PromptArea)
        assert prompt.disabled and prompt.placeholder == PLAY_PLACEHOLDER
        for action in ("resume", "next_mode", "pick_model", "cancel_turn", "replay_step"):
            assert not app.check_action(action, ()), action
        assert app.history.path is None
        shown = {binding.binding.action for binding in app.active_bindings.values()}
        assert "resume" not in shown
        await app.action_quit()
