"""`dsh-tui --record FILE`, as the installed console script runs it against the real dsh-agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready

Start = Callable[..., TtyApp]


def test_a_recording_holds_the_wire_in_both_directions_in_order(tty: Start, home: Path) -> None:
    recording = home / "session.jsonl"
    app = tty(["--record", str(recording)])
    app.wait_for(header_ready)
    app.type("please echo this")
    app.key("enter")
    app.wait_for("offline mode", timeout=30)
    assert app.quit(timeout=15) == 0, app.dump()

    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    assert {line["dir"] for line in lines} == {"in", "out"}
    assert all(set(line) == {"dir", "t", "msg"} for line in lines), lines
    times = [line["t"] for line in lines]
    assert times == sorted(times) and times[0] >= 0
    first, answer = lines[0], lines[1]
    assert first["dir"] == "out" and first["msg"]["method"] == "initialize"
    assert answer["dir"] == "in" and answer["msg"]["id"] == first["msg"]["id"]
    assert answer["msg"]["result"]["agentInfo"]["name"] == "dsh-agent"
    methods = [line["msg"].get("method") for line in lines if line["dir"] == "out"]
    assert methods[:3] == ["initialize", "session/new", "session/prompt"]
    prompt = next(line["msg"] for line in lines if line["msg"].get("method") == "session/prompt")
    assert prompt["params"]["prompt"][0]["text"] == "please echo this"
    chunks = "".join(
        line["msg"]["params"]["update"]["content"]["text"]
        for line in lines
        if line["msg"].get("method") == "session/update"
        and line["msg"]["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert "please echo this" in chunks and "offline mode" in chunks
    answered = [
        line["msg"] for line in lines if line["dir"] == "in" and "method" not in line["msg"]
    ]
    stop = next(answer for answer in answered if answer["id"] == prompt["id"])  # from the agent
    assert stop["result"]["stopReason"] == "end_turn"
