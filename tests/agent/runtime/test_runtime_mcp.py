"""MCP servers a client passes: real servers (the SDK's server API) on stdio and streamable
HTTP, connected by the real agent; their tools driven by the offline model's `mcp` command.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer
from runtime_support import Connect, Harness, select
from test_runtime_procs import processes, until
from wire_support import agent, prompt

from agent.mcp.hub import TIMEOUT_ENV

HERE = Path(__file__).parent
PROBE = HERE / "mcp_probe_server.py"
SILENT = HERE / "mcp_silent_server.py"

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")


def stdio_server(marks: Path, name: str = "probe") -> McpServerStdio:
    marks.mkdir(parents=True, exist_ok=True)
    return McpServerStdio(
        name=name,
        command=sys.executable,
        args=[str(PROBE), str(marks)],
        env=[EnvVariable(name="PYTHONUNBUFFERED", value="1")],
    )


def silent_server() -> McpServerStdio:
    return McpServerStdio(name="silent", command=sys.executable, args=[str(SILENT)], env=[])


async def open_session(harness: Harness, *servers: Any) -> str:
    response = await harness.conn.new_session(cwd=str(harness.workspace), mcp_servers=list(servers))
    await asyncio.sleep(0)
    return response.session_id


def calls(harness: Harness, session_id: str) -> list[dict[str, Any]]:
    return [u for u in harness.client.updates(session_id) if u["sessionUpdate"] == "tool_call"]


def last_result(harness: Harness, session_id: str) -> dict[str, Any]:
    return list(harness.client.results(session_id).values())[-1]


async def test_initialize_advertises_http_and_sse(connect: Connect) -> None:
    async with connect() as harness:
        init = await harness.conn.initialize(protocol_version=1)
        caps = init.agent_capabilities
        assert caps is not None and caps.mcp_capabilities is not None
        assert (caps.mcp_capabilities.http, caps.mcp_capabilities.sse) == (True, True)


async def test_mcp_lists_the_servers_and_their_tools(connect: Connect, tmp_path: Path) -> None:
    async with connect() as harness:
        sid = await open_session(harness, stdio_server(tmp_path / "marks"))
        assert await harness.prompt(sid, "mcp") == "end_turn"
        text = harness.client.text(sid)
        assert "- `probe`: `echo`, `picture`, `measure`, `fails`, `write_note`, `slow`" in text
        assert "`crash`" in text


async def test_a_read_only_call_runs_unasked_with_a_read_card(
    connect: Connect, tmp_path: Path
) -> None:
    async with connect() as harness:
        sid = await open_session(harness, stdio_server(tmp_path / "marks"))
        await harness.prompt(sid, 'mcp probe echo {"text": "hi there"}')
        assert harness.client.permissions() == []
        (call,) = calls(harness, sid)
        assert call["title"] == "probe · echo"
        assert call["kind"] == "read"
        assert call["rawInput"] == {"text": "hi there"}
        result = last_result(harness, sid)
        assert result["status"] == "completed"
        assert result["content"] == [
            {"type": "content", "content": {"type": "text", "text": "hi there"}}
        ]


async def test_images_resources_and_structured_content_become_acp_blocks(
    connect: Connect, tmp_path: Path
) -> None:
    async with connect() as harness:
        sid = await open_session(harness, stdio_server(tmp_path / "marks"))
        await harness.prompt(sid, "mcp probe picture")
        content = last_result(harness, sid)["content"]
        assert content[0]["content"]["type"] == "image"
        assert content[0]["content"]["mimeType"] == "image/png"
        assert content[1]["content"] == {
            "type": "resource",
            "resource": {
                "uri": "file:///notes/readme.txt",
                "text": "hello from a resource",
                "mimeType": "text/plain",
            },
        }
        await harness.prompt(sid, 'mcp probe measure {"n": 21}')
        blocks = [block["content"]["text"] for block in last_result(harness, sid)["content"]]
        assert any(json.loads(text) == {"n": 21, "double": 42} for text in blocks)


async def test_an_error_result_fails_the_card(connect: Connect, tmp_path: Path) -> None:
    async with connect() as harness:
        sid = await open_session(harness, stdio_server(tmp_path / "marks"))
        await harness.prompt(sid, "mcp probe fails")
        result = last_result(harness, sid)
        assert result["status"] == "failed"
        assert "fails" in json.dumps(result["content"])


async def test_ask_mode_asks_and_a_rejection_leaves_the_tool_uncalled(
    connect: Connect, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    async with connect(answer=select("reject-once")) as harness:
        sid = await open_session(harness, stdio_server(marks))
        await harness.prompt(sid, 'mcp probe write_note {"text": "x"}')
        (asked,) = harness.client.permissions()
        assert asked[0].title == "probe · write_note"
        assert calls(harness, sid)[0]["kind"] == "delete"
        assert last_result(harness, sid)["status"] == "failed"
        assert not (marks / "note").exists()


async def test_allow_always_covers_that_server_and_tool_only(
    connect: Connect, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    async with connect(answer=select("allow-always")) as harness:
        sid = await open_session(harness, stdio_server(marks))
        await harness.prompt(sid, 'mcp probe write_note {"text": "one"}')
        await harness.prompt(sid, 'mcp probe write_note {"text": "two"}')
        assert len(harness.client.permissions()) == 1
        assert (marks / "note").read_text() == "two"
        harness.client.answer = select("reject-once")
        await harness.prompt(sid, "mcp probe crash")  # another tool: asked again
        assert len(harness.client.permissions()) == 2


async def test_read_only_mode_refuses_tools_not_marked_read_only(
    connect: Connect, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    async with connect(mode="read-only") as harness:
        sid = await open_session(harness, stdio_server(marks))
        await harness.prompt(sid, 'mcp probe write_note {"text": "x"}')
        result = last_result(harness, sid)
        assert result["status"] == "failed"
        assert "read-only" in json.dumps(result["content"])
        assert not (marks / "note").exists()
        await harness.prompt(sid, 'mcp probe echo {"text": "fine"}')
        assert last_result(harness, sid)["status"] == "completed"


async def test_cancel_mid_call_cancels_the_request_on_the_server(
    connect: Connect, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    async with connect(mode="full-access") as harness:
        sid = await open_session(harness, stdio_server(marks))
        turn = asyncio.ensure_future(harness.prompt(sid, "mcp probe slow"))
        await until(lambda: (marks / "slow-started").exists())
        await harness.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 30) == "cancelled"
        await until(lambda: (marks / "slow-cancelled").exists())
        await until(lambda: harness.client.results(sid) != {})
        result = last_result(harness, sid)
        assert result["status"] == "failed"
        assert "cancelled" in json.dumps(result["content"])
        await harness.prompt(sid, 'mcp probe echo {"text": "still here"}')
        assert last_result(harness, sid)["status"] == "completed"


async def test_a_server_that_dies_mid_call_fails_the_card_and_is_reconnected(
    connect: Connect, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    async with connect(mode="full-access") as harness:
        sid = await open_session(harness, stdio_server(marks))
        await harness.prompt(sid, "mcp probe crash")
        result = last_result(harness, sid)
        assert result["status"] == "failed"
        assert "probe: dying on purpose" in json.dumps(result["content"])
        await harness.prompt(sid, 'mcp probe echo {"text": "back"}')
        result = last_result(harness, sid)
        assert result["status"] == "completed", result
        assert len(list(marks.glob("pid-*"))) == 2  # a new server process


async def test_a_server_that_never_answers_gets_one_notice_and_the_rest_work(
    connect: Connect, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "15")  # the probe, importing the SDK, must make it
    async with connect() as harness:
        sid = await open_session(harness, silent_server(), stdio_server(tmp_path / "marks"))
        await until(lambda: "silent" in harness.client.text(sid))
        text = harness.client.text(sid)
        assert text.count("MCP server silent failed to start") == 1
        assert "no answer within 15 s" in text and "silent: started" in text
        await harness.prompt(sid, 'mcp probe echo {"text": "ok"}')
        assert last_result(harness, sid)["status"] == "completed"
    assert processes(str(SILENT)) == {}


async def test_prompts_are_slash_commands(connect: Connect, tmp_path: Path) -> None:
    async with connect() as harness:
        sid = await open_session(harness, stdio_server(tmp_path / "marks"))
        await until(lambda: "available_commands_update" in harness.client.kinds(sid))
        kind = "available_commands_update"
        (update,) = [u for u in harness.client.updates(sid) if u["sessionUpdate"] == kind]
        names = [command["name"] for command in update["availableCommands"]]
        assert "probe:review" in names
        await harness.prompt(sid, "/probe:review src/app.py")
        assert "Please review src/app.py." in harness.client.text(sid)


async def test_load_replays_mcp_cards_equal_to_live(connect: Connect, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    async with connect(mode="full-access") as harness:
        sid = await open_session(harness, stdio_server(marks))
        for text in ['mcp probe echo {"text": "a"}', "mcp probe picture", "mcp probe fails"]:
            await harness.prompt(sid, text)
        live = [
            u
            for u in harness.client.updates(sid)
            if u["sessionUpdate"] in ("tool_call", "tool_call_update")
        ]
        harness.client.clear()
        await harness.conn.load_session(
            cwd=str(harness.workspace), session_id=sid, mcp_servers=[stdio_server(marks)]
        )
        replayed = [
            u
            for u in harness.client.updates(sid)
            if u["sessionUpdate"] in ("tool_call", "tool_call_update")
        ]
        assert len(live) == 6
        assert replayed == live
        # The loaded session has its servers again (a new process), and goes on.
        assert len(list(marks.glob("pid-*"))) == 2
        await harness.prompt(sid, 'mcp probe echo {"text": "after load"}')
        assert last_result(harness, sid)["content"][0]["content"]["text"] == "after load"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(params=["http", "sse"])
def http_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A probe server on a free loopback port: (transport, url)."""
    transport: str = request.param
    marks = tmp_path / "http-marks"
    marks.mkdir()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(PROBE), str(marks), f"--{transport}", str(port)],
        stderr=(tmp_path / "http-server.log").open("wb"),
    )
    try:
        for _ in range(600):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                raise AssertionError((tmp_path / "http-server.log").read_text())
            subprocess.run(["sleep", "0.05"], check=True)
        path = "/mcp" if transport == "http" else "/sse"
        yield transport, f"http://127.0.0.1:{port}{path}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


async def test_streamable_http_and_sse_servers_list_and_call(
    connect: Connect, http_server: tuple[str, str]
) -> None:
    transport, url = http_server
    async with connect() as harness:
        header = [HttpHeader(name="X-Probe", value="1")]
        server: HttpMcpServer | SseMcpServer = (
            HttpMcpServer(type="http", name="web docs", url=url, headers=header)
            if transport == "http"
            else SseMcpServer(type="sse", name="web docs", url=url, headers=header)
        )
        sid = await open_session(harness, server)
        await harness.prompt(sid, "mcp")
        assert "- `web_docs`: `echo`" in harness.client.text(sid)
        await harness.prompt(sid, 'mcp web_docs echo {"text": "over http"}')
        (call,) = calls(harness, sid)
        assert call["title"] == "web docs · echo"
        assert last_result(harness, sid)["content"][0]["content"]["text"] == "over http"


async def test_no_server_process_outlives_the_agent(tmp_path: Path) -> None:
    """Over the agent's real pipes: the server runs while the session does, and the agent's
    exit (stdin closed) stops it, its whole process tree."""
    marks = tmp_path / "marks"
    server = stdio_server(marks).model_dump(by_alias=True, exclude_none=True)
    workspace = tmp_path / "work"
    workspace.mkdir()
    async with agent(tmp_path, "--mode", "full-access") as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(workspace), "mcpServers": [server]},
            }
        )
        sid = (await dsh.response(2))["result"]["sessionId"]
        assert processes(str(marks)) != {}
        reply, seen = await prompt(dsh, sid, 'mcp probe echo {"text": "x"}', 3)
        assert reply["result"]["stopReason"] == "end_turn"
        assert any("probe · echo" in json.dumps(m, ensure_ascii=False) for m in seen)
    await until(lambda: processes(str(marks)) == {})


async def test_a_failed_server_s_notice_follows_the_session_new_answer(tmp_path: Path) -> None:
    """A client drops updates for a session it does not know yet: the notice comes after the
    answer that names the session, over the agent's real pipes."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    missing = {"name": "gone", "command": str(tmp_path / "no-such-server"), "args": [], "env": []}
    async with agent(tmp_path) as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(workspace), "mcpServers": [missing]},
            }
        )
        first = await dsh.read()
        assert first.get("id") == 2 and "sessionId" in first["result"]
        notice = await dsh.read()
        text = notice["params"]["update"]["content"]["text"]
        assert "MCP server gone failed to start" in text and "no-such-server" in text
