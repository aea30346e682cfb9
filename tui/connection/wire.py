"""Checks on raw incoming messages for what the SDK would default, replace or drop silently.

Pure functions on decoded JSON: the transport refuses what they find in requests, and the
client shows a notice for the parts of an update it cannot show.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeAlias, get_type_hints

from acp.schema import (
    CompleteElicitationNotification,
    CreateTerminalRequest,
    KillTerminalRequest,
    ReadTextFileRequest,
    ReleaseTerminalRequest,
    RequestPermissionRequest,
    SessionNotification,
    TerminalOutputRequest,
    WaitForTerminalExitRequest,
    WriteTextFileRequest,
)
from pydantic import BaseModel, ValidationError

from dsh_common.jsonrpc_lines import is_int, meta_shadowing

if TYPE_CHECKING:
    # The checker needs the union written out: the schema names it nowhere but in the type of
    # `SessionNotification.update`. `TuiClient.session_update` overrides the SDK's handler with
    # it, so mypy rejects this alias if it ever lacks a member of the SDK's.
    from acp.schema import (
        AgentMessageChunk,
        AgentPlanContentUpdate,
        AgentPlanRemovedUpdate,
        AgentPlanUpdate,
        AgentThoughtChunk,
        AvailableCommandsUpdate,
        ConfigOptionUpdate,
        CurrentModeUpdate,
        SessionInfoUpdate,
        ToolCallProgress,
        ToolCallStart,
        UsageUpdate,
        UserMessageChunk,
    )

    SessionUpdate: TypeAlias = (
        UserMessageChunk
        | AgentMessageChunk
        | AgentThoughtChunk
        | ToolCallStart
        | ToolCallProgress
        | AgentPlanUpdate
        | AgentPlanContentUpdate
        | AgentPlanRemovedUpdate
        | AvailableCommandsUpdate
        | CurrentModeUpdate
        | ConfigOptionUpdate
        | SessionInfoUpdate
        | UsageUpdate
    )
else:
    # At run time it is the schema's own union, so a new SDK's update kinds come with it.
    SessionUpdate = get_type_hints(SessionNotification)["update"]

KNOWN_UPDATES = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    }
)
KNOWN_TOOL_CONTENT = frozenset({"content", "diff", "terminal"})
KNOWN_BLOCKS = frozenset({"text", "image", "audio", "resource_link", "resource"})
PLAN_PRIORITIES = frozenset({"high", "medium", "low"})
PLAN_STATUSES = frozenset({"pending", "in_progress", "completed"})

# Parameter names of the requests and notifications the client serves. The SDK's router
# spreads the keys of `_meta` into the handler's keyword arguments *after* validation, so a
# `_meta` key with one of these names would replace a validated parameter with a raw value.
_SHADOW_MODELS: dict[str, type[BaseModel]] = {
    "session/update": SessionNotification,
    "session/request_permission": RequestPermissionRequest,
    "fs/read_text_file": ReadTextFileRequest,
    "fs/write_text_file": WriteTextFileRequest,
    "terminal/create": CreateTerminalRequest,
    "terminal/output": TerminalOutputRequest,
    "terminal/wait_for_exit": WaitForTerminalExitRequest,
    "terminal/kill": KillTerminalRequest,
    "terminal/release": ReleaseTerminalRequest,
    "elicitation/complete": CompleteElicitationNotification,
}
_SHADOWABLE: dict[str, frozenset[str]] = {
    method: frozenset(model.model_fields) - {"field_meta"}
    for method, model in _SHADOW_MODELS.items()
}
TURN_ONLY = frozenset({"session/request_permission", "fs/write_text_file", "terminal/create"})
"""Requests that start something new: refused when no prompt turn is running (docs/security.md)."""


def unsupported_parts(message: dict[str, Any]) -> list[str]:
    """What in a raw `session/update` the SDK would drop silently: unknown kinds and types.

    The SDK validates before our handler runs and discards what it cannot parse, so this
    looks at the raw message to tell the user something was not shown.
    """
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict):
        return ["malformed session/update"]
    kind = update.get("sessionUpdate")
    if not isinstance(kind, str):
        return ["malformed session/update (it names no kind)"]
    if kind not in KNOWN_UPDATES:
        return [f"update kind {kind!r}"]
    found: list[str] = []
    content = update.get("content")
    if kind in ("tool_call", "tool_call_update") and isinstance(content, list):
        for item in content:
            item_type = item.get("type") if isinstance(item, dict) else None
            if item_type not in KNOWN_TOOL_CONTENT:
                found.append(f"tool call content type {item_type!r}")
            elif item_type == "content":
                block = item.get("content")
                block_type = block.get("type") if isinstance(block, dict) else None
                if block_type not in KNOWN_BLOCKS:
                    found.append(f"content block type {block_type!r}")
    elif (
        kind.endswith("_chunk")
        and isinstance(content, dict)
        and content.get("type") not in KNOWN_BLOCKS
    ):
        found.append(f"content block type {content.get('type')!r}")
    elif kind == "plan" and isinstance(update.get("entries"), list):
        found += plan_problems(update["entries"])
    if not found:
        try:
            SessionNotification.model_validate(params)
        except ValidationError:
            found.append(f"malformed {kind} update")  # the SDK drops it whole
    return found


def plan_problems(entries: list[Any]) -> list[str]:
    """Plan entries the SDK drops one by one, keeping the rest of the plan: a priority or a
    status outside the schema's, or no text."""
    found: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            found.append("plan entry that is not an object")
            continue
        priority, status = entry.get("priority"), entry.get("status")
        if priority not in PLAN_PRIORITIES:
            found.append(f"plan entry priority {priority!r}")
        elif status not in PLAN_STATUSES:
            found.append(f"plan entry status {status!r}")
        elif not isinstance(entry.get("content"), str):
            found.append("plan entry without text")
    return found


def _optional_int(params: dict[str, Any], key: str, minimum: int) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not is_int(value):
        return f"{key} must be an integer, got {json.dumps(value)[:40]}"
    if value < minimum:
        return f"{key} must be {minimum} or more, got {value}"
    return None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _env_entries(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, dict) and isinstance(v.get("name"), str) and isinstance(v.get("value"), str)
        for v in value
    )


def param_problem(method: str, params: Any) -> str | None:
    """Invalid parameters that the SDK would quietly replace with defaults.

    The schema marks `line`, `limit`, `outputByteLimit` and `cwd` "default on error" and drops
    invalid `args` items, so `line=-5` would read from the start and `outputByteLimit=-1` would
    mean no limit. JSON-RPC asks for -32602 instead.
    """
    if not isinstance(params, dict):
        return None  # the SDK's own validation answers -32602
    if method == "fs/read_text_file":
        return _optional_int(params, "line", 1) or _optional_int(params, "limit", 0)
    if method == "terminal/create":
        problem = _optional_int(params, "outputByteLimit", 0)
        if problem:
            return problem
        if params.get("cwd") is not None and not isinstance(params["cwd"], str):
            return "cwd must be a string"
        if params.get("args") is not None and not _strings(params["args"]):
            return "args must be a list of strings"
        if params.get("env") is not None and not _env_entries(params["env"]):
            return "env must be a list of {name, value} strings"
    return None


def shadowing_meta(method: str, params: Any) -> list[str]:
    """`_meta` keys that the SDK would spread over the validated parameters of `method`."""
    return meta_shadowing(params, _SHADOWABLE.get(method, frozenset()))
