"""The traffic inspector's store and the recording tap the same transport: both see every line."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from scripted import NoteSink, recorded

from tui.connection import open_session
from tui.inspector.traffic import Traffic
from tui.launch import LaunchSpec

SCRIPT_AGENT = Path(__file__).with_name("script_agent.py")


async def test_the_store_and_the_recording_see_the_same_lines(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    call = {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read", "kind": "read"}
    done = {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}
    actions = [{"update": call}, {"stream": {"count": 20, "text": "w{i} "}}, {"update": done}]
    script.write_text(json.dumps({"prompts": [[*actions, {"stop": "end_turn"}]]}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script)])
    recording = tmp_path / "wire.jsonl"
    spec = LaunchSpec.from_command(command, tmp_path, tmp_path / "agent.log", True, (), recording)
    traffic = Traffic()
    sink = NoteSink()
    async with open_session(spec, sink, tap=traffic) as session:
        await session.prompt("go")
    assert sink.notes == []
    lines = recorded(recording)
    assert [m.direction for m in traffic.since(1)] == [line["dir"] for line in lines]
    assert [json.loads(m.raw) for m in traffic.since(1)] == [line["msg"] for line in lines]
    assert traffic.negotiation.request is not None and traffic.negotiation.response is not None
    assert traffic.negotiation.request.summary.label == "initialize"
    built = [traffic.get(seq) for seq in traffic.for_tool_call("c1")]
    assert [m.summary.update for m in built if m is not None] == ["tool_call", "tool_call_update"]
    labels = [m.summary.label for m in traffic.since(1)]
    assert labels.count("session/update") == 22
    assert "session/prompt" in labels and labels[-1] == "result"
