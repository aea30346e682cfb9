"""The turn loop: model stream -> events -> permission -> execution, until the model stops.

Every step streams one model call; its text, reasoning, tool calls and usage become session
events as they arrive (so cards appear while the model is still talking). The step's calls
then run in order: each goes through the permission policy, maybe a
`session/request_permission`, then the tool; runs of consecutive read-only calls that need no
question run concurrently. Results go back to the model on the next step. A turn ends when the
model stops, fails, hits the step limit, or is cancelled; every call it made ends with a
result event, so the log and the client never keep a card spinning.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp.schema import ToolCallUpdate

from agent.attachments import Attachment, attachments_to_json
from agent.cancel_results import ABANDONED, ABORTED_BEFORE_DISPATCH
from agent.events import (
    Notice,
    ReasoningChunk,
    StepEnd,
    TextChunk,
    Title,
    ToolCall,
    ToolFinished,
    ToolOutput,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
)
from agent.models.base import (
    ChatMessage,
    Finish,
    Model,
    ModelDelta,
    NoticeDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
    clean_call_id,
    clean_tool_name,
)
from agent.permissions import (
    Answer,
    Decision,
    PathArgError,
    decide,
    permission_options,
    read_answer,
    resolve_path,
    tool_path,
)
from agent.presenter import call_meta, parse_arguments
from agent.session import AgentSession, StopReason
from agent.tools import ALL_TOOLS, openai_tool_specs
from agent.tools.base import Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)

DEFAULT_MAX_STEPS = 50
CONTEXT_WINDOW = 128_000
"""The window `usage_update.size` is measured against: DeepSeek's, and a fair nominal value
for models that do not say (the Model protocol carries no window size)."""

ABORTED_BY_SHUTDOWN = "tool call aborted: dsh-agent stopped (the client went away)"
TOOL_ABANDON_S = 4.0
# After a cancel, how long an open permission question may take to be settled by the client
# (which answers it `cancelled`): the turn's answer waits for it, since the question is an
# operation of the turn, and a request and a cancel can cross on the wire.
PERMISSION_SETTLE_S = 2.0
"""After a cancel, how long a running tool may take to stop before the turn abandons it (bash
needs up to its kill grace plus pipe drains; a tool stuck in a system call never stops)."""
TOOL_SPECS = openai_tool_specs()

SYSTEM_PROMPT = """\
You are dsh-agent, a coding agent working in the user's workspace {cwd}. Use the tools to \
read, write and edit files and to run shell commands there; paths may be absolute or \
relative to the workspace. Read a file before editing it, keep edits minimal, and use \
todo_write to plan multi-step work. Some calls need the user's permission and may be \
rejected: then stop and ask how to proceed. Answer briefly, in Markdown."""


def title_for(text: str, limit: int = 60) -> str:
    """A session title from a prompt: its first non-blank line, whitespace collapsed."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    title = " ".join(line.split())
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"


@dataclass
class _StepResult:
    finish: Finish | None  # None: cancelled mid-stream
    calls: list[ToolCall]


def start_turn(
    session: AgentSession,
    text: str,
    *,
    command: bool,
    title: str | None,
    attachments: Sequence[Attachment] = (),
) -> None:
    """Log the turn's opening events; the title only for the session's first model turn."""
    session.emit(TurnStart(session.history.turns + 1, command))
    session.emit(UserMessage(text, attachments_to_json(attachments)))
    if title is not None:
        session.emit(Title(title))
        session.titled = True


async def run_model_turn(
    session: AgentSession,
    text: str,
    model: Model,
    *,
    title: str | None = None,
    attachments: Sequence[Attachment] = (),
) -> StopReason:
    """One prompt answered by `model`; returns the ACP stop reason."""
    cancel = session.cancel_event
    start_turn(session, text, command=False, title=title, attachments=attachments)
    stop: StopReason = "end_turn"
    try:
        stop = await _steps(session, model, cancel)
    except asyncio.CancelledError:  # the connection is closing: log a clean end, then go
        _close_open_calls(session, ABORTED_BY_SHUTDOWN)
        session.emit(TurnEnd("cancelled"))
        raise
    except Exception as error:  # a bug here must still end the turn cleanly
        log.exception("the turn failed")
        _close_open_calls(session, "tool call not run: the turn failed")
        session.emit(Notice(f"dsh-agent failed: {type(error).__name__}: {error}", "error"))
    _close_open_calls(session, ABORTED_BEFORE_DISPATCH)
    session.emit(TurnEnd(stop))
    return stop


async def _steps(session: AgentSession, model: Model, cancel: asyncio.Event) -> StopReason:
    for _ in range(session.max_steps):
        if cancel.is_set():
            return "cancelled"
        step = await _model_step(session, model, cancel)
        finish = step.finish
        if finish is None or finish.reason == "cancelled":
            _finish_unrun(session, step.calls, ABORTED_BEFORE_DISPATCH)
            return "cancelled"
        session.emit(StepEnd(finish.reason))
        if finish.reason == "error":
            _finish_unrun(session, step.calls, "tool call not run: the model reply failed")
            session.emit(Notice(finish.message or "the model failed", "error"))
            return "end_turn"
        if finish.reason == "length":
            _finish_unrun(session, step.calls, "tool call not run: the model reply was cut off")
            session.emit(
                Notice("The model hit its output limit, so its reply is cut short.", "warning")
            )
            return "max_tokens"
        if not step.calls:
            return "end_turn"
        if await _run_calls(session, step.calls, cancel):
            return "cancelled"
    session.emit(
        Notice(
            f"Stopped after {session.max_steps} model steps, this turn's limit. "
            "Send another message to let the agent continue.",
            "warning",
        )
    )
    return "max_turn_requests"


def _messages(session: AgentSession) -> list[ChatMessage]:
    system: ChatMessage = {"role": "system", "content": SYSTEM_PROMPT.format(cwd=session.cwd)}
    return [system, *session.history.messages]


def _unique_id(session: AgentSession, call_id: str) -> str:
    """Call ids key the client's cards: a model that repeats one gets it suffixed."""
    if call_id and call_id not in session.history.call_ids:
        return call_id
    base, number = call_id or "call", 2
    while f"{base}-{number}" in session.history.call_ids:
        number += 1
    return f"{base}-{number}"


async def _next(
    stream: AsyncIterator[ModelDelta], waiter: asyncio.Future[Any]
) -> ModelDelta | None:
    """The next delta, or None when the turn was cancelled first."""
    step = asyncio.ensure_future(anext(stream))
    racing: set[asyncio.Future[Any]] = {step, waiter}
    await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
    if not step.done():
        step.cancel()
        with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration, Exception):
            await step
        return None
    try:
        return step.result()
    except StopAsyncIteration:
        return Finish("error", "the model's stream ended without a finish")
    except Exception as error:  # models should not raise; contain the ones that do
        log.exception("the model raised")
        return Finish("error", f"the model failed: {type(error).__name__}: {error}")


async def _model_step(session: AgentSession, model: Model, cancel: asyncio.Event) -> _StepResult:
    specs = [*TOOL_SPECS, *session.mcp.specs()]
    stream = model.stream(_messages(session), specs, cwd=session.cwd)
    waiter: asyncio.Future[Any] = asyncio.ensure_future(cancel.wait())
    calls: list[ToolCall] = []
    finish: Finish | None = None
    try:
        while finish is None:
            delta = await _next(stream, waiter)
            match delta:
                case None:
                    break
                case TextDelta(text=text) if text:
                    session.emit(TextChunk(text))
                case ReasoningDelta(text=text) if text:
                    session.emit(ReasoningChunk(text))
                case ToolCallDelta():
                    # What the card needs from the workspace is read now, and logged with the
                    # call, so the card is the same live and on replay (the edit's start line).
                    # The id and name come from an untrusted server and reach the wire: cleaned.
                    name = clean_tool_name(delta.name)
                    cleaned_id = clean_call_id(delta.id)
                    if (cleaned_id, name) != (delta.id, delta.name):
                        log.warning(
                            "the model sent a tool call id or name with unsafe characters "
                            "(%r, %r): used as (%r, %r)",
                            delta.id[:200],
                            delta.name[:200],
                            cleaned_id,
                            name,
                        )
                    meta = call_meta(name, delta.arguments, session.cwd, _tools(session))
                    call_id = _unique_id(session, cleaned_id)
                    call = ToolCall(call_id, name, delta.arguments, meta)
                    session.emit(call)
                    calls.append(call)
                case UsageDelta():
                    session.emit(Usage(delta.input_tokens, delta.output_tokens, CONTEXT_WINDOW))
                case NoticeDelta():
                    session.emit(Notice(delta.text, "warning"))
                case Finish():
                    finish = delta
                case _:
                    pass
    finally:
        waiter.cancel()
        close = getattr(stream, "aclose", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()
    return _StepResult(finish, calls)


def _finish(session: AgentSession, call: ToolCall, result: ToolResult) -> None:
    session.emit(ToolFinished(call.call_id, call.name, result.output, result.is_error, result.meta))


def _finish_unrun(session: AgentSession, calls: Sequence[ToolCall], why: str) -> None:
    for call in calls:
        if call.call_id in session.history.open_calls:
            _finish(session, call, ToolResult.error(why))


def _close_open_calls(session: AgentSession, why: str) -> None:
    for call_id, name in list(session.history.open_calls.items()):
        session.emit(ToolFinished(call_id, name, f"Error: {why}", True, None))


@dataclass
class _Planned:
    call: ToolCall
    tool: Tool | None
    args: Mapping[str, object] | None
    problem: str | None = None
    path: str | None = None  # the path argument as given
    resolved: str | None = None  # its one resolution: what the policy judges, the tool opens


def _tools(session: AgentSession) -> Mapping[str, Tool]:
    """The agent's own tools and the session's MCP tools, by name."""
    if not session.mcp.tools:
        return ALL_TOOLS
    return {**ALL_TOOLS, **session.mcp.tools}


def _plan(call: ToolCall, cwd: str, tools: Mapping[str, Tool] = ALL_TOOLS) -> _Planned:
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(tools)
        return _Planned(call, None, None, f"unknown tool {call.name!r} (the tools are {known})")
    args = parse_arguments(call.arguments)
    if not isinstance(args, Mapping):
        return _Planned(call, tool, None, f"the arguments of {call.name} are not a JSON object")
    path = tool_path(call.name, args)
    if path is None:
        return _Planned(call, tool, args)
    try:
        resolved = resolve_path(cwd, path)
    except PathArgError as error:  # fails this call only, never the turn
        return _Planned(call, tool, args, f"{call.name}: {error}")
    except OSError as error:  # e.g. a link loop or a name too long
        return _Planned(call, tool, args, f"{call.name}: cannot resolve {path!r}: {error}")
    return _Planned(call, tool, args, path=path, resolved=resolved)


def _decide(session: AgentSession, planned: _Planned) -> Decision:
    assert planned.tool is not None and planned.args is not None
    return decide(
        session.mode,
        planned.call.name,
        planned.tool,
        planned.args,
        session.cwd,
        session.grants,
        resolved=planned.resolved,
    )


async def _run_calls(session: AgentSession, calls: list[ToolCall], cancel: asyncio.Event) -> bool:
    """Run one step's calls in order; True when the turn was cancelled meanwhile."""
    tools = _tools(session)
    plans = [_plan(call, session.cwd, tools) for call in calls]
    index = 0
    while index < len(plans):
        if cancel.is_set():
            _finish_unrun(session, calls[index:], ABORTED_BEFORE_DISPATCH)
            return True
        planned = plans[index]
        if planned.problem is not None:
            _finish(session, planned.call, ToolResult.error(planned.problem))
            index += 1
            continue
        decision = _decide(session, planned)
        if decision.verdict == "allow" and planned.tool is not None and planned.tool.read_only:
            batch = [planned]
            while index + len(batch) < len(plans):
                following = plans[index + len(batch)]
                if following.problem is not None or following.tool is None:
                    break
                if not following.tool.read_only or _decide(session, following).verdict != "allow":
                    break
                batch.append(following)
            results = await asyncio.gather(*(_execute(session, p, cancel) for p in batch))
            for item, result in zip(batch, results, strict=True):
                _finish(session, item.call, result)
            index += len(batch)
            continue
        if decision.verdict == "refuse":
            _finish(session, planned.call, ToolResult.error(decision.reason))
        elif decision.verdict == "ask":
            answer = await _ask(session, planned.call, decision, cancel)
            if cancel.is_set():
                _finish_unrun(session, calls[index:], ABORTED_BEFORE_DISPATCH)
                return True
            if answer == "reject":
                why = f"the user rejected this {planned.call.name} call"
                _finish(session, planned.call, ToolResult.error(why))
            elif answer == "cancelled":  # dismissed without a session/cancel: still a no
                why = "the permission request was dismissed, so the call did not run"
                _finish(session, planned.call, ToolResult.error(why))
            else:
                if answer == "allow-always":
                    session.grants.grant(planned.call.name, decision.path)
                _finish(session, planned.call, await _execute(session, planned, cancel))
        else:
            _finish(session, planned.call, await _execute(session, planned, cancel))
        index += 1
    return cancel.is_set()


async def _ask(
    session: AgentSession, call: ToolCall, decision: Decision, cancel: asyncio.Event
) -> Answer:
    """`session/request_permission` for one call, after its `tool_call` is on the wire."""
    await session.flush()
    card = session.cards.get(call.call_id)
    # The card's own content (a write's diff, a command's description) goes with the
    # question: some clients show only the request, and must still see what they approve.
    # It is the content the tool_call already carried, so a client that applies the request
    # as an update to the card changes nothing.
    request = ToolCallUpdate(
        tool_call_id=call.call_id,
        title=card.title if card is not None else call.name,
        kind=card.kind if card is not None else None,
        content=card.content if card is not None else None,
        field_meta={"dsh-agent/reason": decision.reason},
    )
    options = permission_options(call.name, decision.path)
    asking = asyncio.ensure_future(session.ask(request, options))
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({asking, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if not asking.done():
        await asyncio.wait({asking}, timeout=PERMISSION_SETTLE_S)
        if not asking.done():
            asking.cancel()
        return "cancelled"  # whatever the client answered: the turn is over
    try:
        return read_answer(asking.result())
    except Exception as error:  # fail closed: a request that failed is a rejection
        log.warning("permission request failed (%s); rejecting the call", error)
        return "reject"


async def _execute(session: AgentSession, planned: _Planned, cancel: asyncio.Event) -> ToolResult:
    assert planned.tool is not None and planned.args is not None
    call_id = planned.call.call_id

    def on_output(data: str) -> None:
        session.emit(ToolOutput(call_id, data))

    context = ToolContext(
        cwd=Path(session.cwd),
        read_stamps=session.read_stamps,
        jobs=session.jobs,
        cancel=cancel,
        on_output=on_output,
        resolved={}
        if planned.path is None or planned.resolved is None
        else {planned.path: planned.resolved},
    )
    running = asyncio.ensure_future(planned.tool.execute(planned.args, context))
    try:
        return await _settle(running, cancel, planned.call.name)
    except asyncio.CancelledError:
        running.cancel()
        raise
    except Exception as error:  # a tool bug is the model's problem to read, not a crash
        log.exception("tool %s raised", planned.call.name)
        return ToolResult.error(f"{planned.call.name} failed: {type(error).__name__}: {error}")


async def _settle(
    running: asyncio.Future[ToolResult], cancel: asyncio.Event, name: str
) -> ToolResult:
    """The tool's result; after a cancel, at most TOOL_ABANDON_S more of waiting.

    A tool that ignores the cancel (a read stuck in a hung file system, say) is abandoned,
    so the turn ends and the session answers its next prompt; its thread, if any, is a
    daemon and holds nothing the session needs.
    """
    waiter: asyncio.Future[Any] = asyncio.ensure_future(cancel.wait())
    racing: set[asyncio.Future[Any]] = {running, waiter}
    try:
        await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            await asyncio.wait({running}, timeout=TOOL_ABANDON_S)
        if not running.done():
            log.warning(
                "tool %s did not stop %.0f s after the cancel; abandoned", name, TOOL_ABANDON_S
            )
            running.cancel()
            return ToolResult.error(ABANDONED)
        return running.result()
    finally:
        waiter.cancel()


__all__ = [
    "ABORTED_BEFORE_DISPATCH",
    "CONTEXT_WINDOW",
    "DEFAULT_MAX_STEPS",
    "SYSTEM_PROMPT",
    "run_model_turn",
    "start_turn",
    "title_for",
]
