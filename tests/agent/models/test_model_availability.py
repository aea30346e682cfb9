"""A model that cannot answer yet is marked in the model select before any prompt: DeepSeek
without a key says "needs DEEPSEEK_API_KEY", in its description and in `_meta`, so a picker can
mark the row; a model that can answer carries no mark."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from agent.models.config import model_choices, resolve_settings, unavailable

REPO = Path(__file__).parents[3]


def test_deepseek_without_a_key_is_unavailable(tmp_path: Path) -> None:
    settings = resolve_settings(config_path=tmp_path / "none.toml", env={})
    marks = {choice.id: choice.unavailable for choice in model_choices(settings)}
    assert marks == {
        "offline": None,
        "deepseek-chat": "needs DEEPSEEK_API_KEY",
        "deepseek-reasoner": "needs DEEPSEEK_API_KEY",
    }


def test_with_a_key_every_model_is_available(tmp_path: Path) -> None:
    env = {"DEEPSEEK_API_KEY": "sk-d"}
    settings = resolve_settings(config_path=tmp_path / "none.toml", env=env)
    assert all(choice.unavailable is None for choice in model_choices(settings))


def test_a_local_server_needs_no_key_but_a_custom_deepseek_model_does(tmp_path: Path) -> None:
    local = resolve_settings(
        base_url="http://127.0.0.1:8080/v1", model="qwen", config_path=tmp_path / "none.toml"
    )
    assert unavailable(local) is None
    assert model_choices(local)[-1].unavailable is None
    coder = resolve_settings(
        provider="deepseek", model="deepseek-coder", config_path=tmp_path / "none.toml", env={}
    )
    [custom] = [choice for choice in model_choices(coder) if choice.id == "deepseek-coder"]
    assert custom.unavailable == "needs DEEPSEEK_API_KEY"
    assert custom.description.endswith("(needs DEEPSEEK_API_KEY)")


async def test_session_new_marks_the_models_that_need_a_key(tmp_path: Path) -> None:
    """The real dsh-agent, with no key in its environment: the model select says which."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("DSH_") and key != "DEEPSEEK_API_KEY"
    }
    env["DSH_CONFIG"] = str(tmp_path / "none.toml")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent.cli",
        "--session-dir",
        str(tmp_path / "sessions"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(REPO),
    )
    assert process.stdin is not None and process.stdout is not None

    async def call(request_id: int, method: str, params: dict[str, Any]) -> Any:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        process.stdin.write((json.dumps(message) + "\n").encode())  # type: ignore[union-attr]
        while True:
            reply = json.loads(await process.stdout.readline())  # type: ignore[union-attr]
            if reply.get("id") == request_id:
                return reply["result"]

    try:
        await call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        result = await call(2, "session/new", {"cwd": str(tmp_path), "mcpServers": []})
    finally:
        process.stdin.close()
        await process.wait()
    [model] = [option for option in result["configOptions"] if option["id"] == "model"]
    values = {value["value"]: value for value in model["options"]}
    assert "_meta" not in values["offline"]
    chat = values["deepseek-chat"]
    assert chat["_meta"] == {"dsh.unavailable": "needs DEEPSEEK_API_KEY"}
    assert "needs DEEPSEEK_API_KEY" in chat["description"]
