"""An MCP server from the settings file, as a person meets it: dsh-tui passes it to dsh-agent in
`session/new`, the offline model's `mcp` command lists it and calls one of its tools, and the
call is a card titled `server · tool` with the tool's answer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, agent_command, header_ready, turns_ended, wait_until

Start = Callable[..., TtyApp]
PROBE = Path(__file__).resolve().parents[1] / "agent" / "runtime" / "mcp_probe_server.py"


def test_a_configured_stdio_server_is_passed_listed_and_called(tty: Start, home: Path) -> None:
    marks = home / "marks"
    marks.mkdir(parents=True)
    config = home / "config" / "dsh-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        "[mcp_servers.probe]\n"
        f"command = {sys.executable!r}\nargs = [{str(PROBE)!r}, {str(marks)!r}]\n"
    )
    app = tty(["--agent", agent_command("--mode", "full-access")], size=(140, 45))
    app.wait_for(header_ready, timeout=60)
    app.type("mcp")
    app.key("enter")
    wait_until(lambda: turns_ended(home) >= 1, timeout=90, what="the mcp listing")
    app.wait_for("echo", timeout=30)
    app.type('mcp probe echo {"text": "hello through MCP"}')
    app.key("enter")
    wait_until(lambda: turns_ended(home) >= 2, timeout=90, what="the mcp call")
    app.wait_for("probe · echo", timeout=30)
    lines = app.wait_for(
        lambda lines: any("probe · echo" in line and "✓" in line for line in lines), timeout=30
    )
    assert sum("hello through MCP" in line for line in lines) >= 2, app.dump()  # asked, answered
    assert not app.unexpected_sequences(), app.unexpected_sequences()
