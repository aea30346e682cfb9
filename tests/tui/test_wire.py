"""InspectingTransport on a real pipe: framing with a cap, and JSON-RPC refusals that keep the
connection."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, cast

from acp.core import ClientSideConnection
from acp.schema import RequestPermissionResponse

from tui.connection import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    InspectingTransport,
    SessionUpdate,
    TuiClient,
)
from tui.fs import ConfinedFs
from tui.terminal.terminals import TerminalManager


class Written:
    """Stands in for the agent's stdin: what the transport writes, decoded."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data))

    async def drain(self) -> None:
        return None


class Watcher:
    def __init__(self, fail: bool = False) -> None:
        self.inspected: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.sessions: list[str] = []
        self.fail = fail

    def inspect(self, message: dict[str, Any]) -> None:
        self.inspected.append(message)
        if self.fail:
            raise RuntimeError("inspection bug")

    def malformed(self, what: str) -> None:
        self.notes.append(what)

    def session_opened(self, session_id: str) -> None:
        self.sessions.append(session_id)

    def session_answered(self, result: dict[str, Any]) -> None:
        pass


async def through_pipe(
    data: bytes,
    *,
    max_bytes: int = 1 << 20,
    limit: int = 1024,
    watcher: Watcher | None = None,
    before: list[dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[Any], Watcher]:
    """Have a child process write `data` to a pipe; return what came through, what was
    answered, and what the watcher saw."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=limit,
    )
    assert child.stdin is not None and child.stdout is not None
    written = Written()
    seen = watcher or Watcher()
    transport = InspectingTransport(
        child.stdout,
        cast(asyncio.StreamWriter, written),
        watcher=seen,
        max_message_bytes=max_bytes,
    )
    for message in before or []:
        await transport.send(message)
    writer = asyncio.create_task(feed(child.stdin, data))
    received = []
    while (message := await transport.receive()) is not None:
        received.append(message)
    await writer
    await child.wait()
    await asyncio.sleep(0.01)  # the replies are written by tasks
    return received, written.sent[len(before or []) :], seen


async def feed(stdin: asyncio.StreamWriter, data: bytes) -> None:
    stdin.write(data)
    await stdin.drain()
    stdin.close()


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


NOTE = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {}}}


async def test_values_that_are_not_objects_get_invalid_request_and_the_stream_goes_on() -> None:
    data = b"42\n" + b'"x"\n' + b"null\n" + b"{oops\n" + b"\n" + line(NOTE)
    received, sent, watcher = await through_pipe(data)
    assert received == [NOTE]
    assert [reply["error"]["code"] for reply in sent] == [INVALID_REQUEST] * 3 + [PARSE_ERROR]
    assert all(reply["id"] is None for reply in sent)
    assert len(watcher.notes) == 4


async def test_a_batch_gets_the_batch_rules_with_nothing_run() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file", "params": {}},
        NOTE,  # a notification: no reply
        1,
        {"jsonrpc": "2.0", "id": 99, "result": {}},  # a response: no reply
    ]
    received, sent, _ = await through_pipe(line(batch) + b"[]\n" + line(NOTE))
    assert received == [NOTE]
    assert isinstance(sent[0], list)
    assert [(r["id"], r["error"]["code"]) for r in sent[0]] == [
        (7, INVALID_REQUEST),
        (None, INVALID_REQUEST),
    ]
    assert sent[1]["error"]["code"] == INVALID_REQUEST and sent[1]["id"] is None  # empty batch


async def test_a_line_over_the_cap_is_dropped_and_a_request_in_it_answered() -> None:
    big = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "fs/write_text_file",
        "params": {"sessionId": "s", "path": "/x", "content": "a" * 200_000},
    }
    unbroken = b'{"jsonrpc": "2.0", "method": "session/update", "params": "' + b"b" * 300_000
    received, sent, watcher = await through_pipe(
        line(big) + unbroken + b'"}\n' + line(NOTE), max_bytes=100_000, limit=4096
    )
    assert received == [NOTE]
    assert len(sent) == 1 and sent[0]["id"] == 5 and sent[0]["error"]["code"] == INVALID_REQUEST
    assert sum("over the limit of 100000" in note for note in watcher.notes) == 2


async def test_a_broken_answer_to_our_request_fails_that_call_instead_of_the_connection() -> None:
    ours = {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {}}
    broken = {"jsonrpc": "2.0", "id": 3, "error": "boom"}
    stray = {"jsonrpc": "2.0", "id": {"no": "hash"}, "result": 1}
    received, sent, _ = await through_pipe(line(stray) + line(broken) + line(NOTE), before=[ours])
    assert received[0]["id"] == 3 and received[0]["error"]["code"] == INVALID_REQUEST
    assert received[1:] == [NOTE]
    assert sent == []  # responses are never answered


async def test_invalid_params_and_shadowing_meta_are_refused_before_the_sdk() -> None:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/a", "line": -5},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/a", "_meta": {"path": "/etc/passwd"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "terminal/create",
            "params": {"sessionId": "s", "command": "x", "outputByteLimit": -1},
        },
    ]
    shadowed = {**NOTE, "params": {**NOTE["params"], "_meta": {"update": 1, "other": 2}}}
    data = b"".join(line(r) for r in requests) + line(shadowed)
    received, sent, _ = await through_pipe(data)
    assert [(r["id"], r["error"]["code"]) for r in sent] == [(i, INVALID_PARAMS) for i in (1, 2, 3)]
    assert received == [{**shadowed, "params": {**NOTE["params"], "_meta": {"other": 2}}}]


async def test_a_failing_inspection_does_not_end_the_stream() -> None:
    received, _, watcher = await through_pipe(line(NOTE) + line(NOTE), watcher=Watcher(fail=True))
    assert received == [NOTE, NOTE] and len(watcher.inspected) == 2


async def test_sessions_are_learned_from_the_wire() -> None:
    new = {"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {"cwd": "/"}}
    load = {"jsonrpc": "2.0", "id": 1, "method": "session/load", "params": {"sessionId": "old"}}
    answer = {"jsonrpc": "2.0", "id": 0, "result": {"sessionId": "fresh"}}
    _, _, watcher = await through_pipe(line(answer), before=[new, load])
    assert watcher.sessions == ["old", "fresh"]


class Sink:
    """The app's side of TuiClient: what reached it, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        self.events.append(("update", update.session_update))

    def on_unsupported(self, session_id: str, what: str) -> None:
        self.events.append(("note", what))

    async def ask_permission(self, *args: Any) -> RequestPermissionResponse:
        raise AssertionError("no permission is asked here")


def update(kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": kind, **fields}},
    }


async def test_a_note_about_an_update_lands_after_the_updates_before_it(tmp_path: Path) -> None:
    """Both lines arrive in one read: the second one's note must not overtake the first one's
    change, although the SDK applies each update in a task of its own."""
    text = {"type": "text", "text": "hi"}
    data = (
        line(update("agent_message_chunk", content=text))
        + line(update("hologram"))
        + b"{oops\n"
        + line(update("agent_thought_chunk", content=text))
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        f"import sys; sys.stdout.buffer.write({data!r})",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    sink = Sink()
    client = TuiClient(sink, ConfinedFs([tmp_path]), TerminalManager(default_cwd=tmp_path))
    client.session_opened("s")
    transport = InspectingTransport(child.stdout, child.stdin, watcher=client)
    conn = ClientSideConnection(client, transport)
    await child.wait()
    for _ in range(200):
        if len(sink.events) == 4:
            break
        await asyncio.sleep(0.01)
    await conn.close()
    child.stdin.close()
    assert sink.events == [
        ("update", "agent_message_chunk"),
        ("note", "update kind 'hologram'"),
        ("note", "malformed message from the agent (not shown): the line is not valid JSON"),
        ("update", "agent_thought_chunk"),
    ]


async def test_an_oversized_request_whose_id_cannot_be_read_is_dropped_quietly() -> None:
    broken = b'{"jsonrpc": "2.0", "id": "\\u12", "method": "fs/read_text_file", "params": "'
    received, sent, watcher = await through_pipe(
        broken + b"c" * 200_000 + b'"}\n' + line(NOTE), max_bytes=100_000, limit=4096
    )
    assert received == [NOTE] and sent == []
    assert sum("over the limit of 100000" in note for note in watcher.notes) == 1
