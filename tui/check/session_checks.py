"""The handshake, the session, capability respect and cancel, each over the runs' records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp import schema
from pydantic import TypeAdapter

from tui.check.results import Result
from tui.check.schema import validate_strictly
from tui.check.wire_log import Run
from tui.check.wire_view import agent_requests, exchange, exchanges, turns, updates, where

HANDSHAKE, SESSION, TERMINAL_OFF, FS_OFF, CANCEL = (
    "handshake",
    "session",
    "capabilities: terminal off",
    "capabilities: fs off",
    "cancel",
)
PROTOCOL_VERSION = 1
AUTH_METHOD = TypeAdapter(
    schema.EnvVarAuthMethod | schema.TerminalAuthMethod | schema.AuthMethodAgent
).validate_python
# What belongs to a turn: none of it may follow the answer to a cancelled prompt.
TURN_UPDATES = (
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
)


def _flags(capabilities: dict[str, Any]) -> str:
    offered = [key for key, value in capabilities.items() if value is True]
    offered += [
        f"{key}.{inner}"
        for key, value in capabilities.items()
        if isinstance(value, dict)
        for inner, flag in value.items()
        if flag is True or isinstance(flag, dict)
    ]
    return ", ".join(offered) or "none"


def check_handshake(runs: Sequence[Run]) -> Result:
    said = ""
    for run in runs:
        init = exchange(run, "initialize")
        if init is None or init.answer is None:
            return Result.failed(HANDSHAKE, run.problem or f"{run.name}: no answer to initialize")
        if init.error is not None:
            error = init.error
            return Result.failed(
                HANDSHAKE, f"initialize refused: {error.get('code')} {error.get('message')}"
            )
        result = init.result if isinstance(init.result, dict) else {}
        version = result.get("protocolVersion")
        if version != PROTOCOL_VERSION:
            return Result.failed(
                HANDSHAKE,
                f"protocolVersion {version!r}: the client sent {PROTOCOL_VERSION}, "
                "and speaks no other",
            )
        capabilities = result.get("agentCapabilities", {})
        problem = validate_strictly(schema.AgentCapabilities.model_validate, capabilities)
        if problem is not None:
            return Result.failed(HANDSHAKE, f"agentCapabilities: {problem}")
        methods = result.get("authMethods", [])
        if not isinstance(methods, list):
            return Result.failed(HANDSHAKE, "authMethods is not a list")
        for number, method in enumerate(methods):
            problem = validate_strictly(AUTH_METHOD, method)
            if problem is not None:
                return Result.failed(HANDSHAKE, f"authMethods[{number}]: {problem}")
        names = ", ".join(str(m.get("id")) for m in methods if isinstance(m, dict)) or "none"
        flags = _flags(capabilities) if isinstance(capabilities, dict) else "none"
        said = f"protocol {version}; capabilities: {flags}; authMethods: {names}"
    return Result.passed(HANDSHAKE, said) if said else Result.skipped(HANDSHAKE, "no agent ran")


def needs_session(runs: Sequence[Run]) -> str | None:
    """Why the checks that need a session cannot run, or None when every run opened one."""
    for run in runs:
        if run.needs_login is not None:
            return f"skipped: {run.needs_login}"
        opened = exchange(run, "session/new")
        if opened is None or opened.answer is None or opened.error is not None:
            return f"skipped: {run.name} opened no session"
    return None


def check_session(runs: Sequence[Run]) -> Result:
    for run in runs:
        if run.needs_login is not None:
            return Result.skipped(SESSION, run.needs_login)
        opened = exchange(run, "session/new")
        if opened is None or opened.answer is None:
            return Result.failed(SESSION, run.problem or f"{run.name}: no answer to session/new")
        if opened.error is not None:
            error = opened.error
            return Result.failed(
                SESSION, f"session/new refused: {error.get('code')} {error.get('message')}"
            )
        answered = any(turn.prompt.answer is not None for turn in turns(run))
        if run.problem is not None and not answered:
            return Result.failed(SESSION, f"{run.name}: {run.problem}")
    turns_run = sum(len(turns(run)) for run in runs)
    return Result.passed(SESSION, f"{len(runs)} sessions, {turns_run} turns")


def _off(run: Run, capability: str) -> bool:
    caps = run.capabilities
    if capability == "terminal":
        return caps.get("terminal") is not True
    fs = caps.get("fs")
    if not isinstance(fs, dict):
        return True
    return fs.get("readTextFile") is not True and fs.get("writeTextFile") is not True


def _check_off(runs: Sequence[Run], check: str, capability: str, prefix: str) -> Result:
    tried = [run for run in runs if _off(run, capability)]
    ran = [run for run in tried if any(t.prompt.answer is not None for t in turns(run))]
    if not ran:
        return Result.skipped(check, f"no turn ran with {capability} off")
    for run in ran:
        for index, line in agent_requests(run):
            if (line.method or "").startswith(prefix):
                return Result.failed(
                    check, f"{where(run, index)}: {line.method} with {capability} off"
                )
    kinds = sorted(
        {
            str(each.update.get("kind"))
            for run in ran
            for each in updates(run)
            if each.kind == "tool_call" and not each.replayed
        }
    )
    return Result.passed(
        check, f"no {prefix}* request; tool calls made: {', '.join(kinds) or 'none'}"
    )


def check_terminal_off(runs: Sequence[Run]) -> Result:
    return _check_off(runs, TERMINAL_OFF, "terminal", "terminal/")


def check_fs_off(runs: Sequence[Run]) -> Result:
    return _check_off(runs, FS_OFF, "fs", "fs/")


def check_cancel(runs: Sequence[Run]) -> Result:
    for run in runs:
        for turn in turns(run):
            if turn.cancel_index is None:
                continue
            prompt = turn.prompt
            if prompt.answer_index is None:
                return Result.failed(CANCEL, "no answer to session/prompt after session/cancel")
            if prompt.error is not None:
                error = prompt.error
                return Result.failed(
                    CANCEL,
                    f"session/prompt answered error {error.get('code')} after session/cancel, "
                    "not stopReason cancelled",
                )
            if turn.stop_reason != "cancelled":
                return Result.failed(
                    CANCEL, f"stopReason {turn.stop_reason!r} after session/cancel, not cancelled"
                )
            asked = [
                each
                for each in exchanges(run, "in")
                if each.method == "session/request_permission"
                and prompt.index < each.index < prompt.answer_index
            ]
            for each in asked:
                if each.answer_index is None or each.answer_index > prompt.answer_index:
                    return Result.failed(
                        CANCEL, f"{where(run, each.index)}: a permission request left open"
                    )
            following = [t.prompt.index for t in turns(run) if t.prompt.index > prompt.index]
            until = following[0] if following else len(run.lines)
            late = [
                each
                for each in updates(run)
                if prompt.answer_index < each.index < until
                and each.session_id == turn.session_id
                and each.kind in TURN_UPDATES
                and not each.replayed
            ]
            if late:
                return Result.failed(
                    CANCEL,
                    f"{where(run, late[0].index)}: {late[0].kind} after the cancelled answer",
                )
            return Result.passed(
                CANCEL,
                f"stopReason cancelled; {len(asked)} permission requests settled; "
                "no update after the answer",
            )
    for run in runs:
        if run.problem is not None and "cancel" in run.problem:
            return Result.skipped(CANCEL, run.problem)
    return Result.skipped(CANCEL, "the turn ended before there was anything to cancel")
