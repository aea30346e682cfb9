"""The wire, guarded: a real `dsh-agent` process fed raw lines over real pipes.

Lines that are not JSON-RPC objects, batches, oversized lines and `_meta` keys that shadow
parameters are answered (or dropped) and the connection carries on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wire_support import INIT, agent

from agent.server import MAX_MESSAGE_BYTES


def refused(message: Any, code: int, request_id: Any = None) -> bool:
    return (
        isinstance(message, dict)
        and message.get("id", "missing") == request_id
        and message["error"]["code"] == code
    )


async def test_a_line_that_is_not_an_object_gets_invalid_request(tmp_path: Path) -> None:
    async with agent(tmp_path) as dsh:
        for line in (b"42", b'"x"', b"null", b"true", b"4.5"):
            await dsh.write(line + b"\n")
            assert refused(await dsh.read(), -32600), line
        await dsh.initialize()
        assert dsh.process.returncode is None


async def test_invalid_json_gets_parse_error_and_the_agent_carries_on(tmp_path: Path) -> None:
    async with agent(tmp_path) as dsh:
        for line in (b"{", b'{"jsonrpc": 2.0,}', b"\xff\xfe", b"[" * 100_000):
            await dsh.write(line + b"\n")
            assert refused(await dsh.read(), -32700), line[:20]
        await dsh.initialize()


async def test_batches_follow_the_json_rpc_batch_rules(tmp_path: Path) -> None:
    async with agent(tmp_path) as dsh:
        await dsh.write(b"[]\n")
        assert refused(await dsh.read(), -32600)
        batch = [1, {**INIT, "id": 7}, {"jsonrpc": "2.0", "method": "session/cancel"}, "x"]
        await dsh.send(batch)
        answer = await dsh.read()
        assert isinstance(answer, list)
        assert [error["id"] for error in answer] == [None, 7, None]
        assert all(error["error"]["code"] == -32600 for error in answer)
        # Only notifications: nothing is answered, and the next request still is.
        await dsh.send([{"jsonrpc": "2.0", "method": "session/cancel", "params": {}}])
        await dsh.initialize(2)


async def test_a_bad_envelope_gets_invalid_request(tmp_path: Path) -> None:
    async with agent(tmp_path) as dsh:
        await dsh.send({"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize"})
        assert refused(await dsh.read(), -32600)
        await dsh.send({"jsonrpc": "2.0", "id": 3, "method": ["initialize"]})
        assert refused(await dsh.read(), -32600, 3)
        await dsh.send({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": 5})
        assert refused(await dsh.read(), -32600, 4)
        await dsh.send({"jsonrpc": "2.0", "id": 99, "error": "boom"})  # a bad response
        await dsh.send({"jsonrpc": "2.0", "id": [1], "result": {}})
        await dsh.initialize(5)


async def test_meta_keys_cannot_replace_validated_parameters(
    tmp_path: Path, workspace: Path
) -> None:
    async with agent(tmp_path) as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(workspace), "mcpServers": [], "_meta": {"cwd": "relative"}},
            }
        )
        response = await dsh.response(2)
        assert "result" in response, response
        session_id = response["result"]["sessionId"]
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "session/prompt",
                "params": {
                    "sessionId": session_id,
                    "prompt": [{"type": "text", "text": "/status"}],
                    "_meta": {"session_id": "elsewhere", "prompt": "raw", "trace": "kept"},
                },
            }
        )
        response = await dsh.response(3)
        assert response["result"]["stopReason"] == "end_turn", response


async def test_an_oversized_line_is_dropped_and_memory_stays_bounded(tmp_path: Path) -> None:
    async with agent(tmp_path) as dsh:
        await dsh.initialize()
        before = dsh.peak_rss()
        head = b'{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"x":"'
        await dsh.write(head)
        block = b"x" * (1024 * 1024)
        for _ in range(300):  # 300 MiB with no newline: over the 64 MiB cap
            await dsh.write(block)
        await dsh.write(b'"}}\n')
        answer = await dsh.response(9, timeout=120)
        assert answer["error"]["code"] == -32600
        assert str(MAX_MESSAGE_BYTES) in answer["error"]["data"]["reason"]
        await dsh.initialize(10)
        grown = dsh.peak_rss() - before
        assert grown < MAX_MESSAGE_BYTES + 96 * 1024 * 1024, grown
        # A line just under the cap still gets through (and is a plain bad request).
        await dsh.write(b'{"jsonrpc":"2.0","id":11,"method":"initialize","params":{"p":"')
        await dsh.write(b"y" * (8 * 1024 * 1024) + b'"}}\n')
        assert refused(await dsh.response(11), -32602, 11)
