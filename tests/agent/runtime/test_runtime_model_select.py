"""The model select a real dsh-agent answers session/new with, before any prompt: a model
that cannot answer yet (DeepSeek without a key) is marked, in its description and `_meta`."""

from __future__ import annotations

import os
from pathlib import Path

from wire_support import agent


async def test_session_new_marks_the_models_that_need_a_key(tmp_path: Path) -> None:
    """The real dsh-agent, with no key in its environment: the model select says which."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("DSH_") and key != "DEEPSEEK_API_KEY"
    }
    env["DSH_CONFIG"] = str(tmp_path / "none.toml")
    async with agent(tmp_path, env=env) as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(tmp_path), "mcpServers": []},
            }
        )
        result = (await dsh.response(2))["result"]
    [model] = [option for option in result["configOptions"] if option["id"] == "model"]
    values = {value["value"]: value for value in model["options"]}
    assert "_meta" not in values["offline"]
    chat = values["deepseek-chat"]
    assert chat["_meta"] == {"dsh.unavailable": "needs DEEPSEEK_API_KEY"}
    assert "needs DEEPSEEK_API_KEY" in chat["description"]
