"""Sessions with a real agent process, through the client's own connection, recorded whole.

Each capability set gets its own process and workspace: its turn, then on one of them the
method probes, and on another the turn again (tool-call ids must not come back in a later
turn) and a cancelled turn. Permission requests are allowed (the check runs
in a scratch workspace); in the cancelled turn they are held until the cancel settles them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.exceptions import RequestError
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AuthCapabilities,
    ClientCapabilities,
    FileSystemCapabilities,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallStart,
    ToolCallUpdate,
)

from dsh_common.conformance import CHECK_FILE, CHECK_FILE_TEXT
from tui.check.methods import PROBES, probe_params
from tui.check.wire_log import Run
from tui.check.wire_view import exchange
from tui.connection import AgentConnection, AgentFailed, LaunchSpec, SessionUpdate, TuiClient
from tui.connection.session import open_session
from tui.fs import ConfinedFs
from tui.terminal.terminals import TerminalManager

AUTH_REQUIRED = -32000
CANCEL_ANSWER_S = 30.0
LATE_UPDATES_S = 0.5
"""How long after a cancelled turn's answer updates are still watched for."""
ACTIVE = (ToolCallStart, AgentMessageChunk, AgentThoughtChunk, AgentPlanUpdate)


def capabilities(terminal: bool, fs: bool) -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
        terminal=terminal,
        auth=AuthCapabilities(terminal=False),
        field_meta={"terminal_output": terminal},
    )


def wire(caps: ClientCapabilities) -> dict[str, Any]:
    dumped: dict[str, Any] = caps.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


@dataclass(frozen=True)
class Timeouts:
    start_s: float = 60.0
    turn_s: float = 300.0
    probe_s: float = 30.0


@dataclass(frozen=True)
class Agent:
    """What to start, and where: each run gets a workspace of its own under `base`."""

    argv: tuple[str, ...]
    base: Path
    env: tuple[tuple[str, str], ...] = ()
    program: str | None = None

    def spec(self, name: str, terminal: bool) -> LaunchSpec:
        workspace = self.base / f"workspace-{name}"
        workspace.mkdir(parents=True, exist_ok=True)
        (workspace / CHECK_FILE).write_text(CHECK_FILE_TEXT, encoding="utf-8")
        log_path = self.base / f"agent-{name}.log"
        return LaunchSpec(
            self.argv, workspace.resolve(), log_path, terminal, program=self.program, env=self.env
        )


class CheckClient(TuiClient):
    """The client object, refusing what its capabilities leave out as a client that lacks
    them would: method not found."""

    def __init__(
        self, sink: CheckSink, fs: ConfinedFs, terminals: TerminalManager, caps: ClientCapabilities
    ) -> None:
        super().__init__(sink, fs, terminals)
        self.caps = caps

    def _require(self, allowed: bool | None, method: str) -> None:
        if not allowed:
            raise RequestError.method_not_found(method)

    async def read_text_file(self, session_id: str, path: str, *args: Any, **kwargs: Any) -> Any:
        self._require(self.caps.fs.read_text_file if self.caps.fs else False, "fs/read_text_file")
        return await super().read_text_file(session_id, path, *args, **kwargs)

    async def write_text_file(self, session_id: str, path: str, *args: Any, **kwargs: Any) -> Any:
        self._require(self.caps.fs.write_text_file if self.caps.fs else False, "fs/write_text_file")
        return await super().write_text_file(session_id, path, *args, **kwargs)

    async def create_terminal(
        self, session_id: str, command: str, *args: Any, **kwargs: Any
    ) -> Any:
        self._require(self.caps.terminal, "terminal/create")
        return await super().create_terminal(session_id, command, *args, **kwargs)


@dataclass
class CheckSink:
    """Answers permission requests (allow, or held until a cancel settles them) and tells
    the runner when a turn is under way, so a cancel lands mid-turn."""

    hold: bool = False
    active: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    notes: list[str] = field(default_factory=list)

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        if isinstance(update, ACTIVE):
            self.active.set()

    def on_unsupported(self, session_id: str, what: str) -> None:
        self.notes.append(what)

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        self.active.set()
        if self.hold:
            await self.cancelled.wait()
        if self.cancelled.is_set() or not options:
            return RequestPermissionResponse.model_validate({"outcome": {"outcome": "cancelled"}})
        ranked = sorted(
            options,
            key=lambda o: (
                ("allow_once", "allow_always").index(o.kind)
                if o.kind in ("allow_once", "allow_always")
                else 2
            ),
        )
        chosen = ranked[0].option_id
        return RequestPermissionResponse.model_validate(
            {"outcome": {"outcome": "selected", "optionId": chosen}}
        )


def login_needed(failure: AgentFailed) -> str | None:
    cause = failure.__cause__
    if isinstance(cause, RequestError) and cause.code == AUTH_REQUIRED:
        return (
            f"{cause}: a login cannot be done without a person here; "
            "the checks that need a session are skipped"
        )
    return None


async def run_session(
    agent: Agent,
    name: str,
    caps: ClientCapabilities,
    prompts: Sequence[str],
    timeouts: Timeouts,
    *,
    probe: bool = False,
    cancel: bool = False,
    repeat: bool = False,
) -> Run:
    run = Run(name, wire(caps))
    sink = CheckSink()
    spec = agent.spec(name, bool(caps.terminal))

    def make_client(sink_: Any, fs: ConfinedFs, terminals: TerminalManager) -> TuiClient:
        return CheckClient(sink, fs, terminals, caps)

    try:
        async with contextlib.AsyncExitStack() as stack:
            async with asyncio.timeout(timeouts.start_s):
                connection = await stack.enter_async_context(
                    open_session(spec, sink, tap=run, capabilities=caps, make_client=make_client)
                )
            for text in [*prompts, *prompts] if repeat else prompts:
                await _turn(connection, run, text, timeouts.turn_s)
            if probe:
                await probe_methods(connection, run, timeouts.probe_s)
            if cancel:
                await cancel_turn(connection, sink, run, prompts[-1], timeouts)
    except AgentFailed as failure:
        run.needs_login = login_needed(failure)
        if run.needs_login is None:
            tail = failure.stderr_tail.strip().splitlines()[-1:] if failure.stderr_tail else []
            run.problem = "; ".join([failure.reason, *tail])
    except TimeoutError:
        run.problem = run.problem or f"no answer within {timeouts.start_s:g} s of starting"
    return run


async def _turn(connection: AgentConnection, run: Run, text: str, timeout: float) -> None:
    try:
        await asyncio.wait_for(connection.prompt(text), timeout)
    except TimeoutError:
        run.problem = f"the turn did not end within {timeout:g} s"
        raise
    except RequestError:
        pass  # the record has the error; the checks read it there


async def probe_methods(connection: AgentConnection, run: Run, timeout: float) -> None:
    init, opened = exchange(run, "initialize"), exchange(run, "session/new")
    init_result = init.result if init is not None and isinstance(init.result, dict) else {}
    session = opened.result if opened is not None and isinstance(opened.result, dict) else {}
    cwd = str(connection.spec.cwd)
    conn = connection.conn
    for method in PROBES:
        params = probe_params(method, connection.session_id, cwd, init_result, session)
        call: Any
        if method == "session/list":
            call = conn.list_sessions(cwd=cwd)
        elif method == "session/load":
            call = conn.load_session(cwd=cwd, session_id=params["sessionId"], mcp_servers=[])
        elif method == "session/resume":
            call = conn.resume_session(cwd=cwd, session_id=params["sessionId"])
        elif method == "session/set_mode":
            call = conn.set_session_mode(session_id=params["sessionId"], mode_id=params["modeId"])
        elif method == "session/set_config_option":
            value = params["value"]
            call = conn.set_config_option(
                config_id=str(params["configId"]),
                session_id=params["sessionId"],
                value=value if isinstance(value, bool) else str(value),
            )
        else:
            call = connection.set_model(str(params["modelId"]))
        with contextlib.suppress(Exception):  # the record has the answer, whatever it is
            await asyncio.wait_for(call, timeout)


async def cancel_turn(
    connection: AgentConnection, sink: CheckSink, run: Run, text: str, timeouts: Timeouts
) -> None:
    """A turn cancelled as soon as it is under way: at its first message, thought, plan, tool
    call or permission request. Then a short wait for updates that should not come."""
    sink.hold = True
    sink.active.clear()
    prompt = asyncio.ensure_future(connection.prompt(text))
    active = asyncio.ensure_future(sink.active.wait())
    try:
        done, _ = await asyncio.wait(
            {prompt, active}, timeout=timeouts.turn_s, return_when=asyncio.FIRST_COMPLETED
        )
        if prompt in done:
            with contextlib.suppress(Exception):
                prompt.result()
            return
        await connection.cancel()
        sink.cancelled.set()
        try:
            await asyncio.wait_for(asyncio.shield(prompt), CANCEL_ANSWER_S)
        except TimeoutError:
            run.problem = f"no answer to the cancelled prompt within {CANCEL_ANSWER_S:g} s"
            return
        except RequestError:
            pass
        await asyncio.sleep(LATE_UPDATES_S)
    finally:
        active.cancel()
        if not prompt.done():
            prompt.cancel()
        with contextlib.suppress(BaseException):
            await prompt
