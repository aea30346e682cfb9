"""The settings file as a person meets it at 80×24: a broken file still starts dsh-tui, with a
notice naming the line and column; a named default agent starts, and an MCP server it cannot
take is named."""

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
    lines = app.wait_for(header_ready, timeout=30)
    assert "dsh-agent" in lines[0], app.dump()  # the default agent, not "x"
    app.wait_for("config.toml:2:12:", timeout=15)
    app.wait_for("using the defaults", timeout=15)


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
    lines = app.wait_for(header_ready, timeout=30)
    assert "named-one" in lines[0], app.dump()
    app.wait_for("MCP server web not passed", timeout=15)
