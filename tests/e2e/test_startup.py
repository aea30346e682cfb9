"""Starting and quitting: where the default agent is found, what a missing one looks like, and
the exit status. The CLI tests run `tui.cli.main` itself, headless, so the agent it starts
before the UI is imported is the one the app talks to."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import wait_until
from tui import cli
from tui.app import AppConfig, DshApp
from tui.launch import LaunchSpec, find_program
from tui.widgets.failure import AgentFailedScreen

# A PATH without the venv: dsh-tui started as .venv/bin/dsh-tui, the venv not activated.
BARE_PATH = "/usr/bin:/bin"
MISSING = "no-such-agent-binary"


@pytest.fixture
def bare_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", BARE_PATH)


@contextlib.contextmanager
def own_root_logger() -> Iterator[None]:
    """cli.main configures the root logger, as in a fresh process: without pytest's handlers,
    and put back afterwards, so later tests do not write to this test's dsh-tui.log."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers[:] = []
    try:
        yield
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = handlers
        root.setLevel(level)


def test_agent_not_on_path_is_found_beside_the_interpreter(bare_path: None) -> None:
    beside = Path(sys.executable).parent / "dsh-agent"
    assert beside.exists(), "the project is installed in the interpreter's environment"
    assert find_program("dsh-agent") == str(beside)
    spec = LaunchSpec.from_command("dsh-agent --mode ask", Path.cwd(), Path("agent.log"), True)
    assert spec.program == str(beside)
    assert spec.command_line == "dsh-agent --mode ask"  # shown as the user gave it


def test_a_path_is_used_as_given_and_a_missing_name_is_none(bare_path: None) -> None:
    assert find_program("./bin/agent") == "./bin/agent"
    assert find_program(MISSING) is None


async def test_default_agent_connects_without_the_venv_on_path(
    tmp_path: Path, bare_path: None
) -> None:
    app = DshApp(AppConfig("dsh-agent", tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: "dsh-agent 0.1.0" in str(app.query_one("#header").render()))
        await app.action_quit()
    assert app.return_code == 0


async def test_missing_agent_says_not_found_and_quitting_fails(tmp_path: Path) -> None:
    app = DshApp(AppConfig(f"{MISSING} --flag", tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30)) as pilot:
        # A pushed screen composes on its own task: wait for its text, not only the push.
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen))
        await wait_until(pilot, lambda: bool(app.screen.query("#failure")))
        failure = app.controller.failure
        assert failure is not None and not failure.started
        shown = str(app.screen.query_one("#failure").render())
        assert f"{MISSING} not found on PATH" in shown
        assert "did not start" in shown
        assert "still running" not in shown
        # The log the screen points to says what happened.
        assert f"{MISSING} not found on PATH" in failure.spec.log_path.read_text()
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running)
    assert app.return_code == 1


def run_cli(monkeypatch: pytest.MonkeyPatch, argv: list[str], keys: list[str], ready: Any) -> int:
    """cli.main, with the app run headless: wait for `ready(app)`, press `keys`; the exit code."""
    original_run = DshApp.run

    def headless_run(self: DshApp, **kwargs: Any) -> Any:
        async def drive(pilot: Any) -> None:
            try:
                await wait_until(pilot, lambda: ready(self))
                await pilot.press(*keys)
            except BaseException:
                self.exit(return_code=99)
                raise

        return original_run(self, headless=True, size=(100, 30), auto_pilot=drive)

    monkeypatch.setattr(DshApp, "run", headless_run)
    with own_root_logger(), pytest.raises(SystemExit) as exited:
        cli.main(argv)
    code = exited.value.code
    assert isinstance(code, int)
    return code


def test_cli_finds_the_agent_beside_itself_and_a_normal_quit_exits_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bare_path: None
) -> None:
    monkeypatch.delenv("DSH_AGENT", raising=False)
    argv = ["--cwd", str(tmp_path), "--log-dir", str(tmp_path / "logs")]
    code = run_cli(monkeypatch, argv, ["ctrl+q"], lambda app: app.controller.session is not None)
    assert code == 0


def test_cli_exits_non_zero_after_quitting_a_failed_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    argv = ["--agent", MISSING, "--cwd", str(tmp_path), "--log-dir", str(logs)]
    code = run_cli(monkeypatch, argv, ["q"], lambda app: isinstance(app.screen, AgentFailedScreen))
    assert code == 1
    client_log = (logs / "dsh-tui.log").read_text()
    assert f"could not start the agent: {MISSING} not found on PATH" in client_log
    assert "exit: did not start" in client_log
