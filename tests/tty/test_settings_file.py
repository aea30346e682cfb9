"""The settings file and logging in, as a person meets them at 80×24: a broken file still starts
dsh-tui, with a notice naming the line and column; a named default agent starts, and an MCP
server it cannot take is named; an agent that needs a login shows the login picker."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from harness import SCRIPT_AGENT, TtyApp, header_ready, script_agent_command

Start = Callable[..., TtyApp]


def write_settings(home: Path, text: str) -> None:
    path = home / "config" / "dsh-tui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_broken_settings_file_starts_on_the_defaults_with_a_notice(
    tty: Start, home: Path
) -> None:
    write_settings(home, 'agent = "x"\nterminal = tru\n')
    app = tty(size=(80, 24))
    lines = app.wait_for(header_ready, timeout=60)
    assert "dsh-agent" in lines[0], app.dump()  # the default agent, not "x"
    app.wait_for("config.toml:2:12:", timeout=30)
    app.wait_for("using the defaults", timeout=30)


def test_the_default_named_agent_starts_and_a_skipped_server_is_named(
    tty: Start, home: Path
) -> None:
    command = script_agent_command(
        home / "script.json", {"agent_name": "named-one", "prompts": [[]]}
    )
    argv = shlex.split(command)
    assert argv[:2] == [sys.executable, str(SCRIPT_AGENT)]
    write_settings(
        home,
        'agent = "mine"\n[agents.mine]\n'
        f"command = {argv[0]!r}\nargs = [{argv[1]!r}, {argv[2]!r}]\n"
        '[mcp_servers.web]\nurl = "https://web.test/mcp"\n',
    )
    app = tty(size=(80, 24))
    lines = app.wait_for(header_ready, timeout=60)
    assert "named-one" in lines[0], app.dump()
    app.wait_for("MCP server web not passed", timeout=30)


def test_an_agent_that_needs_a_login_shows_the_login_picker(tty: Start, home: Path) -> None:
    methods = [{"id": "oauth", "name": "Log in with a browser", "description": "your account"}]
    script = {
        "agent_name": "locked",
        "prompts": [[]],
        "auth": {"methods": methods, "accept": "oauth"},
    }
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    app.wait_for("Log in to the agent", timeout=60)
    app.wait_for("Log in with a browser", timeout=30)
    app.key("enter")
    lines = app.wait_for(header_ready, timeout=60)
    assert "locked" in lines[0], app.dump()


def test_switch_agent_starts_a_new_session_on_a_named_agent(tty: Start, home: Path) -> None:
    """Palette → "Switch agent…" → the catalogue, filtered by typing; a named agent that cannot
    run here says why; choosing a runnable one stops dsh-agent and starts it."""
    command = script_agent_command(
        home / "script.json", {"agent_name": "other-one", "prompts": [[]]}
    )
    argv = shlex.split(command)
    write_settings(
        home,
        f"[agents.other]\ncommand = {argv[0]!r}\nargs = [{argv[1]!r}, {argv[2]!r}]\n"
        '[agents.ghost]\ncommand = "no-such-agent-here"\n'
        '[agents."[bold]loud"]\ncommand = "no-such-agent-here"\n',
    )
    app = tty(size=(80, 24))
    lines = app.wait_for(header_ready, timeout=60)
    assert "dsh-agent" in lines[0], app.dump()
    open_catalogue(app)
    app.wait_for("other (settings file)", timeout=30)
    app.wait_for("[bold]loud (settings file)", timeout=30)  # a name, never markup
    app.type("ghost")
    app.wait_for("cannot run here: no-such-agent-here not found", timeout=30)
    app.key("enter")
    app.wait_for("Cannot run ghost", timeout=30)
    lines = app.wait_for(header_ready, timeout=30)
    assert "dsh-agent" in lines[0], app.dump()  # still on it
    open_catalogue(app)
    app.type("other")
    app.wait_for("runs here", timeout=30)
    app.key("enter")
    app.wait_for("Switched to", timeout=60)
    app.wait_for(lambda rows: "other-one" in rows[0], timeout=60)


def open_catalogue(app: TtyApp) -> None:
    """Ctrl+P, then "Switch agent…": the catalogue's picker."""
    app.send("\x10")  # Ctrl+P: the palette
    app.wait_for("Search for commands", timeout=30)
    app.type("Switch agent")
    app.wait_for("registry agent or a named one", timeout=30)
    app.key("enter")
    app.wait_for("Switch to which agent?", timeout=30)


def test_switch_agent_during_a_turn_asks_first(tty: Start, home: Path) -> None:
    other = shlex.split(
        script_agent_command(home / "other.json", {"agent_name": "other-one", "prompts": [[]]})
    )
    write_settings(
        home, f"[agents.other]\ncommand = {other[0]!r}\nargs = [{other[1]!r}, {other[2]!r}]\n"
    )
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "held"}}
    hold = [{"update": chunk}, {"wait_file": str(home / "never")}]
    first = script_agent_command(
        home / "first.json", {"agent_name": "first-one", "prompts": [hold]}
    )
    app = tty(["--agent", first], size=(80, 24))
    app.wait_for(header_ready, timeout=60)
    app.type("go")
    app.key("enter")
    app.wait_for("held", timeout=30)
    open_catalogue(app)
    app.type("other")
    app.wait_for("runs here", timeout=30)
    app.key("enter")
    app.wait_for("A turn is running", timeout=30)
    app.wait_for("Keep going", timeout=30)
    app.key("escape")  # not now: the turn goes on, on the same agent
    app.wait_gone("A turn is running", timeout=30)
    lines = app.wait_for(header_ready, timeout=30)
    assert "first-one" in lines[0], app.dump()
    open_catalogue(app)
    app.type("other")
    app.wait_for("runs here", timeout=30)
    app.key("enter")
    app.wait_for("Stop the turn and switch", timeout=30)
    app.key("enter")
    app.wait_for(lambda rows: "other-one" in rows[0], timeout=60)
