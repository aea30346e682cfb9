"""dsh-agent under foreign clients: raw clients over real pipes, playing what they sent and need.

Each test is a scripted client speaking raw JSON-RPC to a real `dsh-agent` process, built from
the shapes foreign ACP clients were seen to send and to require (a strict client that rejects
a `rawInput` that is not an object, a CLI queue owner that loads a session it never prompted,
clients that show only the permission request, ...).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from runtime_support import scenario_file
from wire_support import INIT, agent, new_session, prompt


def updates(seen: list[Any], kind: str) -> list[dict[str, Any]]:
    return [
        message["params"]["update"]
        for message in seen
        if isinstance(message, dict)
        and message.get("method") == "session/update"
        and message["params"]["update"].get("sessionUpdate") == kind
    ]


def strict_tool_call(update: dict[str, Any]) -> None:
    """What a strictly validating client checks before it shows a card."""
    if "rawInput" in update and not isinstance(update["rawInput"], dict):
        raise AssertionError("-32602 ToolCall: value of key 'rawInput' is not a dict")
    assert isinstance(update["title"], str) and update["title"]
    assert update["kind"] in ("read", "edit", "delete", "move", "search", "execute", "other")


async def start(tmp_path: Path, workspace: Path, steps: list[list[dict[str, Any]]]) -> Any:
    scenario = scenario_file(tmp_path, steps)
    return agent(tmp_path, "--scenario", scenario, "--mode", "full-access")


# --- 1. rawInput is the tool's argument object --------------------------------------------


async def test_raw_input_is_an_object_for_bash_and_todo_write(
    tmp_path: Path, workspace: Path
) -> None:
    bash_args = {"command": "seq 1 400", "description": "Count to 400"}
    todos = {"todos": [{"content": "Count", "status": "in_progress"}]}
    steps: list[list[dict[str, Any]]] = [
        [
            {"tool_call": {"name": "bash", "arguments": bash_args}},
            {"tool_call": {"name": "todo_write", "arguments": todos}},
        ],
        [{"text": "done"}],
    ]
    async with await start(tmp_path, workspace, steps) as dsh:
        await dsh.initialize()  # no capabilities at all, as a plain CLI client
        session_id = await new_session(dsh, workspace)
        response, seen = await prompt(dsh, session_id, "go", 3)
        assert response["result"]["stopReason"] == "end_turn"
    calls = updates(seen, "tool_call")
    for call in calls:
        strict_tool_call(call)
    assert [call["rawInput"] for call in calls] == [bash_args, todos]


# --- 2. a session never prompted can be loaded --------------------------------------------


async def test_a_session_never_prompted_loads_in_this_and_a_later_process(
    tmp_path: Path, workspace: Path
) -> None:
    async with agent(tmp_path) as dsh:
        await dsh.initialize()
        session_id = await new_session(dsh, workspace)
        await dsh.send(load_request(4, session_id, workspace))
        loaded = await dsh.response(4)
        assert "result" in loaded, loaded
    async with agent(tmp_path) as dsh:  # the queue owner comes back later
        await dsh.initialize()
        await dsh.send({"jsonrpc": "2.0", "id": 5, "method": "session/list", "params": {}})
        listed = await dsh.response(5)
        assert listed["result"]["sessions"] == []  # nothing in it to resume
        await dsh.send(load_request(6, session_id, workspace))
        loaded = await dsh.response(6)
        assert "result" in loaded, loaded
        assert loaded["result"]["modes"]["currentModeId"]
        response, _ = await prompt(dsh, session_id, "/status", 7)
        assert response["result"]["stopReason"] == "end_turn"
        await dsh.send({"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {}})
        listed = await dsh.response(8)
        assert [s["sessionId"] for s in listed["result"]["sessions"]] == [session_id]


def load_request(request_id: int, session_id: str, cwd: Path) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/load",
        "params": {"sessionId": session_id, "cwd": str(cwd), "mcpServers": []},
    }


# --- 3. new-file diffs carry "oldText": null; the permission request carries the diff ------


async def test_a_new_file_diff_has_old_text_null_and_the_permission_request_shows_it(
    tmp_path: Path, workspace: Path
) -> None:
    path = str(workspace / "hello.py")
    write = {"file_path": path, "content": "print('hello')\n"}
    steps: list[list[dict[str, Any]]] = [
        [{"tool_call": {"name": "write", "arguments": write}}],
        [{"text": "done"}],
    ]
    scenario = scenario_file(tmp_path, steps)
    expected = {"type": "diff", "path": path, "oldText": None, "newText": "print('hello')\n"}
    async with agent(tmp_path, "--scenario", scenario, "--mode", "ask") as dsh:
        await dsh.initialize()
        session_id = await new_session(dsh, workspace)
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]},
            }
        )
        assert dsh.process.stdout is not None
        seen: list[Any] = []
        while True:
            line = await asyncio.wait_for(dsh.process.stdout.readline(), 30)
            message = json.loads(line)
            seen.append(message)
            if message.get("method") == "session/request_permission":
                # The raw bytes, not a parse: the key is there, with null.
                assert b'"oldText":null' in line
                # A client that shows only the request sees what it approves.
                assert message["params"]["toolCall"]["content"] == [expected]
                await dsh.send(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}},
                    }
                )
            if message.get("id") == 3:
                break
        assert message["result"]["stopReason"] == "end_turn"
    [call] = updates(seen, "tool_call")
    assert call["content"] == [expected]
    assert any(m.get("method") == "session/request_permission" for m in seen)
    results = [u for u in updates(seen, "tool_call_update") if "status" in u]
    assert results[-1]["status"] == "completed"
    assert results[-1]["content"][0]["oldText"] is None
    assert (workspace / "hello.py").read_text() == "print('hello')\n"


# --- 5. session/set_model switches models, as the `model` config option does ---------------


async def test_session_set_model_switches_the_model_like_the_config_option(
    tmp_path: Path, workspace: Path
) -> None:
    steps: list[list[dict[str, Any]]] = [[{"text": "scripted reply"}]]
    scenario = scenario_file(tmp_path, steps)
    async with agent(tmp_path, "--scenario", scenario) as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(workspace), "mcpServers": []},
            }
        )
        created = (await dsh.response(2))["result"]
        session_id = created["sessionId"]
        [model_option] = [o for o in created["configOptions"] if o["id"] == "model"]
        models = created["models"]
        assert models["currentModelId"] == model_option["currentValue"]
        assert [m["modelId"] for m in models["availableModels"]] == [
            o["value"] for o in model_option["options"]
        ]
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "session/set_model",
                "params": {"sessionId": session_id, "modelId": "nonesuch"},
            }
        )
        assert (await dsh.response(3))["error"]["code"] == -32602
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "session/set_model",
                "params": {"sessionId": session_id, "modelId": "offline"},
            }
        )
        seen: list[Any] = []
        while True:
            message = await dsh.read()
            seen.append(message)
            if message.get("id") == 4:
                break
        assert message["result"] == {}
        # The change is announced on the config channel too (it may follow the response).
        while not updates(seen, "config_option_update"):
            seen.append(await dsh.read())
        [update] = updates(seen, "config_option_update")
        [option] = [o for o in update["configOptions"] if o["id"] == "model"]
        assert option["currentValue"] == "offline"
        response, seen = await prompt(dsh, session_id, "hello", 5)
        assert response["result"]["stopReason"] == "end_turn"
        said = "".join(u["content"]["text"] for u in updates(seen, "agent_message_chunk"))
        assert "scripted reply" not in said  # the offline model answered
        await dsh.send(load_request(6, session_id, workspace))
        loaded = (await dsh.response(6))["result"]
        [model_option] = [o for o in loaded["configOptions"] if o["id"] == "model"]
        assert loaded["models"]["currentModelId"] == model_option["currentValue"]


# --- 4. a cancelled command's partial output reaches the client ----------------------------


@pytest.mark.parametrize(
    "capabilities",
    [{"terminal": True}, {"terminal": True, "_meta": {"terminal_output": True}}, {}],
    ids=["standard-terminal", "meta-terminal-output", "none"],
)
async def test_a_cancelled_commands_partial_output_is_sent_with_the_aborted_result(
    tmp_path: Path, workspace: Path, capabilities: dict[str, Any]
) -> None:
    marker = workspace / "printed"
    command = f"seq 1 400; touch {marker}; sleep 30"
    steps: list[list[dict[str, Any]]] = [
        [{"tool_call": {"name": "bash", "arguments": {"command": command, "description": "x"}}}],
        [{"text": "done"}],
    ]
    scenario = scenario_file(tmp_path, steps)
    async with agent(tmp_path, "--scenario", scenario, "--mode", "full-access") as dsh:
        # Most clients send the standard capability only, without the `_meta` convention.
        params = {"protocolVersion": 1, "clientCapabilities": capabilities}
        await dsh.send({**INIT, "params": params})
        await dsh.response(1)
        session_id = await new_session(dsh, workspace)
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]},
            }
        )
        for _ in range(3000):
            if marker.exists():
                break
            await asyncio.sleep(0.01)
        await dsh.send(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}
        )
        seen: list[Any] = []
        final: dict[str, Any] | None = None
        answered = False
        while final is None or not answered:  # the failed update may follow the response
            message = await dsh.read()
            seen.append(message)
            answered = answered or message.get("id") == 3
            done = [u for u in updates([message], "tool_call_update") if "status" in u]
            final = done[0] if done else final
    assert final["status"] == "failed"
    live = [u for u in updates(seen, "tool_call_update") if "terminal_output" in u.get("_meta", {})]
    assert bool(live) == ("_meta" in capabilities)  # streamed only under the convention
    if live:  # the pane has the output; the final update says how the command ended
        assert "content" not in final
        assert final["_meta"]["terminal_exit"]["signal"] == "SIGTERM"
        streamed = "".join(u["_meta"]["terminal_output"]["data"] for u in live)
        assert streamed.startswith("1\n2\n3\n") and "\n400\n" in streamed
        return
    [block] = final["content"]
    text = block["content"]["text"]
    assert text.startswith("```console\nError: command aborted\n1\n2\n3\n")
    assert "\n400\n" in text
