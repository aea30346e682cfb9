"""Per-session tool-call presentation: correlation, containment, and the capability snapshot.

One `SessionPresenter` lives with each session, and a throwaway one renders a session log on
`session/load`. Its only state is which card each in-flight call got and the live output already
sent, so feeding it the same events always yields the same updates: replay equals live.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from agent.bridge import ToolUpdate, call_update, output_update, plan_update, result_update
from agent.cancel_results import cancelled_result
from agent.jsonvalue import JsonObject, JsonValue, as_json, as_object
from agent.mcp.present import McpPresenter, mcp_presenter
from agent.tools import ALL_TOOLS
from agent.tools.base import PlanTool, Tool, ToolContext, ToolResult, error_text
from agent.views import (
    GenericCallView,
    GenericResultView,
    PlanItem,
    TerminalResultView,
    TextBlock,
    ToolCallView,
    ToolResultView,
)

log = logging.getLogger(__name__)

ErrorSink = Callable[[str, BaseException], None]


def parse_arguments(raw: str) -> object:
    """Tool-call arguments as the model sent them: `''` is `{}`, non-JSON stays a string."""
    if not raw.strip():
        return {}
    try:
        parsed: object = json.loads(raw)
    except ValueError:
        return raw
    return parsed


@runtime_checkable
class CallInspector(Protocol):
    """A tool whose call card needs a fact about the workspace at the moment the call arrives.

    The edit tool's card wants the line its `old_string` starts on. Presenters must stay pure
    functions of the log, so the fact is read once, when the call is received
    (`inspect_call`), stored in the logged call event (`ToolCall.meta`) and handed back to
    `present_call` live and on replay alike.
    """

    def inspect_call(self, args: Mapping[str, object], ctx: ToolContext) -> JsonValue: ...

    def present_call(
        self, args: Mapping[str, object], call_meta: JsonValue = None
    ) -> ToolCallView | None: ...


def call_meta(
    tool_name: str,
    arguments: str,
    cwd: str | os.PathLike[str],
    tools: Mapping[str, Tool] = ALL_TOOLS,
) -> JsonValue:
    """What `tool_name`'s call card needs from the workspace now (None for most tools).

    Paths resolve as the tool's own execution resolves them. Never raises: an unreadable
    file, odd arguments or a failing inspector just mean the card goes without.
    """
    tool = tools.get(tool_name)
    if not isinstance(tool, CallInspector):
        return None
    args = parse_arguments(arguments)
    if not isinstance(args, Mapping):
        return None
    try:
        return tool.inspect_call(args, ToolContext(cwd=Path(os.fspath(cwd))))
    except Exception as exc:
        log.debug("%s.inspect_call raised; the card goes without", tool_name, exc_info=exc)
        return None


def raw_input_object(args: object) -> JsonObject:
    """The call's arguments as the object `rawInput` must be on the wire.

    A model can send arguments that are not an object (a list, a number, or text that is not
    JSON); those are kept whole under `"arguments"`, so the card still shows them and strict
    clients, which reject a non-object `rawInput`, still accept it.
    """
    if isinstance(args, Mapping):
        return as_object(args)
    return {"arguments": as_json(args)}


def raw_result_view(result: ToolResult) -> GenericResultView:
    """The fallback card: the result text itself, with the `Error: ` prefix on failures."""
    text = error_text(result.output) if result.is_error else result.output
    return GenericResultView(card="generic", content=(TextBlock(text),))


def _log_error(where: str, exc: BaseException) -> None:
    log.warning("%s raised; showing a generic card instead", where, exc_info=exc)


@dataclass(slots=True)
class _Call:
    name: str
    args: object
    card: Literal["generic", "terminal", "diff"]
    streamed: list[str] = field(default_factory=list)


class SessionPresenter:
    """Turns one session's tool calls, live output and results into ACP updates.

    `terminal_cards` is the session's snapshot of the client's `_meta.terminal_output`
    capability; it never changes for the life of the presenter.
    """

    def __init__(
        self,
        session_cwd: str | os.PathLike[str],
        terminal_cards: bool,
        tools: Mapping[str, Tool] | None = None,
        on_error: ErrorSink | None = None,
    ) -> None:
        self.session_cwd = os.fspath(session_cwd)
        self.terminal_cards = terminal_cards
        self._tools = ALL_TOOLS if tools is None else tools
        self._on_error = on_error or _log_error
        self._calls: dict[str, _Call] = {}

    def on_call(
        self, tool_call_id: str, tool_name: str, args: object, meta: JsonValue = None
    ) -> list[ToolUpdate]:
        """The `tool_call` for a new call; `args` may be the raw JSON string or parsed.

        `meta` is what `call_meta` recorded for the call when it was received (from the log).
        """
        if isinstance(args, str):
            args = parse_arguments(args)
        view: ToolCallView | None = None
        tool = self._tool(tool_name)
        if tool is not None and isinstance(args, Mapping):
            try:
                if meta is not None and isinstance(tool, CallInspector):
                    view = tool.present_call(args, meta)
                else:
                    view = tool.present_call(args)
            except Exception as exc:  # a tool's presenter must never break the turn
                self._on_error(f"{tool_name}.present_call", exc)
        raw_input = raw_input_object(args)
        if view is None:
            view = GenericCallView(
                card="generic", title=tool_name, kind="other", raw_input=raw_input
            )
        self._calls[tool_call_id] = _Call(tool_name, args, view.card)
        return [call_update(view, tool_call_id, self.session_cwd, self.terminal_cards, raw_input)]

    def on_output(self, tool_call_id: str, data: str) -> list[ToolUpdate]:
        """A live output chunk: an append-only terminal update, or nothing.

        Nothing when the capability is off, the call is unknown or finished, or its card is
        not a terminal: the client never created a terminal to append to.
        """
        call = self._calls.get(tool_call_id)
        if not data or not self.terminal_cards or call is None or call.card != "terminal":
            return []
        call.streamed.append(data)
        return [output_update(tool_call_id, data)]

    def on_result(
        self, tool_call_id: str, tool_name: str, args: object, result: ToolResult
    ) -> list[ToolUpdate]:
        """The final `tool_call_update`, preceded by a `plan` update for plan tools.

        The card is resolved through the remembered call, which is then forgotten: a result
        for an unknown or already-finished id renders its raw text.
        """
        if isinstance(args, str):
            args = parse_arguments(args)
        call = self._calls.pop(tool_call_id, None)
        updates: list[ToolUpdate] = []
        plan = self._plan(tool_name, call.args if call else args, result)
        if plan is not None:
            updates.append(plan_update(plan))
        view = self._result_view(call, result) if call is not None else raw_result_view(result)
        updates.append(
            result_update(
                view,
                tool_call_id,
                is_error=result.is_error,
                session_cwd=self.session_cwd,
                terminal_cards=self.terminal_cards,
                streamed="".join(call.streamed) if call is not None else "",
                cancelled=cancelled_result(result),
            )
        )
        return updates

    def _result_view(self, call: _Call, result: ToolResult) -> ToolResultView:
        view: ToolResultView | None = None
        tool = self._tool(call.name)
        if tool is not None and isinstance(call.args, Mapping):
            try:
                view = tool.present_result(call.args, result)
            except Exception as exc:
                self._on_error(f"{call.name}.present_result", exc)
        if view is None:
            return raw_result_view(result)
        if isinstance(view, TerminalResultView) and call.card != "terminal":
            return raw_result_view(result)  # orphan guard: no terminal the client never saw
        if isinstance(view, GenericResultView) and view.content is None:
            # A title-only result keeps the raw body: a card is never blanked.
            raw = raw_result_view(result).content
            return GenericResultView(card="generic", title=view.title, content=raw)
        return view

    def _tool(self, name: str) -> Tool | McpPresenter | None:
        """The tool that draws `name`'s card: the agent's own, or any MCP tool's (whose
        cards need only the log, so a replay draws them with no server connected)."""
        return self._tools.get(name) or mcp_presenter(name)

    def _plan(self, tool_name: str, args: object, result: ToolResult) -> list[PlanItem] | None:
        tool = self._tools.get(tool_name)
        if not isinstance(tool, PlanTool):
            return None
        try:
            return tool.present_plan(args if isinstance(args, Mapping) else {}, result)
        except Exception as exc:
            self._on_error(f"{tool_name}.present_plan", exc)
            return None


__all__ = [
    "CallInspector",
    "SessionPresenter",
    "call_meta",
    "parse_arguments",
    "raw_input_object",
    "raw_result_view",
]
