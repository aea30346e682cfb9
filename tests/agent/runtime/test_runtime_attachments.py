"""`@` mentions end to end: the client's own prompt builder, a real `python -m agent.cli` over
stdio, and the session log read back by a fresh process."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp.core import ClientSideConnection
from acp.schema import InitializeResponse
from runtime_support import Connect, RecordingClient, stdio_agent

from tui.fs import ConfinedFs
from tui.prompt.mentions.blocks import PreparedPrompt, build_prompt, embeds_context

PROMPT = "compare @src/app.py with @notes.md"


@asynccontextmanager
async def agent(
    tmp_path: Path,
) -> AsyncIterator[tuple[ClientSideConnection, RecordingClient, InitializeResponse]]:
    client = RecordingClient()
    async with stdio_agent(tmp_path, client) as (conn, _, init):
        yield conn, client, init


def files(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("a = 1\nb = 2\nprint(a + b)\n", encoding="utf-8")
    (workspace / "notes.md").write_text("# notes\n", encoding="utf-8")


def prepare(
    workspace: Path, init: InitializeResponse, *, embedded: bool | None = None
) -> PreparedPrompt:
    advertised = embeds_context(init)
    return build_prompt(
        PROMPT,
        workspace,
        ConfinedFs([workspace]),
        embedded=advertised if embedded is None else embedded,
    )


def logged_user_message(tmp_path: Path, session_id: str) -> dict[str, Any]:
    lines = (tmp_path / "sessions" / f"{session_id}.jsonl").read_text(encoding="utf-8")
    return next(r for r in map(json.loads, lines.splitlines()) if r["type"] == "user/message")


async def test_two_mentions_arrive_as_embedded_resources_and_are_acknowledged(
    tmp_path: Path, workspace: Path
) -> None:
    files(workspace)
    async with agent(tmp_path) as (conn, client, init):
        assert embeds_context(init)
        prepared = prepare(workspace, init)
        assert [block.type for block in prepared.blocks] == ["text", "resource", "resource"]
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        response = await conn.prompt(session_id=sid, prompt=prepared.blocks)  # type: ignore[arg-type]
        assert response.stop_reason == "end_turn"
        reply = client.text(sid)
    assert reply.startswith("attached: `src/app.py`, 3 lines; `notes.md`, 1 line.\n\nYou said:")
    assert "> compare @src/app.py with @notes.md" in reply
    record = logged_user_message(tmp_path, sid)
    assert record["text"] == PROMPT
    assert [(a["label"], a.get("text")) for a in record["attachments"]] == [
        ("src/app.py", "a = 1\nb = 2\nprint(a + b)\n"),
        ("notes.md", "# notes\n"),
    ]


async def test_without_embedded_context_the_mentions_arrive_as_links(
    tmp_path: Path, workspace: Path
) -> None:
    files(workspace)
    async with agent(tmp_path) as (conn, client, init):
        prepared = prepare(workspace, init, embedded=False)
        assert [block.type for block in prepared.blocks] == [
            "text",
            "resource_link",
            "resource_link",
        ]
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        await conn.prompt(session_id=sid, prompt=prepared.blocks)  # type: ignore[arg-type]
        reply = client.text(sid)
    assert reply.startswith(
        "attached: `src/app.py`, linked (not read); `notes.md`, linked (not read).\n\n"
    )
    record = logged_user_message(tmp_path, sid)
    assert [(a["uri"], "text" in a) for a in record["attachments"]] == [
        ((workspace / "src" / "app.py").as_uri(), False),
        ((workspace / "notes.md").as_uri(), False),
    ]


async def test_a_loaded_session_shows_the_attachments_as_the_live_transcript_did(
    tmp_path: Path, workspace: Path
) -> None:
    files(workspace)
    async with agent(tmp_path) as (conn, client, init):
        prepared = prepare(workspace, init)
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        await conn.prompt(session_id=sid, prompt=prepared.blocks)  # type: ignore[arg-type]
        live_reply = client.text(sid)
    async with agent(tmp_path) as (conn, client, _):
        await conn.load_session(session_id=sid, cwd=str(workspace))
        replayed = client.updates(sid)
    assert replayed[0] == {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": prepared.shown},
    }
    assert prepared.shown == (f"{PROMPT}\n\nattached: src/app.py (3 lines), notes.md (1 line)")
    assert client.text(sid) == live_reply


async def test_a_loaded_session_gives_the_model_the_same_context(
    connect: Connect, tmp_path: Path, workspace: Path
) -> None:
    files(workspace)
    prepared = build_prompt(PROMPT, workspace, ConfinedFs([workspace]), embedded=True)
    async with connect() as h:
        sid = await h.new()
        await h.conn.prompt(session_id=sid, prompt=prepared.blocks)  # type: ignore[arg-type]
        live = list(h.agent._sessions[sid].history.messages)
    async with connect() as h:
        await h.conn.load_session(session_id=sid, cwd=str(workspace))
        loaded = h.agent._sessions[sid].history.messages
    assert loaded == live
    assert '<file path="src/app.py" lines="3">\na = 1\n' in live[0]["content"]
