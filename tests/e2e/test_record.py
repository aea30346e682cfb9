"""Recording the wire: what came in is written as it came, a malformed line as raw text."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from scripted import NoteSink, recorded

from tui.connection import open_session
from tui.launch import LaunchSpec

HOSTILE_AGENT = Path(__file__).with_name("hostile_agent.py")
NOT_JSON = '{"jsonrpc": "2.0", "method": "session/update", oops'


async def test_a_malformed_line_is_recorded_as_it_came(tmp_path: Path) -> None:
    script = tmp_path / "hostile.json"
    big = "x" * 100_000
    actions = [
        {"raw": NOT_JSON},
        {"raw": "42"},
        {"big": {"bytes": len(big), "text": "x"}},
        {"big": {"bytes": 300_000, "text": "y"}},  # over the cap below: dropped at the transport
        {"stop": "end_turn"},
    ]
    script.write_text(json.dumps({"prompts": [actions]}))
    command = shlex.join([sys.executable, str(HOSTILE_AGENT), str(script)])
    recording = tmp_path / "wire.jsonl"
    spec = LaunchSpec.from_command(command, tmp_path, tmp_path / "agent.log", True, (), recording)
    sink = NoteSink()
    async with open_session(spec, sink, max_message_bytes=200_000) as session:
        await session.prompt("go")
    lines = recorded(recording)
    assert lines[0]["dir"] == "out" and lines[0]["msg"]["method"] == "initialize"
    raw = [line for line in lines if "raw" in line]
    assert raw[0] == {"dir": "in", "t": raw[0]["t"], "raw": NOT_JSON}
    assert set(raw[1]) == {"dir", "t", "raw", "size"} and raw[1]["size"] > 300_000
    assert raw[1]["raw"].startswith('{"jsonrpc":"2.0","method":"session/update"')
    assert len(raw[1]["raw"]) == 1024  # the head the transport keeps of a line it drops
    assert len(raw) == 2
    number = [line for line in lines if line.get("msg") == 42]
    assert len(number) == 1 and number[0]["dir"] == "in"  # valid JSON, refused, still the wire
    answers = [line["msg"] for line in lines if line["dir"] == "out" and "error" in line["msg"]]
    assert [answer["error"]["code"] for answer in answers] == [-32700, -32600]
    texts = [
        line["msg"]["params"]["update"]["content"]["text"]
        for line in lines
        if isinstance(line.get("msg"), dict) and line["msg"].get("method") == "session/update"
    ]
    assert big in texts
    assert any("not valid JSON" in note for note in sink.notes)
