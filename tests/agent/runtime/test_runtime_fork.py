"""`session/fork` and `session/close`: a fork holds the conversation so far, goes its own way,
and can be loaded by another dsh-agent process; closing releases a session's log."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from runtime_support import Connect, Harness, never
from test_runtime_load import history, load

from agent.log import SessionStore


async def fork(h: Harness, sid: str, cwd: Path | None = None) -> str:
    response = await h.conn.fork_session(session_id=sid, cwd=str(cwd or h.workspace))
    assert response.modes is not None
    assert {o.id for o in response.config_options or []} == {"mode", "model"}
    return response.session_id


async def test_initialize_offers_fork_and_close(connect: Connect) -> None:
    async with connect() as h:
        init = await h.conn.initialize(protocol_version=1)
    caps = init.agent_capabilities
    assert caps is not None and caps.session_capabilities is not None
    assert caps.session_capabilities.fork is not None
    assert caps.session_capabilities.close is not None
    assert caps.session_capabilities.resume is None  # still not offered


async def test_a_fork_holds_the_conversation_and_goes_its_own_way(connect: Connect) -> None:
    async with connect(mode="full-access") as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo one")
        forked = await fork(h, sid)
        assert forked != sid
        # The fork knows the earlier call (its ids go on counting) and takes no new title.
        h.client.clear()
        assert await h.prompt(forked, "$ echo two") == "end_turn"
        assert list(h.client.results(forked)) == ["call_2"]
        assert "session_info_update" not in h.client.kinds(forked)
        # The source never heard of it.
        assert h.client.updates(sid) == []
        assert await h.prompt(sid, "$ echo three") == "end_turn"
        assert list(h.client.results(sid)) == ["call_2"]
        listed = {s.session_id: s.title for s in (await h.conn.list_sessions()).sessions}
    assert listed == {sid: "$ echo one", forked: "$ echo one (fork)"}


async def test_another_process_loads_the_fork_with_the_same_history(
    connect: Connect, tmp_path: Path
) -> None:
    async with connect(mode="full-access") as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo one")
        await h.prompt(sid, "just chatting")
        forked = await fork(h, sid)
        # The source stays open here (its log locked); the fork's log is not held.
        async with connect(mode="full-access") as other:
            replayed_fork = await load(other, forked)
            assert await other.prompt(forked, "$ echo two") == "end_turn"
    async with connect(mode="full-access") as fresh:
        replayed_source = await load(fresh, sid)

    def shown(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [u for u in history(updates) if u["sessionUpdate"] != "session_info_update"]

    assert shown(replayed_fork) == shown(replayed_source)
    events = SessionStore(tmp_path / "sessions").load(forked).events
    assert sum(type(e).__name__ == "UserMessage" for e in events) == 3


async def test_fork_refuses_a_busy_session_an_unknown_id_and_a_bad_cwd(
    connect: Connect, tmp_path: Path
) -> None:
    async with connect() as h:
        sid = await h.new()
        with pytest.raises(RequestError) as missing:
            await h.conn.fork_session(session_id="no-such-session", cwd=str(h.workspace))
        assert missing.value.code == -32002
        with pytest.raises(RequestError) as relative:
            await h.conn.fork_session(session_id=sid, cwd="relative")
        assert relative.value.code == -32602
        with pytest.raises(RequestError, match="not a directory"):
            await h.conn.fork_session(session_id=sid, cwd=str(tmp_path / "gone"))

    async with connect(answer=never) as h:
        sid, running = await h.asking()
        with pytest.raises(RequestError, match="prompt running") as busy:
            await h.conn.fork_session(session_id=sid, cwd=str(h.workspace))
        assert busy.value.code == -32600
        await h.conn.cancel(session_id=sid)
        assert await running == "cancelled"


async def test_close_releases_the_log_and_stops_a_running_turn(connect: Connect) -> None:
    async with connect(answer=never) as h:
        sid = await h.new()
        await h.prompt(sid, "hello")
        async with connect() as other:
            with pytest.raises(RequestError, match="in use"):
                await other.conn.load_session(session_id=sid, cwd=str(h.workspace))
            running = asyncio.create_task(h.prompt(sid, "$ true"))
            await h.client.asked.wait()
            await h.conn.close_session(session_id=sid)
            assert await running == "cancelled"
            await load(other, sid)  # the log is free now
            await h.conn.close_session(session_id=sid)  # twice, or unknown: no error
            await h.conn.close_session(session_id="no-such-session")
            with pytest.raises(RequestError, match="unknown session"):
                await h.prompt(sid, "again")
