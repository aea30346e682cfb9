"""One MCP server's tool as an agent tool: its schema for the model, its card, its call."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from mcp import types

from agent.jsonvalue import JsonObject, JsonValue, as_object
from agent.mcp.connection import McpConnection, McpError
from agent.mcp.content import result_parts
from agent.mcp.names import tool_name
from agent.mcp.present import McpPresenter, call_record, kind_of
from agent.tools.base import ToolContext, ToolResult
from agent.views import GenericCallView, GenericResultView

CANCELLED = "the MCP call was cancelled"


def _schema(tool: types.Tool) -> JsonObject:
    schema = as_object(tool.input_schema) if isinstance(tool.input_schema, Mapping) else {}
    if schema.get("type") != "object":
        schema = {**schema, "type": "object"}
    schema.setdefault("properties", {})
    return schema


class McpTool:
    """`mcp__SERVER__TOOL`: read-only exactly when the server marks it `readOnlyHint`."""

    def __init__(self, connection: McpConnection, tool: types.Tool) -> None:
        self.connection = connection
        self.tool = tool
        self.name = tool_name(connection.spec.key, tool.name)
        self.kind = kind_of(tool.annotations)
        self.read_only = self.kind == "read"
        self.description = (
            tool.description or tool.title or tool.name
        ) + f" (MCP server {connection.spec.name})"
        self.parameters = _schema(tool)
        self._presenter = McpPresenter(self.name)

    def inspect_call(self, args: Mapping[str, object], ctx: ToolContext) -> JsonValue:
        return call_record(self.connection.spec.name, self.tool.name, self.kind)

    def present_call(
        self, args: Mapping[str, object], call_meta: JsonValue = None
    ) -> GenericCallView:
        return self._presenter.present_call(args, call_meta)

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> GenericResultView | None:
        return self._presenter.present_result(args, result)

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        arguments: dict[str, Any] = dict(as_object(args))
        calling = asyncio.ensure_future(self.connection.call(self.tool.name, arguments))
        cancelled = asyncio.ensure_future(ctx.cancel.wait())
        try:
            await asyncio.wait({calling, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            cancelled.cancel()
        if not calling.done():
            calling.cancel()  # the SDK sends notifications/cancelled for the request
            with contextlib.suppress(BaseException):
                await calling
            return ToolResult.error(CANCELLED)
        try:
            result = calling.result()
        except McpError as error:
            return ToolResult.error(f"MCP server {self.connection.spec.name} failed: {error}")
        output, meta = result_parts(result)
        if result.is_error:
            return ToolResult.error(output, meta)
        return ToolResult(output, False, meta)


__all__ = ["CANCELLED", "McpTool"]
