"""Hardening of dsh-agent against a hostile client, model server or workspace (issue 15)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from runtime_support import Connect, scenario_file, scripted, select
from wire_support import agent, final_updates, new_session, prompt

from agent.log import SessionNotFound, SessionStore, valid_session_id
from agent.models.base import clean_call_id, clean_tool_name
from agent.tools import ALL_TOOLS
from agent.tools.base import ToolResult, run_blocking


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


# --- item 8: a FIFO in the workspace, and a tool that hangs ----------------------------------


async def test_a_fifo_in_the_workspace_is_refused_and_the_session_goes_on(
    tmp_path: Path, workspace: Path
) -> None:
    fifo = workspace / "pipe"
    os.mkfifo(fifo)
    turns = [
        [
            [
                {"tool_call": {"name": "read", "arguments": {"file_path": "pipe"}}},
                {
                    "tool_call": {
                        "name": "edit",
                        "arguments": {"file_path": "pipe", "old_string": "a", "new_string": "b"},
                    }
                },
                {
                    "tool_call": {
                        "name": "write",
                        "arguments": {"file_path": "pipe", "content": "x"},
                    }
                },
            ],
            [{"text": "first done"}],
        ],
        [[{"text": ["second answered"]}]],
    ]
    path = tmp_path / "fifo.json"
    path.write_text(json.dumps({"name": "fifo", "turns": turns}))
    async with agent(tmp_path, "--scenario", str(path), "--mode", "full-access") as dsh:
        await dsh.initialize()
        session_id = await new_session(dsh, workspace)
        response, seen = await prompt(dsh, session_id, "go", 3, timeout=20)
        assert response["result"]["stopReason"] == "end_turn"
        final = final_updates(seen)
        assert [final[f"call_{n}"]["status"] for n in (1, 2, 3)] == ["failed"] * 3
        assert all("not a regular file" in json.dumps(final[f"call_{n}"]) for n in (1, 2, 3))
        response, seen = await prompt(dsh, session_id, "again", 4, timeout=20)
        assert response["result"]["stopReason"] == "end_turn"
        assert "second answered" in json.dumps(seen)
        assert dsh.process.stdin is not None
        dsh.process.stdin.close()
        await asyncio.wait_for(dsh.process.wait(), 20)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # nothing replaced it


class HangingTool:
    """A tool stuck in a blocking call that no cancel reaches."""

    name = "hang"
    read_only = True
    description = "hangs"
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    started = threading.Event()
    release = threading.Event()

    def present_call(self, args: Any) -> None:
        return None

    def present_result(self, args: Any, result: Any) -> None:
        return None

    async def execute(self, args: Any, ctx: Any) -> ToolResult:
        def block() -> None:
            self.started.set()
            self.release.wait(60)

        await run_blocking(block)
        return ToolResult("finished")


async def test_a_hung_tool_does_not_wedge_the_session(
    connect: Connect, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent.loop

    hanging = HangingTool()
    monkeypatch.setattr(agent.loop, "ALL_TOOLS", {**ALL_TOOLS, "hang": hanging})
    monkeypatch.setattr(agent.loop, "TOOL_ABANDON_S", 0.2)
    monkeypatch.setattr("agent.session.CANCEL_GRACE_S", 10.0)
    turns = [
        [[{"tool_call": {"name": "hang", "arguments": {}}}], [{"text": "never"}]],
        [[{"text": "second answered"}]],
    ]
    path = tmp_path / "hang.json"
    path.write_text(json.dumps({"name": "hang", "turns": turns}))
    try:
        async with connect(model=scripted(str(path))) as harness:
            sid = await harness.new()
            first = asyncio.create_task(harness.prompt(sid, "go"))
            await asyncio.to_thread(hanging.started.wait, 10)
            await harness.conn.cancel(session_id=sid)
            assert await asyncio.wait_for(first, 10) == "cancelled"
            assert await asyncio.wait_for(harness.prompt(sid, "again"), 10) == "end_turn"
            assert "second answered" in harness.client.text(sid)
            assert harness.client.results(sid)["call_1"]["status"] == "failed"
    finally:
        hanging.release.set()


# --- item 11: read of a huge single-line file ---------------------------------------------------


async def test_read_of_a_300_mb_single_line_file_stays_small(
    tmp_path: Path, workspace: Path
) -> None:
    big = workspace / "big.txt"
    with big.open("wb") as handle:
        block = b"x" * (1024 * 1024)
        for _ in range(300):
            handle.write(block)
    steps = [[{"tool_call": {"name": "read", "arguments": {"file_path": "big.txt"}}}], []]
    scenario = scenario_file(tmp_path, steps)
    async with agent(tmp_path, "--scenario", scenario) as dsh:
        await dsh.initialize()
        session_id = await new_session(dsh, workspace)
        before = dsh.peak_rss()
        response, seen = await prompt(dsh, session_id, "go", 3, timeout=120)
        grown = dsh.peak_rss() - before
    assert response["result"]["stopReason"] == "end_turn"
    text = json.dumps(final_updates(seen)["call_1"])
    assert "line truncated to 2000 characters" in text
    assert "End of file - total 1 lines" in text
    assert grown < 48 * 1024 * 1024, grown


# --- item 15: "allow always" on an outside path ------------------------------------------------


async def test_allow_always_on_an_outside_path_does_not_grant_the_tool_everywhere(
    connect: Connect, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("a.txt", "b.txt"):
        (outside / name).write_text(f"{name}\n")
    reads = [
        {"tool_call": {"name": "read", "arguments": {"file_path": str(outside / name)}}}
        for name in ("a.txt", "a.txt", "b.txt")
    ]
    model = scripted(scenario_file(tmp_path, [reads, [{"text": "done"}]]))
    async with connect(model=model, answer=select("allow-always")) as harness:
        sid = await harness.new()
        assert await harness.prompt(sid, "go") == "end_turn"
        asked = [tool_call.tool_call_id for tool_call, _ in harness.client.permissions()]
        options = harness.client.permissions()[0][1]
    assert asked == ["call_1", "call_3"]  # a.txt again needs no question; b.txt does
    assert os.path.realpath(outside / "a.txt") in options[1].name


class HostileModelServer:
    """An OpenAI-compatible server whose tool calls carry escapes in their ids and names."""

    def __init__(self) -> None:
        self.calls = 0

        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.calls += 1
                if outer.calls == 1:
                    calls = [
                        {
                            "index": n,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": '{"command": "true"}'},
                        }
                        for n, (name, call_id) in enumerate(HOSTILE)
                    ]
                    events = [sse_chunk({"tool_calls": calls}), sse_chunk({}, "tool_calls")]
                else:
                    events = [sse_chunk({"content": "done"}), sse_chunk({}, "stop")]
                body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
                body += b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def sse_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


async def test_a_hostile_openai_compatible_server_cannot_put_escapes_on_the_wire(
    tmp_path: Path, workspace: Path
) -> None:
    server = HostileModelServer()
    try:
        args = ("--provider", "openai", "--base-url", server.base_url, "--model", "m")
        async with agent(tmp_path, *args, "--mode", "full-access") as dsh:
            await dsh.initialize()
            session_id = await new_session(dsh, workspace)
            response, seen = await prompt(dsh, session_id, "go", 3)
    finally:
        server.close()
    assert response["result"]["stopReason"] == "end_turn", response
    for text in strings(seen):
        assert not UNSAFE.search(text), repr(text)
    final = final_updates(seen)
    assert len(final) == 4
    assert all(re.fullmatch(r"[A-Za-z0-9._:+=@-]+", call_id) for call_id in final)
    assert [update["status"] for update in final.values()] == [
        "failed",
        "failed",
        "completed",
        "failed",
    ]
