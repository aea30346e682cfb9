"""The permission preview does not take `dsh.line` over the file at hand: a snippet unique at
line 7 on disk was shown as line 1 because the agent's `_meta` said so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, script_agent_command

Start = Callable[..., TtyApp]
OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def test_the_preview_shows_no_numbers_the_file_contradicts(tty: Start, home: Path) -> None:
    target = home / "work" / "f.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(f"line {n}\n" for n in range(1, 7)) + "target = 1\ntail\n")
    block = {
        "type": "diff",
        "path": str(target),
        "oldText": "target = 1\n",
        "newText": "target = 2\n",
        "_meta": {"dsh.line": {"old": 1, "new": 1}},
    }
    call = {"toolCallId": "e1", "title": "Edit f.py", "kind": "edit", "content": [block]}
    script = {"prompts": [[{"permission": {"toolCall": call, "options": OPTIONS}}]]}
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(100, 30))
    app.wait_for(header_ready)
    app.type("go")
    app.key("enter")
    app.wait_for("Permission")
    lines = app.wait_for("line numbers unknown")
    changed = [line for line in lines if "target = " in line]
    gutters = [line.split("target = ")[0] for line in changed]
    assert gutters and all("?" in g and not any(c.isdigit() for c in g) for g in gutters), changed
