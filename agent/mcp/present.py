"""MCP call cards, drawn from the session log alone: live, replayed, with no server at hand.

What a card needs beyond the arguments (the server's and tool's own names, the kind from the
tool's annotations) is recorded with the call (`ToolCall.meta`), and the result's blocks with
the result (`ToolFinished.meta`), so the presenter never asks a server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent.jsonvalue import JsonObject, JsonValue, as_object
from agent.mcp.content import card_blocks
from agent.mcp.names import split_name
from agent.tools.base import ToolResult, error_text
from agent.views import GenericCallView, GenericResultView, TextBlock, ToolCallKind

if TYPE_CHECKING:  # the SDK is imported only by sessions that have MCP servers
    from mcp import types

META_KEY = "mcp"


def kind_of(annotations: types.ToolAnnotations | None) -> ToolCallKind:
    """`read` for a read-only tool, `delete` for a destructive one, `edit` for one that says
    it is not destructive, else `other` (the hints are the server's word, not a guarantee)."""
    if annotations is None:
        return "other"
    if annotations.read_only_hint:
        return "read"
    if annotations.destructive_hint:
        return "delete"
    if annotations.destructive_hint is False:
        return "edit"
    return "other"


def call_record(server: str, tool: str, kind: ToolCallKind) -> JsonObject:
    """What `ToolCall.meta` keeps for an MCP call's card."""
    return {META_KEY: {"server": server, "tool": tool, "kind": kind}}


_KINDS: frozenset[str] = frozenset(
    {"read", "edit", "delete", "move", "search", "execute", "fetch", "other"}
)


class McpPresenter:
    """The card of any `mcp__SERVER__TOOL` call; stateless, one instance serves every name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def inspect_call(self, args: Mapping[str, object], ctx: object) -> JsonValue:
        """Nothing to read from the workspace: what the card needs came with the tool list
        (`McpTool.inspect_call`); here only so the presenter hands the record back."""
        return None

    def present_call(
        self, args: Mapping[str, object], call_meta: JsonValue = None
    ) -> GenericCallView:
        server, tool = split_name(self.name) or ("mcp", self.name)
        kind: ToolCallKind = "other"
        record = call_meta.get(META_KEY) if isinstance(call_meta, dict) else None
        if isinstance(record, dict):
            server = str(record.get("server", server))
            tool = str(record.get("tool", tool))
            recorded = record.get("kind")
            if isinstance(recorded, str) and recorded in _KINDS:
                kind = recorded  # type: ignore[assignment]
        return GenericCallView(
            card="generic", title=f"{server} · {tool}", kind=kind, raw_input=as_object(args)
        )

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> GenericResultView | None:
        blocks = card_blocks(result.meta)
        if not blocks:  # not run, cancelled, the server failed, no content: the text says
            text = error_text(result.output) if result.is_error else result.output
            return GenericResultView(card="generic", content=(TextBlock(text),))
        return GenericResultView(card="generic", content=blocks)


def mcp_presenter(name: str) -> McpPresenter | None:
    """The presenter for an MCP tool's name, None for any other name."""
    return McpPresenter(name) if split_name(name) is not None else None


__all__ = ["META_KEY", "McpPresenter", "call_record", "kind_of", "mcp_presenter"]
