"""The end of a turn over real pipes, with the script agent: a call the agent left running
stops spinning and says so, and the agent's reuse of its id in the next turn makes a new card,
leaving the first turn as it was."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.session.events import TurnEnded
from tui.session_pane import SessionPane
from tui.state import NoticeEntry
from tui.widgets.cards.header import header_text
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import AgentMessage

HERE = Path(__file__).parent


def call(kind: str, status: str, title: str) -> dict[str, object]:
    update = {"sessionUpdate": kind, "toolCallId": "pending", "status": status, "title": title}
    return {"update": update}


async def test_a_call_left_running_settles_and_its_id_reused_later_gets_a_new_card(
    tmp_path: Path,
) -> None:
    script = {
        "prompts": [
            [call("tool_call", "in_progress", "first")],
            [call("tool_call_update", "completed", "second")],
        ]
    }
    (tmp_path / "script.json").write_text(json.dumps(script))
    agent = [sys.executable, str(HERE / "script_agent.py"), str(tmp_path / "script.json")]
    config = AppConfig(shlex.join(agent), tmp_path, log_dir=tmp_path / "logs")
    app = watch_turns(DshApp(config))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).load("one")
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1, timeout=30)
        await wait_until(pilot, lambda: len(app.query(ToolCard)) == 1)
        [card] = list(app.query(ToolCard))
        await wait_until(pilot, lambda: card.entry.status == "unfinished")
        assert "left unfinished by the agent" in header_text(card.entry, tmp_path).plain
        app.query_one(PromptArea).load("two")
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 2, timeout=30)
        await wait_until(pilot, lambda: len(app.query(ToolCard)) == 2)
        first, second = (c.entry for c in app.query(ToolCard))
        assert (first.title, first.status) == ("first", "unfinished")
        assert (second.title, second.status) == ("second", "completed")
        notes = [e.text for e in app.controller.conversation.entries if isinstance(e, NoticeEntry)]
        assert any("reused the id 'pending'" in note for note in notes), notes


async def test_a_prompt_the_agent_refuses_is_a_notice_and_the_session_carries_on(
    tmp_path: Path,
) -> None:
    script = {
        "prompts": [
            [{"error": {"code": -32602, "message": "the prompt is not valid Unicode"}}],
            [{"echo": "echo: "}],
        ]
    }
    (tmp_path / "script.json").write_text(json.dumps(script))
    agent = [sys.executable, str(HERE / "script_agent.py"), str(tmp_path / "script.json")]
    config = AppConfig(shlex.join(agent), tmp_path, log_dir=tmp_path / "logs")
    app = watch_turns(DshApp(config))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).load("one")
        await pilot.press("enter")

        def notes() -> list[str]:
            entries = app.controller.conversation.entries
            return [e.text for e in entries if isinstance(e, NoticeEntry)]

        await wait_until(pilot, lambda: any("refused this prompt" in n for n in notes()))
        assert any("not valid Unicode" in note for note in notes()), notes()
        assert app.controller.failure is None and app.controller.session is not None
        await wait_until(pilot, lambda: not app.controller.turn_running)
        app.query_one(PromptArea).load("two")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: any(m.source == "echo: two" for m in app.query(AgentMessage)),
            timeout=30,
        )
        assert app.controller.failure is None


async def test_a_turn_end_that_arrives_after_the_tab_bar_is_gone_is_ignored(
    tmp_path: Path,
) -> None:
    """While the app closes, the default screen's widgets go before a pane's last events are
    read: the end of a turn then has no bar to update, and that is no error."""
    (tmp_path / "script.json").write_text(json.dumps({"prompts": [[]]}))
    agent = [sys.executable, str(HERE / "script_agent.py"), str(tmp_path / "script.json")]
    app = DshApp(AppConfig(shlex.join(agent), tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await app.query_one("#tabs").remove()
        app.post_message(SessionPane.Event(TurnEnded("end_turn"), app.pane))
        await pilot.pause()
        assert not app.query("#tabs")  # the app carries on without the bar
