"""Render intents to ACP `session/update` payloads: pure functions, one match arm per card.

Everything the agent shows about a tool call goes through `call_update` / `result_update`
(plus `output_update` for live terminal output and `plan_update`), built as the SDK's schema
models so nothing off-spec reaches the wire. Each direction ends in `assert_never`: a new card
kind in `agent.views` is a type error here until its arm exists. The rules are those of
`docs/wire-contract.md` §2-§5.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, assert_never

from acp.schema import (
    AgentPlanUpdate,
    ContentToolCallContent,
    EmbeddedResourceContentBlock,
    FileEditToolCallContent,
    ImageContentBlock,
    PlanEntry,
    ResourceContentBlock,
    TerminalToolCallContent,
    TextContentBlock,
    TextResourceContents,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
)

from agent.jsonvalue import JsonObject
from agent.views import (
    ContentBlock,
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    ImageBlock,
    PlanItem,
    ResourceBlock,
    TerminalCallView,
    TerminalResultView,
    TextBlock,
    ToolCallView,
    ToolResultView,
    fence_console,
)

ToolUpdate: TypeAlias = ToolCallStart | ToolCallProgress | AgentPlanUpdate
"""Every `session/update` the tool path emits."""

ToolCallContent: TypeAlias = (
    ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
)

__all__ = [
    "LINE_META_KEY",
    "ToolUpdate",
    "call_update",
    "display_title",
    "fence_console",
    "output_update",
    "plan_update",
    "result_update",
    "terminal_cwd",
    "unstreamed_tail",
    "wire_dict",
    "with_explicit_nulls",
    "with_old_text",
]


def display_title(title: str, raw_path: str | None, session_cwd: str | None) -> str:
    """Shorten an absolute in-workspace path in a card title to its workspace-relative form.

    Only the title changes; locations and diff paths stay raw so the editor opens the real
    file. A path outside the workspace (`..` as a whole first segment; `..cache/x` is inside),
    the workspace itself, or any relative path or cwd leaves the title as it is.
    """
    if not raw_path or not session_cwd:
        return title
    if not (os.path.isabs(raw_path) and os.path.isabs(session_cwd)):
        return title
    try:
        rel = os.path.relpath(raw_path, session_cwd)
    except ValueError:  # different drives on Windows
        return title
    if rel in ("", os.curdir, os.pardir) or rel.startswith(os.pardir + os.sep):
        return title
    return title.replace(raw_path, rel)


def terminal_cwd(view_cwd: str | None, session_cwd: str | None) -> str | None:
    """Where a terminal card says it runs: absent = session cwd, relative = joined to it.

    This mirrors how the bash tool resolves `workdir`, so the header shows where the command
    really ran.
    """
    if not view_cwd:
        return session_cwd
    if os.path.isabs(view_cwd) or not session_cwd:
        return view_cwd
    return os.path.normpath(os.path.join(session_cwd, view_cwd))


_MAX_TAIL_LINES = 64


def unstreamed_tail(output: str, streamed: str) -> str:
    """What a final terminal update must append after the live chunks already sent.

    Clients append `terminal_output.data`, so resending the full output would duplicate it.
    When the live text is a prefix of the output the rest is exact. Otherwise (stderr was
    interleaved live but grouped in the result, or output was capped) the trailing lines that
    never appeared live are sent (at most a screenful), which are the status markers such as
    `[exit code: 3]`.
    """
    if not streamed:
        return output
    if output.startswith(streamed):
        return output[len(streamed) :]
    lines = output.split("\n")
    keep = len(lines)
    while keep > 0 and len(lines) - keep < _MAX_TAIL_LINES and lines[keep - 1] not in streamed:
        keep -= 1
    tail = "\n".join(lines[keep:])
    if not tail or streamed.endswith("\n"):
        return tail
    return "\n" + tail


def _text(block: TextBlock) -> ContentToolCallContent:
    return ContentToolCallContent(
        type="content", content=TextContentBlock(type="text", text=block.text)
    )


def _content(block: ContentBlock) -> ContentToolCallContent:
    """One result content block as its ACP block: text, image, or a resource (embedded text,
    else a link). One arm per kind: a new kind is a type error here until it is mapped."""
    match block:
        case TextBlock():
            return _text(block)
        case ImageBlock():
            inner: Any = ImageContentBlock(type="image", data=block.data, mime_type=block.mime_type)
        case ResourceBlock(text=str(text)):
            inner = EmbeddedResourceContentBlock(
                type="resource",
                resource=TextResourceContents(uri=block.uri, text=text, mime_type=block.mime_type),
            )
        case ResourceBlock():
            inner = ResourceContentBlock(
                type="resource_link",
                uri=block.uri,
                name=block.uri.rsplit("/", 1)[-1] or block.uri,
                mime_type=block.mime_type,
            )
        case _:
            assert_never(block)
    return ContentToolCallContent(type="content", content=inner)


DURATION_META_KEY = "dsh.duration_ms"
"""The `_meta` key on a final terminal update: how long the command ran (wire contract §4)."""

NOT_RUN_META_KEY = "dsh.not_run"
CANCELLED_META_KEY = "dsh.cancelled"
"""On a `failed` final update: the call failed because the turn was cancelled (stopped while
it ran, or never started). ACP v1 has no `cancelled` status; clients show it as cancelled."""
"""The `_meta` key on a final update, `true` for a command that never started (rejected,
refused or cancelled before it ran): a replayed card can then say "not run" as the live one,
whose client saw the rejection, did."""

LINE_META_KEY = "dsh.line"
"""The `_meta` key on a `diff` block carrying its start lines (wire contract §6)."""


def _diff(diff: FileDiff) -> FileEditToolCallContent:
    """One `diff` block; with start lines known, `_meta: {"dsh.line": {"old", "new"}}`.

    ACP's diff has no position, so a client numbering a snippet must guess; the start lines
    let it number the block truthfully. Whole-file blocks carry none: they start at line 1.
    """
    meta: dict[str, Any] | None = None
    if diff.old_line is not None and diff.new_line is not None:
        meta = {LINE_META_KEY: {"old": diff.old_line, "new": diff.new_line}}
    return FileEditToolCallContent(
        type="diff",
        path=diff.path,
        old_text=diff.old_text,
        new_text=diff.new_text,
        field_meta=meta,
    )


def _locations(locations: Sequence[FileLocation]) -> list[ToolCallLocation] | None:
    return [ToolCallLocation(path=loc.path, line=loc.line) for loc in locations] or None


def call_update(
    view: ToolCallView,
    tool_call_id: str,
    session_cwd: str | None,
    terminal_cards: bool,
    args: JsonObject | None = None,
) -> ToolCallStart:
    """The `tool_call` for a call view; always `in_progress` (execution starts right away).

    `args` is the call's argument object: a terminal card sends it as `rawInput` (the view
    holds only what the card shows), so clients that show no terminal still see the command,
    as an object, which is all strict clients accept. Without it, `{command, description?}`
    is rebuilt from the view.
    """
    match view:
        case GenericCallView():
            first = view.locations[0].path if view.locations else None
            return ToolCallStart(
                session_update="tool_call",
                tool_call_id=tool_call_id,
                title=display_title(view.title, first, session_cwd),
                kind=view.kind or "other",
                status="in_progress",
                raw_input=view.raw_input,
                locations=_locations(view.locations),
                content=[_text(block) for block in view.content] or None,
            )
        case DiffCallView():
            raw_path = (
                view.locations[0].path
                if view.locations
                else view.diffs[0].path
                if view.diffs
                else None
            )
            return ToolCallStart(
                session_update="tool_call",
                tool_call_id=tool_call_id,
                title=display_title(view.title, raw_path, session_cwd),
                kind="edit",
                status="in_progress",
                locations=_locations(view.locations),
                content=[_diff(diff) for diff in view.diffs] or None,
            )
        case TerminalCallView():
            content: list[ToolCallContent] = []
            if view.description:
                content.append(_text(TextBlock(view.description)))
            meta: dict[str, Any] | None = None
            if terminal_cards:
                content.append(TerminalToolCallContent(type="terminal", terminal_id=tool_call_id))
                info: dict[str, Any] = {"terminal_id": tool_call_id}
                cwd = terminal_cwd(view.cwd, session_cwd)
                if cwd is not None:
                    info["cwd"] = cwd
                meta = {"terminal_info": info}
            return ToolCallStart(
                session_update="tool_call",
                tool_call_id=tool_call_id,
                title=view.title,  # the command: never relativized
                kind="execute",
                status="in_progress",
                raw_input=args if args is not None else _terminal_input(view),
                content=content or None,
                field_meta=meta,
            )
        case _:
            assert_never(view)


def _terminal_input(view: TerminalCallView) -> JsonObject:
    raw: JsonObject = {"command": view.title}
    if view.description:
        raw["description"] = view.description
    if view.cwd:
        raw["workdir"] = view.cwd
    return raw


def result_update(
    view: ToolResultView,
    tool_call_id: str,
    *,
    is_error: bool,
    session_cwd: str | None,
    terminal_cards: bool,
    streamed: str = "",
    cancelled: bool = False,
) -> ToolCallProgress:
    """The final `tool_call_update` for a result view: `completed`, or `failed` on error.

    `streamed` is the live terminal output already sent for this call (see `unstreamed_tail`).
    `cancelled` marks a failure that the turn's cancel caused (`CANCELLED_META_KEY`).
    """
    update = _result_update(
        view,
        tool_call_id,
        is_error=is_error,
        session_cwd=session_cwd,
        terminal_cards=terminal_cards,
        streamed=streamed,
    )
    if cancelled and is_error:
        update.field_meta = {**(update.field_meta or {}), CANCELLED_META_KEY: True}
    return update


def _result_update(
    view: ToolResultView,
    tool_call_id: str,
    *,
    is_error: bool,
    session_cwd: str | None,
    terminal_cards: bool,
    streamed: str,
) -> ToolCallProgress:
    status: Literal["completed", "failed"] = "failed" if is_error else "completed"
    match view:
        case GenericResultView():
            return ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=tool_call_id,
                status=status,
                title=view.title,  # result titles are not relativized
                content=None if view.content is None else [_content(b) for b in view.content],
                # Only a terminal card has a pane to say it; the fallback card is text only.
                field_meta={NOT_RUN_META_KEY: True} if view.not_run and terminal_cards else None,
            )
        case TerminalResultView():
            output = view.output or ""
            if not terminal_cards:
                text = output if view.headline is None else f"{view.headline}\n{output}"
                return ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=tool_call_id,
                    status=status,
                    title=view.title,
                    content=[_text(TextBlock(fence_console(text)))],
                )
            meta: dict[str, Any] = {}
            data = unstreamed_tail(output, streamed)
            if data or not streamed:
                meta["terminal_output"] = {"terminal_id": tool_call_id, "data": data}
            if view.signal is not None:
                meta["terminal_exit"] = {"terminal_id": tool_call_id, "signal": view.signal}
            elif view.exit_code is not None:
                meta["terminal_exit"] = {"terminal_id": tool_call_id, "exit_code": view.exit_code}
            if view.duration_ms is not None:
                meta[DURATION_META_KEY] = view.duration_ms
            # No `content`: an update's content replaces the terminal block in the client.
            return ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=tool_call_id,
                status=status,
                title=view.title,
                field_meta=meta,
            )
        case DiffResultView():
            title = None
            if view.title:
                first = view.diffs[0].path if view.diffs else None
                title = display_title(view.title, first, session_cwd)
            return ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=tool_call_id,
                status=status,
                title=title,
                content=[_diff(diff) for diff in view.diffs] or None,
                locations=_locations(view.locations),
            )
        case _:
            assert_never(view)


def output_update(tool_call_id: str, data: str) -> ToolCallProgress:
    """A live chunk of terminal output: only `_meta.terminal_output`, which clients append."""
    return ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=tool_call_id,
        field_meta={"terminal_output": {"terminal_id": tool_call_id, "data": data}},
    )


def plan_update(items: Sequence[PlanItem]) -> AgentPlanUpdate:
    """The whole plan; the harness has no priorities, so every entry is `medium`."""
    return AgentPlanUpdate(
        session_update="plan",
        entries=[
            PlanEntry(content=item.content, priority="medium", status=item.status) for item in items
        ],
    )


def with_old_text(content: object) -> None:
    """Give every `diff` block in a wire `content` list its `oldText` key, `null` if absent.

    The SDK drops `None` fields when it serializes, so a new file's diff would go out without
    `oldText`; ACP reads that the same way, but strict clients need the key to show the diff
    at all (a new file was approved blind). The key goes right after `path`, where the schema
    puts it. Edits the list in place; anything that is not a list of objects is left alone.
    """
    if not isinstance(content, list):
        return
    for index, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "diff" and "oldText" not in block:
            fixed: dict[str, Any] = {}
            for key, value in block.items():
                fixed[key] = value
                if key == "path":
                    fixed["oldText"] = None
            fixed.setdefault("oldText", None)
            content[index] = fixed


def with_explicit_nulls(message: dict[str, Any]) -> dict[str, Any]:
    """Restore the `null`s the wire contract needs in an outgoing JSON-RPC message.

    Applied by the transport to every message the agent sends: `session/update` tool updates
    and the `toolCall` of `session/request_permission`, whose diffs keep `"oldText": null`.
    """
    params = message.get("params")
    if not isinstance(params, dict):
        return message
    method = message.get("method")
    holder = (
        params.get("update")
        if method == "session/update"
        else params.get("toolCall")
        if method == "session/request_permission"
        else None
    )
    if isinstance(holder, dict):
        with_old_text(holder.get("content"))
    return message


def wire_dict(update: ToolUpdate) -> dict[str, Any]:
    """The exact JSON object that goes on the wire for `update`.

    The SDK's own dump (aliases on, `None`s and defaults off; `None` inside `_meta` dicts is
    kept), plus the `"oldText": null` of new-file diffs, which the transport restores.
    """
    payload = update.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude_defaults=True
    )
    with_old_text(payload.get("content"))
    return payload
