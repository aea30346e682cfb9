"""The user's `!` terminals are outside the agent's namespace: a `terminal/*` request from the
agent for any id it did not create is refused, as for an id that does not exist, so it can
neither read a `!` command's output nor stop it. Real processes: the script agent over pipes,
the command on a pty."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import AgentMessage

HERE = Path(__file__).parent
METHODS = ("output", "kill", "wait_for_exit", "release")


def agent_text(app: DshApp) -> str:
    return "\n".join(message.source for message in app.query(AgentMessage))


async def test_the_agent_cannot_read_nor_kill_the_users_bang_command(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "secret.txt").write_text("TOPSECRET\n")
    ids_file = tmp_path / "ids.json"
    script = {"prompts": [[{"probe": {"ids_file": str(ids_file)}}]]}
    (tmp_path / "script.json").write_text(json.dumps(script))
    command = shlex.join(
        [sys.executable, str(HERE / "script_agent.py"), str(tmp_path / "script.json")]
    )
    app = watch_turns(DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs")))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        session = app.controller.session
        assert session is not None
        terminals = session.client.terminals
        await pilot.press(*"!cat secret.txt; sleep 30", "enter")
        await wait_until(pilot, lambda: bool(app.query(ToolCard)))
        [card] = list(app.query(ToolCard))
        assert card.entry.by_user
        user_id = card.entry.content[0].terminal_id
        await wait_until(pilot, lambda: "TOPSECRET" in terminals.output(user_id).output)
        # The first id the agent would guess, and the user's terminal's real id.
        ids_file.write_text(json.dumps(sorted({"term-1", user_id})))
        app.query_one(PromptArea).load("probe")
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1, timeout=30)
        await wait_until(
            pilot, lambda: agent_text(app).count("probe ") >= 4 * len({"term-1", user_id})
        )
        said = agent_text(app)
        for terminal_id in {"term-1", user_id}:
            for method in METHODS:
                assert f"probe terminal/{method} {terminal_id}: error -32602" in said, said
        assert "TOPSECRET" not in said
        # The command still runs, untouched, and its card with it.
        assert terminals.info(user_id).exit_status is None
        assert card.entry.status == "in_progress"
        await pilot.press("escape")  # the user stops it
        await wait_until(pilot, lambda: card.entry.status == "failed", timeout=30)
