"""script_agent.py with raw wire actions, for tests of what the client refuses.

Usage: hostile_agent.py SCRIPT.json. Every script_agent action works, and also:
  {"raw": str}  one line written to stdout as it is (a newline is added): not JSON, not an
                object, a batch, anything
  {"request": {"method": str, "params": {...}}}  a raw request (params get this session's id
                unless they name one); then a message "METHOD: result R" or "METHOD: error C R"
  {"notify": {"method": str, "params": {...}}}  a raw notification (same sessionId rule)
  {"later": {"delay": seconds, "actions": [...]}}  play the actions after the turn has ended
Script options: "agent_version": str (with script_agent's "agent_name", the initialize answer);
"modeError" / "configError": str, the message of the JSON-RPC error that session/set_mode /
session/set_config_option then answer with (anything in it, escapes and markup included).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from acp import InitializeResponse, run_agent
from acp.exceptions import RequestError
from script_agent import ScriptAgent


class HostileAgent(ScriptAgent):
    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        response = await super().initialize(protocol_version, **kwargs)
        if "agent_version" in self.script and response.agent_info is not None:
            response.agent_info.version = self.script["agent_version"]
        return response

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        if "modeError" in self.script:
            raise RequestError(-32603, self.script["modeError"])
        await super().set_session_mode(session_id, mode_id, **kwargs)

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kwargs: Any
    ) -> dict[str, Any]:
        if "configError" in self.script:
            raise RequestError(-32603, self.script["configError"])
        return await super().set_config_option(config_id, session_id, value, **kwargs)

    async def play(self, sid: str, action: dict[str, Any]) -> str | None:
        if "raw" in action:
            data = memoryview(action["raw"].encode() + b"\n")
            while data:
                data = data[os.write(1, data) :]
        elif "request" in action:
            spec = action["request"]
            params = {"sessionId": sid, **spec.get("params", {})}
            try:
                result = await self.raw.send_request(spec["method"], params)
                await self.say(sid, f"{spec['method']}: result {json.dumps(result)}")
            except RequestError as error:
                reason = error.data.get("reason") if isinstance(error.data, dict) else error.data
                await self.say(sid, f"{spec['method']}: error {error.code} {reason}")
        elif "notify" in action:
            spec = action["notify"]
            params = {"sessionId": sid, **spec.get("params", {})}
            await self.raw.send_notification(spec["method"], params)
        elif "later" in action:
            spec = action["later"]
            task = asyncio.create_task(self.play_later(sid, spec["delay"], spec["actions"]))
            self.later_tasks = [*getattr(self, "later_tasks", []), task]
        else:
            return await super().play(sid, action)
        return None

    async def play_later(self, sid: str, delay: float, actions: list[dict[str, Any]]) -> None:
        await asyncio.sleep(delay)
        for action in actions:
            await self.play(sid, action)


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        script = json.load(handle)
    asyncio.run(run_agent(HostileAgent(script)))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
