"""No process a bash command starts outlives cancel, stdin close, SIGTERM or session end.

Real `dsh-agent` processes on real pipes run commands that leave daemons of the two usual
shapes: `setsid` after the middle process has exited, and the classic double fork. After
each way of ending, the processes carrying the test's marker are counted: zero.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shlex
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from runtime_support import scenario_file
from wire_support import Agent, agent, final_updates, new_session, prompt

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")


def processes(marker: str, *, shells: bool = True) -> dict[int, int]:
    """Live processes whose command line holds `marker`: pid -> process group. Without
    `shells`, the `bash -c` / `sh -c` lines that merely spell the marker are left out."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if marker.encode() not in cmdline or fields[0] in ("Z", "X"):
            continue
        if not shells and cmdline.split(b"\0")[0] in (b"bash", b"sh", b"/bin/sh"):
            continue
        found[int(entry)] = int(fields[2])
    return found


def marked(marker: str) -> list[int]:
    """Every live process holding `marker`, shells included."""
    return sorted(processes(marker))


def daemons_up(marker: str, count: int) -> Any:
    """`count` marked programs are running, in at least two process groups: the daemon
    has really left the command's group."""

    def check() -> bool:
        found = processes(marker, shells=False)
        return len(found) == count and len(set(found.values())) >= 2

    return check


async def until(predicate: Any, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


def setsid_after_middle_exits(marker: str) -> str:
    # The subshell starts sh and exits at once; sh, orphaned, then moves to its own session.
    return f"( sh -c 'sleep 0.2; exec setsid sleep {marker}' & ) ; echo started"


def double_fork(marker: str) -> str:
    code = (
        "import os, time\n"
        "if os.fork(): os._exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): os._exit(0)\n"
        "os.closerange(0, 3)\n"
        f"time.sleep(1000)  # {marker}\n"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)} ; echo started"


SHAPES = [setsid_after_middle_exits, double_fork]


def new_marker() -> str:
    return f"4{secrets.randbelow(10**6):06d}.{secrets.randbelow(10**6):06d}"


@asynccontextmanager
async def session(
    tmp_path: Path, workspace: Path, commands: list[dict[str, Any]], marker: str
) -> AsyncIterator[tuple[Agent, str]]:
    items = [
        {"tool_call": {"name": "bash", "arguments": {"description": "run", **command}}}
        for command in commands
    ]
    scenario = scenario_file(tmp_path, [items, [{"text": "done"}]])
    try:
        async with agent(tmp_path, "--scenario", scenario, "--mode", "full-access") as dsh:
            await dsh.initialize()
            yield dsh, await new_session(dsh, workspace)
    finally:
        for pid in marked(marker):  # a failing test must not leak its daemons
            os.kill(pid, signal.SIGKILL)


async def cancel(dsh: Agent, session_id: str) -> None:
    await dsh.send(
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}
    )


async def start_prompt(dsh: Agent, session_id: str, request_id: int) -> None:
    await dsh.send(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]},
        }
    )


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
async def test_cancel_kills_the_daemons_a_command_started(
    tmp_path: Path, workspace: Path, shape: Any
) -> None:
    marker = new_marker()
    command = f"{shape(marker)} ; sleep {marker}"
    async with session(tmp_path, workspace, [{"command": command}], marker) as (dsh, sid):
        await start_prompt(dsh, sid, 3)
        await until(daemons_up(marker, 2))
        await cancel(dsh, sid)
        response = await dsh.response(3)
        assert response["result"]["stopReason"] == "cancelled"
        await until(lambda: not marked(marker))
        assert dsh.process.returncode is None  # the agent itself carries on


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
async def test_stdin_close_kills_the_daemons_of_a_running_command(
    tmp_path: Path, workspace: Path, shape: Any
) -> None:
    marker = new_marker()
    command = f"{shape(marker)} ; sleep {marker}"
    async with session(tmp_path, workspace, [{"command": command}], marker) as (dsh, sid):
        await start_prompt(dsh, sid, 3)
        await until(daemons_up(marker, 2))
        assert dsh.process.stdin is not None
        dsh.process.stdin.close()
        await asyncio.wait_for(dsh.process.wait(), 15)
        assert marked(marker) == []


async def test_sigterm_kills_the_daemons_and_the_agent_exits(
    tmp_path: Path, workspace: Path
) -> None:
    marker = new_marker()
    command = f"{double_fork(marker)} ; sleep {marker}"
    async with session(tmp_path, workspace, [{"command": command}], marker) as (dsh, sid):
        await start_prompt(dsh, sid, 3)
        await until(daemons_up(marker, 2))
        dsh.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(dsh.process.wait(), 15)
        assert marked(marker) == []


async def test_a_finished_command_s_daemon_and_background_jobs_end_with_the_session(
    tmp_path: Path, workspace: Path
) -> None:
    marker = new_marker()
    commands = [
        # Ends, leaving a daemon that let go of the command's pipes.
        {"command": f"( sh -c 'sleep 0.2; exec setsid sleep {marker}' >/dev/null 2>&1 & )"},
        {"command": f"{double_fork(marker)} ; sleep {marker}", "run_in_background": True},
    ]
    async with session(tmp_path, workspace, commands, marker) as (dsh, sid):
        response, seen = await prompt(dsh, sid, "go", 3)
        assert response["result"]["stopReason"] == "end_turn"
        final = final_updates(seen)
        assert [final[f"call_{n}"]["status"] for n in (1, 2)] == ["completed", "completed"]
        found = re.search(r"(/\S*dsh-bash-\w+)/output\.log", json.dumps(final["call_2"]))
        assert found is not None
        log_dir = Path(found.group(1))
        await until(daemons_up(marker, 3))  # two daemons and the background sleep
        assert log_dir.is_dir()
        assert dsh.process.stdin is not None
        dsh.process.stdin.close()
        await asyncio.wait_for(dsh.process.wait(), 15)
        assert marked(marker) == []
        assert not log_dir.exists()


def zombie_children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] == "Z":
            found.append(int(entry))
    return found


async def test_orphans_that_end_are_reaped(tmp_path: Path, workspace: Path) -> None:
    marker = new_marker()
    commands = [
        {"command": f"( sh -c 'sleep 0.2; : {marker}' & ) ; ( bash -c 'sleep 0.2' & ) ; echo ok"}
    ]
    async with session(tmp_path, workspace, commands, marker) as (dsh, sid):
        response, _ = await prompt(dsh, sid, "go", 3)
        assert response["result"]["stopReason"] == "end_turn"
        await asyncio.sleep(0.5)  # the orphans end, reparented to dsh-agent
        await until(lambda: not zombie_children(dsh.process.pid), timeout=10)
