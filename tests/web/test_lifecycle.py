"""A page's app lives as long as its WebSocket: closing it ends the app, the agent and their
commands; Ctrl+C on serve ends every session; --max-sessions turns the next page away, saying
so. WebSocket clients here stand in for pages (tests/web/test_page.py closes a real one)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
from served import Served, wait_until

from dsh_common.proc_tree import scan
from tui.serve.reaper import kill_tree, tree

Serve = Callable[..., Served]


def ws_url(served: Served) -> str:
    return "ws" + served.url.removeprefix("http") + "ws?width=100&height=30"


@contextlib.asynccontextmanager
async def page_socket(
    client: aiohttp.ClientSession, served: Served
) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    async with client.ws_connect(ws_url(served), headers={"Origin": served.origin}) as socket:
        yield socket


async def read_until(socket: aiohttp.ClientWebSocketResponse, wanted: bytes) -> bytes:
    """What the app drew, until `wanted` is in it (the page's terminal gets these bytes)."""
    seen = b""
    while wanted not in seen:
        message = await socket.receive(timeout=60)
        if message.type == aiohttp.WSMsgType.BINARY:
            seen += message.data
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            raise AssertionError(f"closed before {wanted!r}; got {seen[-2000:]!r}")
    return seen


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def agents_below(served: Served) -> set[int]:
    return {pid for pid in served.tree() if "dsh-agent" in command_line(pid)}


async def test_closing_the_page_ends_its_app_and_agent(serve: Serve) -> None:
    served = serve()
    async with aiohttp.ClientSession() as client, page_socket(client, served) as socket:
        await read_until(socket, b"dsh-agent 0.1.0")  # the agent answered: both run
        running = served.tree()
        assert agents_below(served), "no agent below serve"
        assert len(running) >= 2
    wait_until(lambda: not served.tree(), 30, "the app and its agent to end")
    assert served.process.poll() is None  # serve itself goes on, for the next page


async def test_ctrl_c_ends_every_session(serve: Serve) -> None:
    served = serve()
    async with (
        aiohttp.ClientSession() as client,
        page_socket(client, served) as first,
        page_socket(client, served) as second,
    ):
        await read_until(first, b"dsh-agent 0.1.0")
        await read_until(second, b"dsh-agent 0.1.0")
        assert len(agents_below(served)) == 2
        assert served.interrupt() == 0
    assert not served.alive_seen()
    assert "Traceback" not in "\n".join(served.lines)


async def test_a_full_server_says_so_and_takes_the_next_page_later(serve: Serve) -> None:
    served = serve(serve_args=["--max-sessions", "1"])
    async with aiohttp.ClientSession() as client:
        async with page_socket(client, served) as first:
            await read_until(first, b"dsh-agent 0.1.0")
            async with client.get(served.url, headers={"Origin": served.origin}) as page:
                assert page.status == 503
                assert "All 1 sessions are in use" in await page.text()
            async with page_socket(client, served) as turned_away:
                said = await turned_away.receive(timeout=30)
                assert b"dsh-tui serve is full: all 1 sessions are in use" in said.data
                assert (await turned_away.receive(timeout=30)).type in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSED,
                )
            assert len(agents_below(served)) == 1
        wait_until(lambda: not served.tree(), 30, "the first page's app to end")
        await admitted_within(client, served, 30)


async def admitted_within(client: aiohttp.ClientSession, served: Served, timeout: float) -> None:
    """A page gets in once serve's event loop has heard that the app ended (the process table
    can say so a moment before): retried, never more than `timeout` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        async with page_socket(client, served) as again:
            first = await again.receive(timeout=60)
            if first.type == aiohttp.WSMsgType.BINARY and b"is full" not in first.data:
                if b"dsh-agent 0.1.0" not in first.data:
                    await read_until(again, b"dsh-agent 0.1.0")
                return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"still turned away {timeout} s after the page closed")
        await asyncio.sleep(0.1)


def test_kill_tree_reaches_a_daemon_that_left_the_session() -> None:
    """The fallback for an app that does not quit: its children, a grandchild that called
    setsid, all end; nothing of the tree is left."""
    script = (
        "import os, subprocess, sys, time\n"
        "subprocess.Popen(['sleep', '600'])\n"
        "subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
        "print('ready', flush=True)\n"
        "time.sleep(600)\n"
    )
    root = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert root.stdout is not None and root.stdout.readline() == "ready\n"
        below = tree(root.pid, scan() or {})
        assert len(below) == 3  # python, sleep, the setsid sleep
        assert kill_tree(root.pid) == below
        root.wait(10)
        wait_until(lambda: not tree(root.pid, scan() or {}) & below, 10, "the tree to be gone")
    finally:
        root.kill()
        root.wait()
    assert kill_tree(root.pid) == set()  # an ended tree: nothing to do
