"""`session/list` and `session/load` in process: replay before the response, equal to live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from runtime_support import Connect, Harness, never, select

from agent.events import StepEnd, ToolCall, TurnStart, UserMessage
from agent.log import SessionStore

CHROME = {"available_commands_update", "current_mode_update", "config_option_update"}


def history(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The updates that come from session events (not mode, config or command lists)."""
    return [u for u in updates if u["sessionUpdate"] not in CHROME]


async def load(h: Harness, sid: str, cwd: Path | None = None) -> list[dict[str, Any]]:
    """Load `sid`, returning what was sent before the response."""
    h.client.clear()
    response = await h.conn.load_session(session_id=sid, cwd=str(cwd or h.workspace))
    assert response is not None and response.modes is not None
    assert {o.id for o in response.config_options or []} == {"mode", "model"}
    return h.client.updates(sid)


async def record_session(h: Harness) -> tuple[str, list[dict[str, Any]]]:
    (h.workspace / "notes.txt").write_text("alpha\nbeta\n")
    sid = await h.new()
    for prompt in (
        "todo read notes; fix them",
        "read notes.txt",
        "edit notes.txt: beta => gamma",
        "/mode full-access",
        "$ printf 'one\\ntwo\\n'; exit 3",
        "write new.txt: hello",
        "just chatting",
    ):
        await h.prompt(sid, prompt)
    return sid, h.client.updates(sid)


@pytest.mark.parametrize("terminal", [True, False])
async def test_load_in_a_fresh_agent_replays_what_was_shown_live(
    connect: Connect, terminal: bool
) -> None:
    async with connect(terminal=terminal, answer=select("allow-once")) as h:
        sid, live = await record_session(h)
    async with connect(terminal=terminal) as fresh:
        replayed = await load(fresh, sid)
    assert replayed[-1]["sessionUpdate"] == "available_commands_update"
    prompts = [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
    assert prompts[0] == "todo read notes; fix them" and len(prompts) == 7
    shown = [u for u in history(replayed) if u["sessionUpdate"] != "user_message_chunk"]
    assert shown == history(live)


async def test_load_uses_the_loading_clients_terminal_capability(connect: Connect) -> None:
    async with connect(terminal=True, mode="full-access") as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo hi")
    async with connect(terminal=False) as fresh:
        replayed = await load(fresh, sid)
    final = [u for u in replayed if u["sessionUpdate"] == "tool_call_update"][-1]
    assert final["content"][0]["content"]["text"] == "```console\nhi\n```"
    assert "_meta" not in final


async def test_a_loaded_session_continues_the_conversation(connect: Connect) -> None:
    async with connect(mode="full-access") as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo one")
    async with connect(mode="full-access") as fresh:
        await load(fresh, sid)
        fresh.client.clear()
        assert await fresh.prompt(sid, "$ echo two") == "end_turn"
        # The model saw the earlier call, so ids keep counting; no new title either.
        assert list(fresh.client.results(sid)) == ["call_2"]
        assert "session_info_update" not in fresh.client.kinds(sid)
        again = await load(fresh, sid)  # reloading an idle live session works too
    assert [u["toolCallId"] for u in again if u["sessionUpdate"] == "tool_call"] == [
        "call_1",
        "call_2",
    ]


async def test_a_crashed_call_replays_as_failed_with_outcome_unknown(
    connect: Connect, workspace: Path, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "sessions")
    log = store.create("crashed", str(workspace))
    for event in (
        TurnStart(1),
        UserMessage("go"),
        ToolCall("call_1", "bash", '{"command": "make", "description": "Build"}'),
        StepEnd("tool_calls"),
    ):
        log.append(event)
    log.close()
    async with connect(terminal=False) as h:
        replayed = await load(h, "crashed")
        final = h.client.results("crashed")["call_1"]
        assert final["status"] == "failed"
        assert "outcome unknown" in final["content"][0]["content"]["text"]
        assert [u["sessionUpdate"] for u in replayed][:3] == [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
        ]


async def test_load_refuses_a_wrong_cwd_an_unknown_id_and_a_busy_session(
    connect: Connect, tmp_path: Path
) -> None:
    async with connect() as h:
        sid = await h.new()
        await h.prompt(sid, "hello")
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        with pytest.raises(RequestError, match="cwd mismatch") as info:
            await h.conn.load_session(session_id=sid, cwd=str(elsewhere))
        assert info.value.code == -32602
        with pytest.raises(RequestError) as missing:
            await h.conn.load_session(session_id="no-such-session", cwd=str(h.workspace))
        assert missing.value.code == -32002
        with pytest.raises(RequestError):
            await h.conn.load_session(session_id=sid, cwd="relative")

    async with connect(answer=never) as h:
        sid, running = await h.asking()
        with pytest.raises(RequestError, match="prompt running"):
            await h.conn.load_session(session_id=sid, cwd=str(h.workspace))
        await h.conn.cancel(session_id=sid)
        assert await running == "cancelled"


async def test_list_is_newest_first_with_titles(connect: Connect, tmp_path: Path) -> None:
    async with connect() as h:
        first = await h.new()
        await h.prompt(first, "First task")
        second = await h.new()
        await h.prompt(second, "/status")  # a command gives no title...
        await h.prompt(second, "Second task")  # ...the first model turn does
        never_prompted = await h.new()
        listed = (await h.conn.list_sessions()).sessions
        assert [s.session_id for s in listed] == [second, first]
        assert never_prompted not in [s.session_id for s in listed]
        assert [s.title for s in listed] == ["Second task", "First task"]
        # The first prompt, command or not, as typed: it tells same-titled sessions apart.
        assert [(s.field_meta or {}).get("dsh.firstPrompt") for s in listed] == [
            "/status",
            "First task",
        ]
        assert all(s.cwd == str(h.workspace) and s.updated_at for s in listed)
        assert (await h.conn.list_sessions(cwd=str(tmp_path))).sessions == []
        with pytest.raises(RequestError, match="no cursor"):
            await h.conn.list_sessions(cursor="abc")
