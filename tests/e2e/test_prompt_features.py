"""Issue 19, the prompt: `@` mentions arrive at the agent as resource blocks (or links when it
does not take embedded context), and `!command` runs on this machine in a client terminal as
the user's card, never sent. Real processes: the script agent over pipes, commands on a pty."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from support import AGENT_COMMAND, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.state import NoticeEntry, ToolCallEntry
from tui.widgets.cards.header import header_text
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.terminal.header import status_content
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.messages import AgentMessage, UserMessage

HERE = Path(__file__).parent


def app_for(tmp_path: Path, **script: Any) -> DshApp:
    workspace = tmp_path / "work"
    workspace.mkdir(exist_ok=True)
    (workspace / "a.py").write_text("print('a')\nprint('b')\n")
    (workspace / "notes.txt").write_text("hello\n")
    body = {"prompts": [[{"blocks": "got:\n"}]], **script}
    path = tmp_path / "script.json"
    path.write_text(json.dumps(body))
    command = shlex.join([sys.executable, str(HERE / "script_agent.py"), str(path)])
    return watch_turns(DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs")))


def agent_text(app: DshApp) -> str:
    return "\n".join(message.source for message in app.query(AgentMessage))


def user_text(app: DshApp) -> str:
    return "\n".join(str(message.render()) for message in app.query(UserMessage))


async def send_with_mentions(app: DshApp, pilot: Any) -> PromptArea:
    await wait_until(pilot, lambda: app.controller.session is not None)
    prompt = app.query_one(PromptArea)
    prompt.load("compare @a.py with @notes.txt please")
    await pilot.pause()
    assert prompt.border_subtitle == "@a.py @notes.txt"  # the chips: what will be attached
    await pilot.press("enter")
    await wait_until(pilot, lambda: turns_ended(app) == 1)
    await wait_until(pilot, lambda: "got:" in agent_text(app))
    return prompt


async def test_two_mentions_arrive_as_two_embedded_resources(tmp_path: Path) -> None:
    app = app_for(tmp_path, embeddedContext=True)
    work = (tmp_path / "work").resolve()
    async with app.run_test(size=(120, 40)) as pilot:
        await send_with_mentions(app, pilot)
        got = agent_text(app).split("got:", 1)[1].split()
        assert " ".join(got) == (
            f"text resource {(work / 'a.py').as_uri()} (22 chars)"
            f" resource {(work / 'notes.txt').as_uri()} (6 chars)"
        )
        shown = user_text(app)
        assert "compare @a.py with @notes.txt please" in shown
        assert "attached: a.py (2 lines), notes.txt (1 line)" in shown


async def test_without_embedded_context_the_mentions_are_links(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    work = (tmp_path / "work").resolve()
    async with app.run_test(size=(120, 40)) as pilot:
        await send_with_mentions(app, pilot)
        got = agent_text(app).split("got:", 1)[1].split()
        assert " ".join(got) == (
            f"text resource_link {(work / 'a.py').as_uri()}"
            f" resource_link {(work / 'notes.txt').as_uri()}"
        )
        assert "attached: a.py (link), notes.txt (link)" in user_text(app)


def user_cards(app: DshApp) -> list[ToolCard]:
    return [card for card in app.query(ToolCard) if card.entry.by_user]


async def test_bang_echo_runs_here_as_the_users_card_and_is_not_sent(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press(*"!echo hi", "enter")
        await wait_until(pilot, lambda: bool(user_cards(app)))
        card = user_cards(app)[0]
        entry: ToolCallEntry = card.entry
        await wait_until(pilot, lambda: entry.status == "completed")
        pane = card.query_one(TerminalPane)
        await wait_until(pilot, lambda: "exit 0" in status_content(pane).plain)
        await wait_until(pilot, lambda: not pane.busy)
        assert "hi" in pane.view.plain_lines()
        assert entry.tool_call_id == "user-shell-1" and entry.title == "! echo hi"
        assert "run by you" in header_text(entry, tmp_path).plain
        assert turns_ended(app) == 0 and user_text(app) == ""  # the agent was not asked
        assert app.query_one(PromptArea).text == ""


async def test_esc_kills_a_running_bang_command(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press(*"!sleep 30", "enter")
        await wait_until(pilot, lambda: bool(app.controller.shells.running))
        card = user_cards(app)[0]
        await pilot.press("escape")
        await wait_until(pilot, lambda: card.entry.status == "failed")
        pane = card.query_one(TerminalPane)
        await wait_until(pilot, lambda: "killed by" in status_content(pane).plain)
        assert not app.controller.shells.running


async def test_a_bang_alone_does_nothing(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press("!", "enter")
        await pilot.pause()
        assert app.query_one(PromptArea).text == "!"
        assert turns_ended(app) == 0 and not user_cards(app)
        assert app.controller.conversation.entries == []


async def test_a_file_over_the_cap_goes_as_a_link_with_a_notice(tmp_path: Path) -> None:
    app = app_for(tmp_path, embeddedContext=True)
    work = (tmp_path / "work").resolve()
    (work / "big.log").write_text("x" * (300 * 1024))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).load("look at @big.log please")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "got:" in agent_text(app))
        assert agent_text(app).split("got:", 1)[1].split() == [
            "text",
            "resource_link",
            (work / "big.log").as_uri(),
        ]
        notices = [
            e.text for e in app.controller.conversation.entries if isinstance(e, NoticeEntry)
        ]
        assert notices == ["big.log is 300 KB, over the 256 KB cap: sent as a link"]
        assert "attached: big.log (link)" in user_text(app)


async def test_a_finished_bang_terminal_is_released(tmp_path: Path) -> None:
    """Not left counting against the agent's live terminals (nor shown as left open)."""
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press(*"!true", "enter")
        await wait_until(pilot, lambda: bool(user_cards(app)))
        await wait_until(pilot, lambda: user_cards(app)[0].entry.status == "completed")
        session = app.controller.session
        assert session is not None
        terminals = session.client.terminals
        assert terminals.terminal_ids() == []
        assert len(terminals.terminal_ids(include_released=True)) == 1


async def test_dsh_agent_gets_two_mentions_as_two_embedded_files(tmp_path: Path) -> None:
    """The real dsh-agent (offline model) counts the lines of each file it was sent: both
    arrived as embedded text, in order."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "a.py").write_text("print('a')\nprint('b')\n")
    (workspace / "notes.txt").write_text("hello\n")
    app = watch_turns(DshApp(AppConfig(AGENT_COMMAND, workspace, log_dir=tmp_path / "logs")))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).load("compare @a.py with @notes.txt please")
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: "attached:" in agent_text(app))
        assert "attached: `a.py`, 2 lines; `notes.txt`, 1 line." in agent_text(app)
        assert "attached: a.py (2 lines), notes.txt (1 line)" in user_text(app)
