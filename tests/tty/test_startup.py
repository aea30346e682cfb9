"""Case 4 of issue 12: start-up and quitting, as the installed console script runs them."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from harness import TtyApp, agent_command, app_env, header_ready, script_agent_command
from loads import word_stream

Start = Callable[..., TtyApp]


def test_cold_start_to_a_usable_prompt(tty: Start) -> None:
    app = tty()
    lines = app.wait_for(header_ready)
    assert "dsh-agent" in lines[0], app.dump()
    app.type("ping")
    app.wait_for(lambda lines: any("ping" in line for line in lines[-6:]), 10, "the typed text")
    app.key("enter")
    app.wait_for("offline mode", timeout=30)


@pytest.mark.parametrize("load", ["command", "message stream"])
def test_ctrl_q_during_a_stream_leaves_no_process_behind(tty: Start, home: Path, load: str) -> None:
    if load == "command":
        # dsh-agent runs a client terminal (its own process group) that keeps printing
        args = ["--agent", agent_command("--mode", "full-access")]
        prompt = "$ for i in $(seq 1 600); do echo tick $i; sleep 0.05; done"
        visible = "tick 1"
    else:
        script = {"prompts": [word_stream(20000, "END", 0.05, 20)]}
        args = ["--agent", script_agent_command(home / "script.json", script)]
        prompt = "go"
        visible = "w0040"
    app = tty(args)
    app.wait_for(header_ready)
    app.type(prompt)
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(visible, timeout=30)
    during = app.scan_processes()
    assert during, "no child process seen while the stream ran"
    assert app.quit(timeout=15) == 0, app.dump()
    left = app.wait_no_leftovers(timeout=5)
    assert not left, f"left behind: {left} (seen while running: {sorted(app.seen_pids)})"


def test_bare_console_script_finds_dsh_agent_beside_itself(tty: Start, home: Path) -> None:
    """`.venv/bin/dsh-tui` with the venv not activated: dsh-agent is not on PATH."""
    env = app_env(home, activated=False)
    env["PATH"] = "/usr/bin:/bin"
    app = tty(env=env)
    lines = app.wait_for(lambda lines: header_ready(lines) or "agent failed" in "".join(lines))
    assert header_ready(lines) and "dsh-agent" in lines[0], app.dump()


def test_missing_agent_says_not_found_and_quits_non_zero(tty: Start) -> None:
    app = tty(["--agent", "nonexistent-agent-xyz"])
    lines = app.wait_for(lambda lines: any("agent failed" in line.lower() for line in lines))
    lines = app.wait_stable(0.3)
    screen = app.dump()
    app.send("q")
    code = app.wait_exit(timeout=15)
    named = any("not found on PATH" in line for line in lines)
    assert named and code != 0, f"'not found on PATH' shown: {named}, exit code {code}\n{screen}"


def test_a_silent_agent_is_stopped_after_the_handshake_timeout(tty: Start) -> None:
    silent = shlex.join([sys.executable, "-c", "import time; time.sleep(600)"])
    app = tty(["--agent", silent, "--handshake-timeout", "1"])
    lines = app.wait_for("did not answer initialize within 1 s", timeout=30)
    assert any("--handshake-timeout" in line for line in app.wait_stable(0.3)), app.dump()
    app.send("q")
    assert app.wait_exit(timeout=15) != 0, "\n".join(lines)
