"""The user's MCP servers over real pipes: what session/new, session/load and session/resume
carry, which transports an agent is given, and the secrets kept out of recordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted import SETTINGS, notices, replies, script_app

from support import wait_until
from tui.user_config import McpServer
from tui.widgets.capabilities import CapabilitiesScreen

FILES = McpServer("files", "stdio", "mcp-files", ("--root", "."), (("FILES_TOKEN", "s3cret"),))
DOCS = McpServer(
    "docs", "http", url="https://docs.test/mcp", headers=(("Authorization", "Bearer hdr"),)
)
SEARCH = McpServer("search", "sse", url="https://search.test/sse")
SERVERS = (FILES, DOCS, SEARCH)


def sessions(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_session_new_carries_the_servers_the_agent_can_take(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {"prompts": [[]], "sessionLog": str(log), "mcpCapabilities": {"http": True}}
    record = tmp_path / "wire.jsonl"
    app = script_app(tmp_path, script, mcp_servers=SERVERS, record=record)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        (new,) = sessions(log)
        assert new["method"] == "session/new"
        assert new["mcpServers"] == [
            {
                "name": "files",
                "command": "mcp-files",
                "args": ["--root", "."],
                "env": [{"name": "FILES_TOKEN", "value": "s3cret"}],
            },
            {
                "type": "http",
                "name": "docs",
                "url": "https://docs.test/mcp",
                "headers": [{"name": "Authorization", "value": "Bearer hdr"}],
            },
        ]
        await wait_until(pilot, lambda: any("search" in text for text in notices(app)), timeout=60)
        skipped = [text for text in notices(app) if "MCP server" in text]
        assert skipped == [
            "MCP server search not passed: the agent does not advertise mcpCapabilities.sse"
        ]
        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: isinstance(app.screen, CapabilitiesScreen), timeout=60)
        shown = str(app.screen.query_one(".consequences").render())
        assert "MCP servers passed to the session: files, docs" in shown
        await app.action_quit()
    # The agent got the secrets; the recording, and so the inspector's tap, did not.
    wire = record.read_text()
    assert '"mcpServers"' in wire
    assert "s3cret" not in wire and "Bearer hdr" not in wire
    inspected = [m for m in app.controller.traffic._messages if m.summary.label == "session/new"]
    assert len(inspected) == 1 and b"s3cret" not in inspected[0].raw
    assert b'"mcpServers"' in inspected[0].raw


async def test_no_http_server_goes_to_an_agent_without_mcp_capabilities(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    app = script_app(tmp_path, {"prompts": [[]], "sessionLog": str(log)}, mcp_servers=SERVERS)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        (new,) = sessions(log)
        assert [server["name"] for server in new["mcpServers"]] == ["files"]
        await wait_until(
            pilot, lambda: len([t for t in notices(app) if "MCP" in t]) == 2, timeout=60
        )
        await app.action_quit()


async def test_session_load_carries_the_servers(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {"prompts": [[]], "sessionLog": str(log), "load": []}
    app = script_app(tmp_path, script, mcp_servers=(FILES,), resume="old-1")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        (loaded,) = sessions(log)
        assert (loaded["method"], loaded["sessionId"]) == ("session/load", "old-1")
        assert [server["name"] for server in loaded["mcpServers"]] == ["files"]
        assert not any("replay" in text for text in notices(app))
        await app.action_quit()


async def test_resume_uses_session_resume_when_the_agent_cannot_load(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {"prompts": [[]], "sessionLog": str(log), "resume": True}
    app = script_app(tmp_path, script, mcp_servers=(FILES,), resume="old-2")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        (resumed,) = sessions(log)
        assert (resumed["method"], resumed["sessionId"]) == ("session/resume", "old-2")
        assert [server["name"] for server in resumed["mcpServers"]] == ["files"]
        assert app.controller.session is not None
        assert app.controller.session.session_id == "old-2"
        await wait_until(
            pilot, lambda: any("did not replay" in text for text in notices(app)), timeout=60
        )
        assert app.controller.retry_resume() == "old-2"  # Ctrl+R and a retry resume it again
        await app.action_quit()


async def test_a_named_agents_mode_is_set_and_an_unoffered_model_is_named(
    tmp_path: Path,
) -> None:
    script = {"prompts": [[]], **SETTINGS}
    app = script_app(tmp_path, script, agent_mode="full", agent_model="nope")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: "mode set: full" in replies(app), timeout=60)
        await wait_until(
            pilot, lambda: any("model nope is not offered" in t for t in notices(app)), timeout=60
        )
        await app.action_quit()
