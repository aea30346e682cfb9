"""dsh-tui against a real dsh-agent subprocess over stdio, driven as a user would."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from support import AGENT_COMMAND, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.failure import AgentFailedScreen
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import AgentMessage, UserMessage


def make_app(tmp_path: Path, command: str = AGENT_COMMAND, terminal: bool = True) -> DshApp:
    workspace = tmp_path / "work"
    workspace.mkdir(exist_ok=True)
    return DshApp(AppConfig(command, workspace, terminal, log_dir=tmp_path / "logs"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is already dead; only a reaped or running process matters here.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


async def test_prompt_streams_reply_and_quit_reaps_agent(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        session = app.controller.session
        assert session is not None
        assert session.init.agent_info is not None
        assert session.init.agent_info.name == "dsh-agent"
        # The header is drawn from the session's event, a message or two after the session.
        await wait_until(pilot, lambda: "dsh-agent 0.1.0" in str(app.query_one("#header").render()))
        header = str(app.query_one("#header").render())
        # At 100 columns the protocol details are the first to go; the agent and mode stay.
        assert "dsh-agent 0.1.0" in header and "mode: Ask" in header

        prompt = app.query_one(PromptArea)
        prompt.text = "please echo this"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        reply = app.query_one(AgentMessage)
        await wait_until(pilot, lambda: not reply.is_streaming)
        assert "please echo this" in reply.source
        assert "offline mode" in reply.source
        assert app.query_one(UserMessage).render().plain == "› please echo this"  # type: ignore[union-attr]

        pid = session.process.pid
        await app.action_quit()
    assert not alive(pid)


async def test_agent_that_dies_at_start_shows_failure_screen(tmp_path: Path) -> None:
    script = "echo 'fatal: no model for you' >&2; exit 7"
    app = make_app(tmp_path, shlex.join(["sh", "-c", script]))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen))
        failure = app.controller.failure
        assert failure is not None
        assert failure.exit_code == 7
        assert "fatal: no model for you" in failure.stderr_tail
        shown = str(app.screen.query_one("#failure").render())
        assert "fatal: no model for you" in shown
        assert "exit     7" in shown
        assert "sh -c" in shown
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running)


async def test_missing_agent_executable_is_reported(tmp_path: Path) -> None:
    app = make_app(tmp_path, "no-such-agent-binary --flag")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen))
        assert app.controller.failure is not None
        assert "could not start the agent" in app.controller.failure.reason
        assert "no-such-agent-binary" in app.controller.failure.reason


async def test_retry_after_failure_starts_the_agent_again(tmp_path: Path) -> None:
    marker = tmp_path / "first-run-done"
    # Fails the first time, then execs the real agent.
    script = f"if [ -e {marker} ]; then exec {AGENT_COMMAND}; fi; touch {marker}; exit 3"
    app = make_app(tmp_path, shlex.join(["sh", "-c", script]))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen))
        await pilot.press("r")
        await wait_until(pilot, lambda: app.controller.session is not None)
        await app.action_quit()


async def test_escape_cancels_a_running_turn(tmp_path: Path) -> None:
    """A slow agent: Esc must reach it while the prompt is in flight (no frozen handler)."""
    slow_agent = Path(__file__).with_name("slow_agent.py")
    app = make_app(tmp_path, shlex.join([sys.executable, str(slow_agent)]))
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).text = "take your time"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.controller.turn_running)
        await wait_until(pilot, lambda: bool(app.query(AgentMessage)))
        await pilot.press("escape")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        notices = [str(n.render()) for n in app.query("Notice")]
        assert "turn ended: cancelled" in notices
        await app.action_quit()


async def test_resume_picker_loads_an_earlier_session(tmp_path: Path) -> None:
    """Prompt, quit, start again with --resume: the picker lists the session and loads it."""
    from tui.widgets.choice import ChoiceScreen

    first = make_app(tmp_path)
    watch_turns(first)
    async with first.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: first.controller.session is not None)
        first.query_one(PromptArea).text = "remember this line"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(first) == 1)
        await first.action_quit()

    workspace = tmp_path / "work"
    second = DshApp(AppConfig(AGENT_COMMAND, workspace, True, log_dir=tmp_path / "logs", resume=""))
    async with second.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(second.screen, ChoiceScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: second.controller.session is not None)
        session = second.controller.session
        assert session is not None and session.resumed
        prompts = [str(m.render()) for m in second.query(UserMessage)]
        assert prompts == ["› remember this line"]
        await wait_until(pilot, lambda: bool(second.query(AgentMessage)))
        await second.action_quit()


async def test_ctrl_r_then_escape_keeps_the_current_session(tmp_path: Path) -> None:
    """Ctrl+R lists the sessions on the live connection; Esc in the picker keeps the current
    session and its transcript, and a choice then reconnects and loads the chosen one."""
    from tui.widgets.choice import ChoiceScreen

    first = make_app(tmp_path)
    watch_turns(first)
    async with first.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: first.controller.session is not None)
        first.query_one(PromptArea).text = "remember this line"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(first) == 1)
        await first.action_quit()

    second = make_app(tmp_path)
    watch_turns(second)
    async with second.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: second.controller.session is not None)
        second.query_one(PromptArea).text = "the current conversation"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(second) == 1)
        session = second.controller.session
        assert session is not None

        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(second.screen, ChoiceScreen))
        assert second.controller.session is session  # the picker came up on the same connection
        # Only the earlier session: the current one is where Esc goes back to.
        assert len(second.screen.query_one("OptionList").options) == 1  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert second.controller.session is session and not session.resumed
        prompts = [str(m.render()) for m in second.query(UserMessage)]
        assert prompts == ["› the current conversation"]

        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(second.screen, ChoiceScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: second.controller.session not in (None, session))
        resumed = second.controller.session
        assert resumed is not None and resumed.resumed
        prompts = [str(m.render()) for m in second.query(UserMessage)]
        assert prompts == ["› remember this line"]
        await second.action_quit()


async def test_hung_agent_still_cancels_and_quits(tmp_path: Path) -> None:
    """An agent that ignores everything: Esc returns control and Ctrl+Q still exits."""
    hung = tmp_path / "hung_agent.py"
    hung.write_text(
        "import sys, time\n"
        "import json\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg.get('method') == 'initialize':\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': "
        "{'protocolVersion': 1, 'agentCapabilities': {}}}), flush=True)\n"
        "    elif msg.get('method') == 'session/new':\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': "
        "{'sessionId': 'h'}}), flush=True)\n"
        "    # prompts and cancels are never answered\n"
    )
    app = make_app(tmp_path, shlex.join([sys.executable, str(hung)]))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        session = app.controller.session
        assert session is not None
        app.query_one(PromptArea).text = "hello?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.controller.turn_running)
        await pilot.press("escape")
        pid = session.process.pid
        await app.action_quit()
    assert not alive(pid)
