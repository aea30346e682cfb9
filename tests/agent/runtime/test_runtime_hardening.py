"""Hardening of dsh-agent against a hostile client, model server or workspace (issue 15)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from runtime_support import scenario_file
from wire_support import agent

from agent.log import SessionNotFound, SessionStore, valid_session_id
from agent.models.base import clean_call_id, clean_tool_name


@pytest.mark.parametrize("session_id", ["abc\n", "abc\r\n", "\nabc", "a/b", "", "a" * 129])
def test_a_session_id_must_match_whole(tmp_path: Path, session_id: str) -> None:
    assert not valid_session_id(session_id)
    with pytest.raises(SessionNotFound):
        SessionStore(tmp_path).path_for(session_id)


def test_a_plain_session_id_is_valid() -> None:
    assert valid_session_id("0123abcDEF_-")


# --- item 1: tool-call ids and names from a model server -------------------------------------

HOSTILE = [
    ("\x1b]52;c;cm0gLXJmIH4gIw==\x07", "\x1b]0;pwned\x07"),  # OSC 52 name, retitle id
    ("read\u202e", "ok\u200bid\x9b31m\x1bc"),  # bidi name; invisible, 8-bit CSI, RIS id
    ("bash", "\x1bPq#0\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\\x85\x9d8;;x\x9c"),
    ("read", "\u2066x\u2069"),
]
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [*strings(key), *strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def test_cleaning_ids_and_names() -> None:
    assert clean_call_id("call_0a-B.9:x") == "call_0a-B.9:x"
    assert clean_call_id("\x1b]0;pwned\x07") == ""
    assert clean_call_id("ok\u200bid\x9b31m\x1bc") == "okid"
    assert clean_call_id("x" * 500) == "x" * 128
    assert clean_tool_name("bash") == "bash"
    assert clean_tool_name("read\u202e") == "read?"
    assert clean_tool_name("\x1b]52;c;cm0=\x07") == "?"
    assert clean_tool_name("") == "?"


async def test_hostile_tool_call_ids_and_names_never_reach_the_wire(
    tmp_path: Path, workspace: Path
) -> None:
    items = [
        {"tool_call": {"name": name, "id": call_id, "arguments": {"command": "true"}}}
        for name, call_id in HOSTILE
    ]
    scenario = scenario_file(tmp_path, [items, [{"text": "done"}]])
    async with agent(tmp_path, "--scenario", scenario, "--mode", "full-access") as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(workspace), "mcpServers": []},
            }
        )
        session_id = (await dsh.response(2))["result"]["sessionId"]
        prompt = [{"type": "text", "text": "go"}]
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": prompt},
            }
        )
        seen: list[Any] = []
        while True:
            message = await dsh.read()
            seen.append(message)
            if message.get("id") == 3:
                break
    assert message["result"]["stopReason"] == "end_turn"
    for text in strings(seen):
        assert not UNSAFE.search(text), repr(text)
    updates = [m["params"]["update"] for m in seen if m.get("method") == "session/update"]
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    ids = [u["toolCallId"] for u in calls]
    assert len(ids) == 4 and len(set(ids)) == 4
    assert all(re.fullmatch(r"[A-Za-z0-9._:+=@-]+", i) for i in ids), ids
    assert "okid" in ids and "x" in ids
    final = {u["toolCallId"]: u for u in updates if u.get("status") in ("completed", "failed")}
    # The two renamed calls fail as unknown tools; the real bash and read still run.
    assert [final[i]["status"] for i in ids] == ["failed", "failed", "completed", "failed"]
    assert "unknown tool" in json.dumps(final[ids[0]])
