"""The agent's ACP surface in process: sessions, prompts, permissions, modes, config, cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import (
    DeniedOutcome,
    ImageContentBlock,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)
from runtime_support import Connect, dismiss, scenario_file, scripted, select

from agent.models.config import ModelSettings
from agent.models.offline import HELP


async def test_initialize_advertises_load_and_list(connect: Connect) -> None:
    async with connect() as h:
        response = await h.conn.initialize(protocol_version=1)
        caps = response.agent_capabilities
        assert caps is not None and caps.load_session is True
        assert caps.session_capabilities is not None
        assert caps.session_capabilities.list is not None
        assert caps.prompt_capabilities is not None and not caps.prompt_capabilities.image


async def test_new_session_offers_modes_config_and_commands(connect: Connect) -> None:
    async with connect(mode="accept-edits") as h:
        response = await h.conn.new_session(cwd=str(h.workspace))
        assert not h.client.events  # the commands follow the response
        await asyncio.sleep(0)
        modes = response.modes
        assert modes is not None and modes.current_mode_id == "accept-edits"
        assert [m.id for m in modes.available_modes] == [
            "ask",
            "accept-edits",
            "full-access",
            "read-only",
        ]
        options = {o.id: o for o in response.config_options or []}
        assert options["mode"].current_value == "accept-edits"
        assert options["model"].current_value == "offline"
        assert "deepseek-chat" in [o.value for o in options["model"].options]  # type: ignore[union-attr]
        [update] = h.client.updates(response.session_id)
        assert update["sessionUpdate"] == "available_commands_update"
        names = [c["name"] for c in update["availableCommands"]]
        assert names == ["help", "demo", "mode", "model", "status", "permissions"]


@pytest.mark.parametrize("cwd", ["relative/dir", "/no/such/dir"])
async def test_new_session_needs_an_absolute_directory(connect: Connect, cwd: str) -> None:
    async with connect() as h:
        with pytest.raises(RequestError) as info:
            await h.conn.new_session(cwd=cwd)
        assert info.value.code == -32602


async def test_empty_and_image_prompts_are_refused(connect: Connect) -> None:
    async with connect() as h:
        sid = await h.new()
        with pytest.raises(RequestError, match="empty"):
            await h.prompt(sid, "  \n")
        image = ImageContentBlock(type="image", mime_type="image/png", data="AAAA")
        with pytest.raises(RequestError, match="image"):
            await h.conn.prompt(session_id=sid, prompt=[image])


async def test_first_prompt_titles_the_session(connect: Connect) -> None:
    async with connect() as h:
        sid = await h.new()
        assert await h.prompt(sid, "\n  please   echo this\nsecond line") == "end_turn"
        infos = [u for u in h.client.updates(sid) if u["sessionUpdate"] == "session_info_update"]
        assert infos == [{"sessionUpdate": "session_info_update", "title": "please echo this"}]
        assert "offline mode" in h.client.text(sid)
        assert "please   echo this" in h.client.text(sid)
        assert not any(k == "user_message_chunk" for k in h.client.kinds(sid))  # client has it
        h.client.clear()
        await h.prompt(sid, "again")
        assert "session_info_update" not in h.client.kinds(sid)


# --- permissions ------------------------------------------------------------------------------


def order(h: Any, sid: str) -> list[str]:
    """tool_call / permission / final update, in the order the client saw them."""
    seen = []
    for kind, session_id, payload in h.client.events:
        if session_id != sid:
            continue
        if kind == "permission":
            seen.append(f"ask {payload[0].tool_call_id}")
        elif payload.session_update == "tool_call":
            seen.append(f"call {payload.tool_call_id}")
        elif payload.session_update == "tool_call_update" and payload.status:
            seen.append(f"{payload.status} {payload.tool_call_id}")
    return seen


async def test_allow_once_runs_the_call_after_asking(connect: Connect) -> None:
    async with connect(answer=select("allow-once")) as h:
        sid = await h.new()
        assert await h.prompt(sid, "write a.txt: hello") == "end_turn"
        assert (h.workspace / "a.txt").read_text() == "hello\n"
        assert order(h, sid) == ["call call_1", "ask call_1", "completed call_1"]
        tool_call, options = h.client.permissions()[0]
        assert tool_call.title == "Write a.txt"
        assert [o.option_id for o in options] == ["allow-once", "allow-always", "reject-once"]
        assert "Done." in h.client.text(sid)


async def test_reject_does_not_run_the_call(connect: Connect) -> None:
    async with connect(answer=select("reject-once")) as h:
        sid = await h.new()
        assert await h.prompt(sid, "$ touch made.txt") == "end_turn"
        assert not (h.workspace / "made.txt").exists()
        assert order(h, sid) == ["call call_1", "ask call_1", "failed call_1"]
        final = h.client.results(sid)["call_1"]
        assert "the user rejected this bash call" in str(final["content"])
        assert "rejected" in h.client.text(sid)


async def test_allow_always_stops_asking_for_that_tool(connect: Connect) -> None:
    async with connect(answer=select("allow-always")) as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo one")
        await h.prompt(sid, "$ echo two")
        await h.prompt(sid, "write b.txt: x")
        asked = [tc.tool_call_id for tc, _ in h.client.permissions()]
        assert asked == ["call_1", "call_3"]  # bash once, then write once


async def test_permissions_command_lists_and_revokes_grants(connect: Connect) -> None:
    """`/permissions` over ACP: the grant is listed, `revoke 1` removes it, and the next
    call of that tool asks again."""
    async with connect(answer=select("allow-always")) as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo one")
        await h.prompt(sid, "/permissions")
        assert "1. `bash` in the workspace" in h.client.text(sid)
        await h.prompt(sid, "$ echo two")  # granted: no question
        await h.prompt(sid, "/permissions revoke 1")
        assert "Revoked: `bash` in the workspace" in h.client.text(sid)
        await h.prompt(sid, "$ echo three")
        asked = [tc.tool_call_id for tc, _ in h.client.permissions()]
        assert asked == ["call_1", "call_3"]  # asked again once revoked
        await h.prompt(sid, "/permissions revoke all")
        assert "Revoked 1 grant" in h.client.text(sid)


async def test_unknown_option_is_a_rejection(connect: Connect) -> None:
    async with connect(answer=select("yes-please")) as h:
        sid = await h.new()
        await h.prompt(sid, "write a.txt: x")
        assert not (h.workspace / "a.txt").exists()
        assert h.client.results(sid)["call_1"]["status"] == "failed"


async def test_a_failed_permission_request_is_a_rejection(connect: Connect) -> None:
    async def broken(tool_call: ToolCallUpdate, options: list[PermissionOption]) -> Any:
        raise RuntimeError("the dialog crashed")

    async with connect(answer=broken) as h:
        sid = await h.new()
        assert await h.prompt(sid, "write a.txt: x") == "end_turn"
        assert not (h.workspace / "a.txt").exists()
        assert h.client.results(sid)["call_1"]["status"] == "failed"


async def test_a_dismissed_request_does_not_run_the_call(connect: Connect) -> None:
    async with connect(answer=dismiss) as h:
        sid = await h.new()
        assert await h.prompt(sid, "write a.txt: x") == "end_turn"
        assert not (h.workspace / "a.txt").exists()
        assert "dismissed" in str(h.client.results(sid)["call_1"]["content"])


async def test_cancel_while_asking_ends_the_turn_cancelled(connect: Connect) -> None:
    async def never(tool_call: ToolCallUpdate, options: list[PermissionOption]) -> Any:
        await asyncio.Event().wait()

    async with connect(answer=never) as h:
        sid = await h.new()
        prompt = asyncio.create_task(h.prompt(sid, "write a.txt: x"))
        await h.client.asked.wait()
        with pytest.raises(RequestError, match="already running"):
            await h.prompt(sid, "another")
        await h.conn.cancel(session_id=sid)
        assert await prompt == "cancelled"
        assert not (h.workspace / "a.txt").exists()
        final = h.client.results(sid)["call_1"]
        assert final["status"] == "failed"
        assert "aborted before dispatch" in str(final["content"])
        # The session takes prompts again.
        assert await h.prompt(sid, "help") == "end_turn"


async def test_a_cancel_waits_for_the_open_question_to_be_settled(connect: Connect) -> None:
    """A question and a cancel can cross on the wire: the turn's answer waits until the client
    has settled the question (ACP: the turn ends once its operations are aborted)."""
    cancel_sent = asyncio.Event()
    order: list[str] = []

    async def late(tool_call: ToolCallUpdate, options: list[PermissionOption]) -> Any:
        await cancel_sent.wait()
        await asyncio.sleep(0.2)
        order.append("question settled")
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async with connect(answer=late) as h:
        sid = await h.new()
        prompt = asyncio.create_task(h.prompt(sid, "write a.txt: x"))
        await h.client.asked.wait()
        await h.conn.cancel(session_id=sid)
        cancel_sent.set()
        assert await prompt == "cancelled"
        order.append("prompt answered")
        assert order == ["question settled", "prompt answered"]
        assert not (h.workspace / "a.txt").exists()


# --- modes ------------------------------------------------------------------------------------


async def test_ask_mode_asks_for_edits_and_commands_not_reads(connect: Connect) -> None:
    async with connect(mode="ask") as h:
        (h.workspace / "r.txt").write_text("one\n")
        sid = await h.new()
        await h.prompt(sid, "read r.txt")
        assert h.client.permissions() == []
        await h.prompt(sid, "edit r.txt: one => two")
        await h.prompt(sid, "$ true")
        assert [tc.tool_call_id for tc, _ in h.client.permissions()] == ["call_2", "call_3"]


async def test_accept_edits_mode_allows_workspace_edits_and_asks_for_commands(
    connect: Connect, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    async with connect(mode="accept-edits") as h:
        sid = await h.new()
        await h.prompt(sid, "write a.txt: x")
        assert h.client.permissions() == []
        await h.prompt(sid, "$ true")
        await h.prompt(sid, f"write {outside}: y")
        assert [tc.tool_call_id for tc, _ in h.client.permissions()] == ["call_2", "call_3"]
        reason = h.client.permissions()[1][0].field_meta
        assert reason is not None and "outside the workspace" in reason["dsh-agent/reason"]
        assert outside.read_text() == "y\n"


async def test_full_access_mode_never_asks_inside_the_workspace(
    connect: Connect, tmp_path: Path
) -> None:
    async with connect(mode="full-access", answer=select("reject-once")) as h:
        sid = await h.new()
        await h.prompt(sid, "$ echo hi > out.txt")
        await h.prompt(sid, "edit out.txt: hi => ho")
        assert h.client.permissions() == []
        assert (h.workspace / "out.txt").read_text() == "ho\n"
        await h.prompt(sid, f"read {tmp_path / 'elsewhere.txt'}")
        assert len(h.client.permissions()) == 1  # outside the workspace still asks


async def test_read_only_mode_refuses_changes_without_asking(connect: Connect) -> None:
    async with connect(mode="read-only") as h:
        (h.workspace / "r.txt").write_text("one\n")
        sid = await h.new()
        for prompt in ("write a.txt: x", "edit r.txt: one => two", "$ touch t"):
            await h.prompt(sid, prompt)
        await h.prompt(sid, "read r.txt")
        assert h.client.permissions() == []
        results = h.client.results(sid)
        assert [results[f"call_{n}"]["status"] for n in (1, 2, 3, 4)] == [
            "failed",
            "failed",
            "failed",
            "completed",
        ]
        assert "refused in read-only mode" in str(results["call_1"]["content"])
        assert (h.workspace / "r.txt").read_text() == "one\n"
        assert not (h.workspace / "t").exists()


async def test_set_mode_announces_the_change(connect: Connect) -> None:
    async with connect() as h:
        sid = await h.new()
        h.client.clear()
        await h.conn.set_session_mode(session_id=sid, mode_id="full-access")
        await asyncio.sleep(0.01)
        updates = h.client.updates(sid)
        assert updates[0] == {
            "sessionUpdate": "current_mode_update",
            "currentModeId": "full-access",
        }
        assert updates[1]["sessionUpdate"] == "config_option_update"
        assert updates[1]["configOptions"][0]["currentValue"] == "full-access"
        await h.prompt(sid, "$ true")
        assert h.client.permissions() == []
        with pytest.raises(RequestError, match="unknown mode"):
            await h.conn.set_session_mode(session_id=sid, mode_id="yolo")


async def test_mode_is_also_a_config_option(connect: Connect) -> None:
    async with connect() as h:
        sid = await h.new()
        response = await h.conn.set_config_option(
            session_id=sid, config_id="mode", value="read-only"
        )
        assert response is not None
        assert response.config_options[0].current_value == "read-only"  # type: ignore[union-attr]
        await h.prompt(sid, "$ true")
        assert "refused in read-only mode" in str(h.client.results(sid)["call_1"]["content"])
        assert "current_mode_update" in h.client.kinds(sid)


# --- models ------------------------------------------------------------------------------------


async def test_switching_models_with_set_config_option(connect: Connect, tmp_path: Path) -> None:
    path = scenario_file(tmp_path, [[{"text": "scripted hello"}]], "hello")
    async with connect(model=scripted(path)) as h:
        sid = await h.new()
        await h.prompt(sid, "hi")
        assert h.client.text(sid) == "scripted hello"
        response = await h.conn.set_config_option(
            session_id=sid, config_id="model", value="offline"
        )
        assert response is not None
        model = {o.id: o for o in response.config_options}["model"]
        assert model.current_value == "offline"  # type: ignore[union-attr]
        values = [o.value for o in model.options]  # type: ignore[union-attr]
        assert values == ["offline", "deepseek-chat", "deepseek-reasoner", f"scripted:{path}"]
        h.client.clear()
        await h.prompt(sid, "help")
        assert h.client.text(sid) == HELP
        await h.conn.set_config_option(session_id=sid, config_id="model", value=f"scripted:{path}")
        h.client.clear()
        await h.prompt(sid, "hi")
        assert h.client.text(sid) == "scripted hello"
        with pytest.raises(RequestError, match="unknown model"):
            await h.conn.set_config_option(session_id=sid, config_id="model", value="gpt-9")
        with pytest.raises(RequestError, match="unknown config option"):
            await h.conn.set_config_option(session_id=sid, config_id="color", value="red")


async def test_a_model_without_a_key_ends_the_turn_with_a_clear_message(
    connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    async with connect() as h:
        sid = await h.new()
        await h.conn.set_config_option(session_id=sid, config_id="model", value="deepseek-chat")
        assert await h.prompt(sid, "hi") == "end_turn"
        assert "**Error:** DeepSeek: no API key; set DEEPSEEK_API_KEY." in h.client.text(sid)


async def test_the_step_limit_stops_the_turn_with_a_message(
    connect: Connect, tmp_path: Path
) -> None:
    step = [{"tool_call": {"name": "todo_write", "arguments": {"todos": []}}}]
    path = scenario_file(tmp_path, [step, step, step, [{"text": "never"}]])
    async with connect(model=scripted(path), max_steps=2) as h:
        sid = await h.new()
        assert await h.prompt(sid, "go") == "max_turn_requests"
        text = h.client.text(sid)
        assert "Stopped after 2 model steps" in text and "never" not in text
        assert len(h.client.results(sid)) == 2


async def test_model_failures_and_cut_offs(connect: Connect, tmp_path: Path) -> None:
    path = scenario_file(
        tmp_path,
        [],
        "unused",
    )
    import json

    Path(path).write_text(
        json.dumps(
            {
                "turns": [
                    [[{"text": "Half"}, {"finish": "error", "message": "the server fell over"}]],
                    [
                        [
                            {"tool_call": {"name": "bash", "arguments": {"command": "true"}}},
                            {"usage": {"input_tokens": 100, "output_tokens": 20}},
                            {"finish": "length"},
                        ]
                    ],
                ]
            }
        )
    )
    async with connect(model=scripted(path), mode="full-access") as h:
        sid = await h.new()
        assert await h.prompt(sid, "one") == "end_turn"
        assert "**Error:** the server fell over" in h.client.text(sid)
        h.client.clear()
        assert await h.prompt(sid, "two") == "max_tokens"
        assert "output limit" in h.client.text(sid)
        assert "cut off" in str(h.client.results(sid)["call_1"]["content"])
        usage = [u for u in h.client.updates(sid) if u["sessionUpdate"] == "usage_update"]
        assert usage == [{"sessionUpdate": "usage_update", "used": 120, "size": 128_000}]


async def test_repeated_call_ids_are_made_unique(connect: Connect, tmp_path: Path) -> None:
    call = {"tool_call": {"name": "todo_write", "arguments": {"todos": []}, "id": "same"}}
    path = scenario_file(tmp_path, [[call, call], [{"text": "ok"}]])
    async with connect(model=scripted(path)) as h:
        sid = await h.new()
        await h.prompt(sid, "go")
        assert sorted(h.client.results(sid)) == ["same", "same-2"]


async def test_read_only_calls_of_one_step_all_finish_in_order(
    connect: Connect, tmp_path: Path
) -> None:
    for name in "abc":
        (tmp_path / "work" / f"{name}.txt").write_text(name)
    reads = [
        {"tool_call": {"name": "read", "arguments": {"file_path": f"${{CWD}}/{n}.txt"}}}
        for n in "abc"
    ]
    path = scenario_file(tmp_path, [reads, [{"text": "read them"}]])
    async with connect(model=scripted(path)) as h:
        sid = await h.new()
        await h.prompt(sid, "go")
        finals = [
            u["toolCallId"]
            for u in h.client.updates(sid)
            if u["sessionUpdate"] == "tool_call_update" and "status" in u
        ]
        assert finals == ["call_1", "call_2", "call_3"]
        assert all(r["status"] == "completed" for r in h.client.results(sid).values())


async def test_cancel_during_the_model_stream(connect: Connect, tmp_path: Path) -> None:
    path = scenario_file(tmp_path, [[{"text": "thinking"}, {"delay": 30}, {"text": "late"}]])
    async with connect(model=scripted(path)) as h:
        sid = await h.new()
        prompt = asyncio.create_task(h.prompt(sid, "go"))
        while "thinking" not in h.client.text(sid):
            await asyncio.sleep(0.01)
        await h.conn.cancel(session_id=sid)
        assert await prompt == "cancelled"
        assert "late" not in h.client.text(sid)


async def test_sessions_on_one_connection_are_isolated(connect: Connect, tmp_path: Path) -> None:
    path = scenario_file(tmp_path, [[{"text": "slow"}, {"delay": 30}]])
    async with connect(model=scripted(path)) as h:
        one, two = await h.new(), await h.new()
        running = asyncio.create_task(h.prompt(one, "go"))
        while "slow" not in h.client.text(one):
            await asyncio.sleep(0.01)
        await h.conn.set_config_option(session_id=two, config_id="model", value="offline")
        assert await h.prompt(two, "help") == "end_turn"  # not blocked by session one
        await h.conn.cancel(session_id=two)  # touches nothing running
        assert not running.done()
        assert h.client.text(two) == HELP
        await h.conn.cancel(session_id=one)
        assert await running == "cancelled"
        await h.conn.cancel(session_id="no-such-session")  # a silent no-op


async def test_mcp_servers_are_ignored_not_fatal(connect: Connect) -> None:
    from acp.schema import McpServerStdio

    async with connect() as h:
        server = McpServerStdio(name="x", command="/bin/true", args=[], env=[])
        response = await h.conn.new_session(cwd=str(h.workspace), mcp_servers=[server])
        assert response.session_id


async def test_resource_links_reach_the_model_as_text(connect: Connect) -> None:
    from acp.schema import ResourceContentBlock

    async with connect(model=ModelSettings()) as h:
        sid = await h.new()
        link = ResourceContentBlock(type="resource_link", uri="file:///a/b.py", name="b.py")
        await h.conn.prompt(session_id=sid, prompt=[text_block("look at"), link])
        assert "attached: `/a/b.py`, linked (not read)." in h.client.text(sid)
        assert (
            "[linked file: file:///a/b.py]" in h.agent._sessions[sid].history.messages[0]["content"]
        )
