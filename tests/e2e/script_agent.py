"""A test ACP agent that plays a JSON script of raw protocol actions on each prompt.

It sends exactly what the script says (unknown kinds and malformed content included), so
client tests can exercise what no well-behaved agent sends. Usage: script_agent.py SCRIPT.json

Script: {"agent_name": str?, "modes": {...}?, "prompts": [[ACTION, ...], ...]}; prompt k plays
list k (the last list repeats). Actions:
  {"update": {...}}                      a raw session/update "update" object
  {"permission": {"toolCall": {...}, "options": [...]}}  then reports the outcome as a message
  {"terminal": {"command": str, "args": [...]?, "toolCallId": str?}}  create, embed, wait, release
  {"read": {"path": str, "line"?: int, "limit"?: int}} / {"write": {"path": str, "content": str}}
  {"sleep": seconds}  {"exit": code}  {"stop": reason}
  {"error": {"code": int, "message": str}}  answer the prompt with this JSON-RPC error
  {"wait_file": path}  hold the turn until the file exists (or the turn is cancelled): a test
      says when a turn may end, instead of racing a sleep
  {"stream": {"count": N, "text": "w{i} ", "pace"?: seconds, "batch"?: k, "start"?: i0}}
      N message chunks (text formatted with the chunk index i, from i0 or 0), sleeping `pace`
      after every `batch` of them
  {"big": {"bytes": N, "text"?: str}}  one message chunk of N characters (`text` repeated)
  {"echo": prefix}  a message: prefix followed by the prompt's text
  {"probe": {"ids_file": path}}  for each id in the JSON list in the file: terminal/output,
      terminal/kill, terminal/wait_for_exit and terminal/release, each said as a message
      `probe METHOD ID: ok RESULT` or `probe METHOD ID: error CODE`
  {"touch": path}   create the file: tells a test that every action before it was sent
  {"blocks": prefix}  a message: prefix, then one line per content block of the prompt
      (`text`, `resource URI (N chars)` or `resource_link URI`)
Terminal options: "report": "exit" says only the exit status and output size (not the output),
"outputByteLimit": n is passed on, "wait": false returns once the terminal is embedded
(never waiting, killing nor releasing it, as some agents do after a cancel).
Script option "embeddedContext": true advertises promptCapabilities.embeddedContext (off by
default, as in the spec). Script option "delays": {"initialize"?: s, "new_session"?: s}
answers those requests late (s seconds, or once the file named by s exists), for tests of what
the client does before a session exists.
Script option "load": [UPDATE, ...] advertises loadSession and replays those raw updates on
session/load. "modeMessage": text with {mode} is what session/set_mode says as a message
(default "mode set: {mode}"); "sessionExtra": {...} is merged into the session/new result
raw (fields this SDK does not know, such as the unstable "models"); with "models" there,
session/set_model switches among them and says "model set: ID".
Script option "mcpCapabilities": {"http"?: bool, "sse"?: bool} is advertised as it is;
"resume": true advertises sessionCapabilities.resume (session/resume answers without replaying
anything); "sessionLog": path appends one JSON line per session/new, load or resume, with the
method, the session id and the mcpServers it carried, so a test sees what the client sent.
Script option "auth": {"methods": [raw authMethods], "accept": id} advertises those methods and
answers session/new with auth_required until `authenticate` is called with `accept` (each call
is logged to "sessionLog" as {"method": "authenticate", "methodId": id}). With "env": {NAME:
value} in "auth" the agent also counts as logged in when it was started with those variables
(a session/new then logs "envLogin": true; the values themselves are never logged).
With "terminal": {"marker": path, "code": text} in "auth", `script_agent.py SCRIPT login` is a
terminal login: it asks for the code on its terminal and, when it is typed, writes the marker
(with $ACME_LOGIN from the method's env) and exits 0, else exits 3; the agent counts as logged
in while the marker exists. With "atPrompt": true in "auth", session/new is answered and it is
session/prompt that answers auth_required until the login. With "refuse": {id: details} in
"auth", `authenticate` with that id answers an internal error whose data has those details (an
agent that cannot log in by itself, and says how to in the method's description).
Script option "newUpdates": [UPDATE, ...] sends those raw updates just after the session/new
answer (as agents advertise their commands).
Script option "guarded": true reads stdin through dsh_common's line guard, as dsh-agent does
(a line that is not JSON gets -32700); without it the SDK's own reader drops such a line.
Script option "answer": {METHOD: result} answers that request method with that result (an
agent that answers what it does not know). Script option "ignoreCancel": true hears
session/cancel without stopping the turn. Action {"wait_cancel": true} holds the turn until
session/cancel arrives. "${CWD}" in any string of an action is the session's cwd.
Script option "closeFile": path advertises sessionCapabilities.close and appends each closed
session id to that file.
Script option "sessions": [raw SessionInfo, ...] advertises sessionCapabilities.list and
answers session/list with them, as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from typing import Any

from acp import PROTOCOL_VERSION, InitializeResponse, NewSessionResponse, PromptResponse, run_agent
from acp.exceptions import RequestError
from acp.router import Route
from acp.schema import (
    AgentCapabilities,
    Implementation,
    McpCapabilities,
    PromptCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)


def message(session_id: str, text: str) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        },
    }


def prompt_texts(prompt: Any) -> list[str]:
    """The text blocks of a session/prompt, whether the SDK hands models or dicts."""
    texts = []
    for block in prompt or []:
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        if isinstance(text, str):
            texts.append(text)
    return texts


def block_line(block: Any) -> str:
    """One received content block as a line: its type, and for a resource its URI."""
    data = block if isinstance(block, dict) else block.model_dump(by_alias=True)
    kind = data.get("type")
    if kind == "resource":
        resource = data.get("resource") or {}
        return f"resource {resource.get('uri')} ({len(resource.get('text') or '')} chars)"
    if kind == "resource_link":
        return f"resource_link {data.get('uri')}"
    return str(kind)


def answering(result: Any) -> Any:
    async def answer(params: Any) -> Any:
        return result

    return answer


def with_cwd(value: Any, cwd: str) -> Any:
    """The action with "${CWD}" replaced by the session's cwd in every string."""
    if isinstance(value, str):
        return value.replace("${CWD}", cwd)
    if isinstance(value, dict):
        return {key: with_cwd(item, cwd) for key, item in value.items()}
    if isinstance(value, list):
        return [with_cwd(item, cwd) for item in value]
    return value


async def serve_guarded(agent: ScriptAgent, unstable: bool) -> None:
    """The agent on stdio through the shared line guard (what dsh-agent reads through)."""
    from acp.core import AgentSideConnection
    from acp.stdio import stdio_streams

    from dsh_common.jsonrpc_lines import READ_CHUNK_BYTES, LineTransport

    reader, writer = await stdio_streams(limit=READ_CHUNK_BYTES)
    transport = LineTransport(reader, writer)
    conn = AgentSideConnection(
        agent,  # type: ignore[arg-type]
        transport,
        listening=False,
        use_unstable_protocol=unstable,
    )
    try:
        await conn.listen()
    finally:
        await conn.close()


class ScriptAgent:
    def __init__(self, script: dict[str, Any]) -> None:
        self.script = script
        self.later: asyncio.Task[None] | None = None
        self.turn = 0
        self.cancelled = asyncio.Event()
        self.cancel_heard = asyncio.Event()
        self.cwd = ""
        self.prompt_text = ""
        self.prompt_blocks: list[str] = []
        wanted = script.get("auth", {}).get("env")
        self.env_login = bool(wanted) and all(os.environ.get(k) == v for k, v in wanted.items())
        marker = script.get("auth", {}).get("terminal", {}).get("marker")
        logged_in = marker is not None and os.path.exists(marker)
        self.authenticated = "auth" not in script or self.env_login or logged_in

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        self.raw = conn._conn  # test-only: send exactly what the script says
        if "models" in self.script.get("sessionExtra", {}):
            # session/set_model is unstable and not in this SDK: routed by hand.
            route = Route("session/set_model", self.set_session_model, "request")
            self.raw._handler.add_route(route)
        for method, result in self.script.get("answer", {}).items():
            self.raw._handler.add_route(Route(method, answering(result), "request"))

    async def set_session_model(self, params: Any) -> dict[str, Any]:
        models = self.script["sessionExtra"]["models"]
        model_id = params.get("modelId") if isinstance(params, dict) else None
        if model_id not in [model["modelId"] for model in models["availableModels"]]:
            raise RequestError.invalid_params({"modelId": model_id, "reason": "no such model"})
        models["currentModelId"] = model_id
        await self.say(params["sessionId"], f"model set: {model_id}")
        return {}

    async def delay(self, request: str) -> None:
        wait = self.script.get("delays", {}).get(request, 0)
        if isinstance(wait, str):  # a file: answer once the test has created it
            while not os.path.exists(wait):
                await asyncio.sleep(0.02)
        elif wait:
            await asyncio.sleep(wait)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        await self.delay("initialize")
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session="load" in self.script,
                prompt_capabilities=PromptCapabilities(
                    embedded_context=bool(self.script.get("embeddedContext"))
                ),
                mcp_capabilities=McpCapabilities(**self.script.get("mcpCapabilities", {})),
                session_capabilities=SessionCapabilities(
                    resume=SessionResumeCapabilities() if self.script.get("resume") else None,
                    close=SessionCloseCapabilities() if "closeFile" in self.script else None,
                    list=SessionListCapabilities() if "sessions" in self.script else None,
                ),
            ),
            agent_info=Implementation(
                name=self.script.get("agent_name", "script-agent"), version="1"
            ),
            auth_methods=InitializeResponse.model_validate(
                {
                    "protocolVersion": 1,
                    "authMethods": self.script.get("auth", {}).get("methods", []),
                }
            ).auth_methods,
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> dict[str, Any]:
        path = self.script.get("sessionLog")
        if path is not None:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"method": "authenticate", "methodId": method_id}) + "\n")
        refused = self.script["auth"].get("refuse", {})
        if method_id in refused:
            raise RequestError.internal_error({"details": refused[method_id]})
        if method_id != self.script["auth"].get("accept"):
            raise RequestError.invalid_params({"methodId": method_id})
        self.authenticated = True
        return {}

    def log_session(self, method: str, session_id: str, servers: Any) -> None:
        path = self.script.get("sessionLog")
        if path is None:
            return
        dumped = [
            s.model_dump(mode="json", by_alias=True, exclude_none=True) for s in servers or []
        ]
        entry = {"method": method, "sessionId": session_id, "mcpServers": dumped}
        if self.env_login:
            entry["envLogin"] = True
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    async def send_new_updates(self, session_id: str) -> None:
        await asyncio.sleep(0.2)  # after the session/new answer has gone out
        for update in self.script["newUpdates"]:
            await self.raw.send_notification(
                "session/update", {"sessionId": session_id, "update": update}
            )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse | dict[str, Any]:
        await self.delay("new_session")
        if not self.authenticated and not self.script["auth"].get("atPrompt"):
            raise RequestError.auth_required()
        self.log_session("session/new", "s1", kwargs.get("mcp_servers"))
        self.cwd = cwd
        extra = {key: self.script[key] for key in ("modes", "configOptions") if key in self.script}
        response = NewSessionResponse.model_validate({"sessionId": "s1", **extra})
        if "newUpdates" in self.script:
            self.later = asyncio.create_task(self.send_new_updates("s1"))
        if "sessionExtra" not in self.script:
            return response
        raw: dict[str, Any] = response.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {**raw, **self.script["sessionExtra"]}

    async def list_sessions(self, **kwargs: Any) -> dict[str, Any]:
        return {"sessions": self.script["sessions"]}

    async def resume_session(self, cwd: str, session_id: str, **kwargs: Any) -> dict[str, Any]:
        self.log_session("session/resume", session_id, kwargs.get("mcp_servers"))
        return {key: self.script[key] for key in ("modes", "configOptions") if key in self.script}

    async def close_session(self, session_id: str, **kwargs: Any) -> dict[str, Any]:
        """`session/close`, offered with "closeFile": writes the closed id there."""
        with open(self.script["closeFile"], "a", encoding="utf-8") as file:
            file.write(session_id + "\n")
        return {}

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> dict[str, Any]:
        if "load" not in self.script:
            raise RequestError.method_not_found("session/load")
        self.log_session("session/load", session_id, kwargs.get("mcp_servers"))
        for update in self.script["load"]:
            await self.raw.send_notification(
                "session/update", {"sessionId": session_id, "update": update}
            )
        return {key: self.script[key] for key in ("modes", "configOptions") if key in self.script}

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        text = self.script.get("modeMessage", "mode set: {mode}")
        await self.say(session_id, text.format(mode=mode_id))

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kwargs: Any
    ) -> dict[str, Any]:
        options = self.script.get("configOptions", [])
        for option in options:
            if option["id"] == config_id:
                option["currentValue"] = value
        return {"configOptions": options}

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancel_heard.set()
        if not self.script.get("ignoreCancel"):
            self.cancelled.set()

    async def prompt(self, session_id: str, prompt: Any, **kwargs: Any) -> PromptResponse:
        if not self.authenticated:
            raise RequestError.auth_required()
        prompts = self.script["prompts"]
        actions = prompts[min(self.turn, len(prompts) - 1)]
        self.turn += 1
        self.cancelled.clear()
        self.cancel_heard.clear()
        self.prompt_text = "".join(prompt_texts(prompt))
        self.prompt_blocks = [block_line(block) for block in prompt or []]
        for action in actions:
            if self.cancelled.is_set():
                return PromptResponse(stop_reason="cancelled")
            stop = await self.play(session_id, with_cwd(action, self.cwd))
            if stop:
                return PromptResponse(stop_reason=stop)
        return PromptResponse(stop_reason="end_turn")

    async def say(self, session_id: str, text: str) -> None:
        await self.raw.send_notification("session/update", message(session_id, text))

    async def play(self, sid: str, action: dict[str, Any]) -> str | None:
        if "update" in action:
            await self.raw.send_notification(
                "session/update", {"sessionId": sid, "update": action["update"]}
            )
        elif "permission" in action:
            params = {"sessionId": sid, **action["permission"]}
            result = await self.raw.send_request("session/request_permission", params)
            outcome = result["outcome"]
            chosen = f"{outcome.get('outcome')} {outcome.get('optionId', '')}".strip()
            await self.say(sid, f"permission outcome: {chosen}")
        elif "terminal" in action:
            spec = action["terminal"]
            create = {"sessionId": sid, "command": spec["command"], "args": spec.get("args", [])}
            if "outputByteLimit" in spec:
                create["outputByteLimit"] = spec["outputByteLimit"]
            created = await self.raw.send_request("terminal/create", create)
            tid = created["terminalId"]
            call_id = spec.get("toolCallId", "term-call")
            await self.raw.send_notification(
                "session/update",
                {
                    "sessionId": sid,
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": call_id,
                        "title": spec["command"],
                        "kind": "execute",
                        "status": "in_progress",
                        "content": [{"type": "terminal", "terminalId": tid}],
                    },
                },
            )
            if spec.get("wait", True) is False:
                await self.say(sid, f"terminal left open: {tid}")
                return None
            exited = await self.raw.send_request(
                "terminal/wait_for_exit", {"sessionId": sid, "terminalId": tid}
            )
            output = await self.raw.send_request(
                "terminal/output", {"sessionId": sid, "terminalId": tid}
            )
            await self.raw.send_request("terminal/release", {"sessionId": sid, "terminalId": tid})
            status = "completed" if exited.get("exitCode") == 0 else "failed"
            await self.raw.send_notification(
                "session/update",
                {
                    "sessionId": sid,
                    "update": {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call_id,
                        "status": status,
                    },
                },
            )
            if spec.get("report") == "exit":
                size = len(output["output"])
                await self.say(sid, f"terminal exit: {exited.get('exitCode')} ({size} chars kept)")
            else:
                await self.say(
                    sid,
                    f"terminal exit: {json.dumps(exited, sort_keys=True)} "
                    f"output: {output['output']!r}",
                )
        elif "read" in action:
            try:
                result = await self.raw.send_request(
                    "fs/read_text_file", {"sessionId": sid, **action["read"]}
                )
                await self.say(sid, f"read: {result['content']!r}")
            except RequestError as error:
                await self.say(sid, f"read error {error.code}: {error.data}")
        elif "write" in action:
            try:
                await self.raw.send_request(
                    "fs/write_text_file", {"sessionId": sid, **action["write"]}
                )
                await self.say(sid, "write: ok")
            except RequestError as error:
                await self.say(sid, f"write error {error.code}: {error.data}")
        elif "sleep" in action:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.cancelled.wait(), action["sleep"])
        elif "wait_cancel" in action:
            await self.cancel_heard.wait()
        elif "wait_file" in action:
            while not os.path.exists(action["wait_file"]) and not self.cancelled.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.cancelled.wait(), 0.02)
        elif "stream" in action:
            spec = action["stream"]
            pace, batch = spec.get("pace", 0), max(1, spec.get("batch", 1))
            start = spec.get("start", 0)
            for i in range(start, start + spec["count"]):
                if self.cancelled.is_set():
                    return "cancelled"
                await self.say(sid, spec["text"].format(i=i))
                if pace and (i + 1 - start) % batch == 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.cancelled.wait(), pace)
        elif "big" in action:
            spec = action["big"]
            unit = spec.get("text", "lorem ipsum ")
            size = spec["bytes"]
            await self.say(sid, (unit * (size // len(unit) + 1))[:size])
        elif "echo" in action:
            await self.say(sid, f"{action['echo']}{self.prompt_text}")
        elif "blocks" in action:
            await self.say(sid, action["blocks"] + "\n".join(self.prompt_blocks))
        elif "probe" in action:
            with open(action["probe"]["ids_file"], encoding="utf-8") as handle:
                ids = json.load(handle)
            for tid in ids:
                for method in ("output", "kill", "wait_for_exit", "release"):
                    params = {"sessionId": sid, "terminalId": tid}
                    try:
                        result = await self.raw.send_request(f"terminal/{method}", params)
                        said = f"ok {json.dumps(result, sort_keys=True)}"
                    except RequestError as error:
                        said = f"error {error.code}"
                    await self.say(sid, f"probe terminal/{method} {tid}: {said}\n")
        elif "touch" in action:
            with open(action["touch"], "a", encoding="utf-8"):
                pass
        elif "exit" in action:
            sys.stderr.write("script agent exiting on purpose\n")
            sys.stderr.flush()
            os._exit(action["exit"])
        elif "error" in action:
            raise RequestError(action["error"]["code"], action["error"]["message"])
        elif "stop" in action:
            return str(action["stop"])
        return None


def terminal_login(script: dict[str, Any]) -> int:
    """The scripted agent's terminal login: a question on the real terminal."""
    wanted = script["auth"]["terminal"]
    print("script-agent login: type the code and press Enter:", flush=True)
    if sys.stdin.readline().strip() != wanted["code"]:
        print("wrong code", flush=True)
        return 3
    with open(wanted["marker"], "w", encoding="utf-8") as handle:
        handle.write(os.environ.get("ACME_LOGIN", ""))
    return 0


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        script = json.load(handle)
    if sys.argv[2:] == ["login"]:
        sys.exit(terminal_login(script))
    # session/resume and session/close are unstable in this SDK: routed only with the flag,
    # which stays off otherwise so the other unstable methods stay unknown, as before.
    unstable = bool(script.get("resume")) or "closeFile" in script
    if script.get("guarded"):
        asyncio.run(serve_guarded(ScriptAgent(script), unstable))
        return
    asyncio.run(run_agent(ScriptAgent(script), use_unstable_protocol=unstable))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
