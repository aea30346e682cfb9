"""What one agent message made of several content blocks reads like on screen: an image, a
link and the words around them each on a line of their own, never glued into one line; and
two messages the agent sends between turns (after mode switches) are two lines, not one."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from harness import TtyApp, header_ready, script_agent_command, wait_until

IMAGE = "[image image/png, 3 bytes]"


def chunk(content: dict[str, Any]) -> dict[str, Any]:
    return {"update": {"sessionUpdate": "agent_message_chunk", "content": content}}


def words(text: str) -> dict[str, Any]:
    return chunk({"type": "text", "text": text})


def test_image_link_and_text_of_one_message_are_separate_lines(tty: Any, home: Path) -> None:
    done = home / "done"
    reply = [
        chunk({"type": "image", "mimeType": "image/png", "data": "AAAA"}),
        words("see this"),
        chunk({"type": "resource_link", "name": "LINKED-SPEC", "uri": "file:///w/spec.md"}),
        words("and the END-WORDS"),
        {"touch": str(done)},
    ]
    script = {
        "agent_name": "script-agent",
        "modes": {
            "currentModeId": "default",
            "availableModes": [
                {"id": "default", "name": "Default"},
                {"id": "autoEdit", "name": "Auto edit"},
            ],
        },
        "modeMessage": "[MODE_UPDATE] {mode}",
        "prompts": [reply],
    }
    app: TtyApp = tty(["--agent", script_agent_command(home / "script.json", script)])
    app.wait_for(header_ready)
    app.type("go")
    time.sleep(0.1)
    app.key("enter")
    wait_until(done.exists, what="the agent to send the reply")
    # The reply, and the turn over (the prompt says it is ready again).
    ready = app.wait_for(
        lambda lines: (
            "END-WORDS" in "".join(lines) and any("Message the agent" in line for line in lines)
        )
    )
    lines = ready
    rows = [line.strip(" │▏▎▍▌") for line in lines]
    assert any(row.startswith(IMAGE) and row.endswith(IMAGE) for row in rows), app.dump()
    assert any(row == "see this" for row in rows), app.dump()
    assert any(row == "[LINKED-SPEC](file:///w/spec.md)" for row in rows), app.dump()
    assert any(row == "and the END-WORDS" for row in rows), app.dump()
    assert not any("see this" in line and "LINKED" in line for line in lines), app.dump()
    # Two messages between turns: two mode switches, each said by the agent.
    app.key("shift+tab")
    app.wait_for("[MODE_UPDATE] autoEdit")
    app.key("shift+tab")
    lines = app.wait_for("[MODE_UPDATE] default")
    assert not any("autoEdit" in line and "[MODE_UPDATE] default" in line for line in lines), (
        app.dump()
    )
