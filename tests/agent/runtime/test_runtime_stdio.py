"""End to end over real stdio: `python -m agent.cli` driven by the SDK's own client."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp.core import ClientSideConnection
from acp.schema import ClientCapabilities
from runtime_support import Answer, RecordingClient, select, stdio_agent

CHROME = {"available_commands_update", "current_mode_update", "config_option_update"}


@asynccontextmanager
async def agent(
    tmp_path: Path, *args: str, answer: Answer | None = None, terminal: bool = True
) -> AsyncIterator[tuple[ClientSideConnection, RecordingClient, asyncio.subprocess.Process]]:
    client = RecordingClient(answer) if answer else RecordingClient()
    caps = ClientCapabilities(terminal=terminal, field_meta={"terminal_output": terminal})
    async with stdio_agent(tmp_path, client, *args, capabilities=caps) as (conn, process, _):
        yield conn, client, process


def events_only(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"] not in CHROME]


async def test_demo_then_load_in_a_fresh_process_replays_the_same(
    tmp_path: Path, workspace: Path
) -> None:
    async with agent(tmp_path, "--mode", "full-access") as (conn, client, _):
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        response = await conn.prompt(session_id=sid, prompt=[{"type": "text", "text": "demo"}])  # type: ignore[list-item]
        assert response.stop_reason == "end_turn"
        live = events_only(client.updates(sid))
    assert (workspace / "dsh-demo" / "hello.py").exists()
    assert sum(u["sessionUpdate"] == "tool_call" for u in live) == 9

    async with agent(tmp_path) as (conn, client, _):
        listed = (await conn.list_sessions()).sessions
        assert [(s.session_id, s.title) for s in listed] == [(sid, "demo")]
        loaded = await conn.load_session(session_id=sid, cwd=str(workspace))
        assert loaded is not None and loaded.modes is not None
        assert loaded.modes.current_mode_id == "ask"  # the process's mode, not the log's
        replayed = client.updates(sid)
    assert replayed[0] == {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": "demo"},
    }
    assert replayed[-1]["sessionUpdate"] == "available_commands_update"
    assert events_only(replayed)[1:] == live


async def test_permission_allow_reject_and_cancel(tmp_path: Path, workspace: Path) -> None:
    answers = [select("allow-once"), select("reject-once")]
    asked = asyncio.Event()

    async def answer(tool_call: Any, options: Any) -> Any:
        if answers:
            return await answers.pop(0)(tool_call, options)
        asked.set()
        await asyncio.Event().wait()  # the third question is never answered: cancel it

    async with agent(tmp_path, answer=answer) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(workspace))).session_id

        async def prompt(text: str) -> str:
            block: Any = {"type": "text", "text": text}
            return (await conn.prompt(session_id=sid, prompt=[block])).stop_reason

        assert await prompt("write allowed.txt: yes") == "end_turn"
        assert await prompt("write rejected.txt: no") == "end_turn"
        running = asyncio.create_task(prompt("write cancelled.txt: no"))
        await asyncio.wait_for(asked.wait(), 30)
        await conn.cancel(session_id=sid)
        assert await running == "cancelled"
        results = client.results(sid)
    assert (workspace / "allowed.txt").read_text() == "yes\n"
    assert not (workspace / "rejected.txt").exists()
    assert not (workspace / "cancelled.txt").exists()
    assert [results[f"call_{n}"]["status"] for n in (1, 2, 3)] == [
        "completed",
        "failed",
        "failed",
    ]
    assert len(client.permissions()) == 3


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the live processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append((int(entry), cmdline.decode(errors="replace").strip()))
    return found


async def started_command(parent: int, command: str) -> list[tuple[int, str]]:
    """Poll until the agent has spawned `command` (a safety bound only; no timing asserted)."""
    for _ in range(6000):
        found = [child for child in children(parent) if command in child[1]]
        if found:
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"{command!r} never started")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
async def test_cancel_kills_a_running_command(tmp_path: Path, workspace: Path) -> None:
    async with agent(tmp_path, "--scenario", "slow-command", "--mode", "full-access") as (
        conn,
        client,
        process,
    ):
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        block: Any = {"type": "text", "text": "wait"}
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[block]))
        shell = await started_command(process.pid, "sleep 30")
        await conn.cancel(session_id=sid)
        assert (await running).stop_reason == "cancelled"
        assert not alive(shell[0][0])
        final = client.results(sid)["call_1"]
    # Aborted while it ran: the pane ends as a killed command, with how long it ran.
    assert final["status"] == "failed" and "content" not in final
    assert final["_meta"]["terminal_exit"] == {"terminal_id": "call_1", "signal": "SIGTERM"}
    assert isinstance(final["_meta"]["dsh.duration_ms"], int)


@pytest.mark.parametrize(
    ("mode", "asked", "made"),
    [
        ("ask", ["call_1", "call_2"], set()),
        ("accept-edits", ["call_2"], {"w.txt"}),
        ("full-access", [], {"w.txt", "t"}),
        ("read-only", [], set()),
    ],
)
async def test_each_mode_from_the_command_line(
    tmp_path: Path, workspace: Path, mode: str, asked: list[str], made: set[str]
) -> None:
    async with agent(tmp_path, "--mode", mode, answer=select("reject-once")) as (conn, client, _):
        response = await conn.new_session(cwd=str(workspace))
        assert response.modes is not None and response.modes.current_mode_id == mode
        for text in ("write w.txt: x", "$ touch t"):
            block: Any = {"type": "text", "text": text}
            await conn.prompt(session_id=response.session_id, prompt=[block])
    assert [tc.tool_call_id for tc, _ in client.permissions()] == asked
    assert {p.name for p in workspace.iterdir()} == made


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
async def test_a_client_leaving_mid_command_kills_it_and_closes_the_log(
    tmp_path: Path, workspace: Path
) -> None:
    async with agent(tmp_path, "--scenario", "slow-command", "--mode", "full-access") as (
        conn,
        client,
        process,
    ):
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        block: Any = {"type": "text", "text": "wait"}
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[block]))
        shell = await started_command(process.pid, "sleep 30")
    # Leaving the block closed the agent's stdin and waited for it to exit.
    running.cancel()
    assert process.returncode is not None
    assert not alive(shell[0][0])
    async with agent(tmp_path, terminal=False) as (conn, client, _):
        await conn.load_session(session_id=sid, cwd=str(workspace))
        final = client.results(sid)["call_1"]
    assert final["status"] == "failed"
    assert "dsh-agent stopped" in final["content"][0]["content"]["text"]
