"""Make everything an agent sends safe to show, once, where it enters the client.

tui/connection/client.py passes every update, permission request and response through `clean` before
the app sees it, so no widget can forget to sanitise a field, the tool-call id shown in place of
an empty title included. Every string becomes:

* one line for names, ids, titles, kinds, paths, plan entries, commands, modes and options
  (`clean_line`: no escape sequence or control character, bidi controls and invisible
  characters shown as `⟨U+202E⟩`);
* multi-line tool output and `raw_input`/`raw_output` strings (`clean_block`: the same, line
  breaks kept), since they show what a tool did or is about to do;
* message and thought text keeps bidi marks and zero-width joiners, which right-to-left prose
  and emoji need: `clean_prose`, only embeddings, overrides and isolates shown.

Left alone, because they have renderers of their own that show controls visibly, or are never
shown: a diff's old and new text (tui/diff/diffing.py), `_meta.terminal_output` data (the terminal
pane's screen buffer), base64 image, audio and blob data, and session ids (the wire needs them
exactly, and only the capabilities screen, which sanitises, shows them). Ids are cleaned like
any name, so an id made of escapes no longer matches what the agent sent; only such an agent
is affected.

Generic over the SDK's pydantic models: a field a future schema adds is cleaned too. An object
with nothing to clean is returned as it is, so a stream of plain chunks costs no copies.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from tui.sanitize import clean_block, clean_line, clean_prose

__all__ = ["clean", "clean_error"]

T = TypeVar("T")

# (model class name, field) pairs left exactly as the agent sent them (see the docstring).
_RAW_FIELDS = frozenset(
    {
        ("FileEditToolCallContent", "old_text"),
        ("FileEditToolCallContent", "new_text"),
        ("ImageContentBlock", "data"),
        ("AudioContentBlock", "data"),
        ("BlobResourceContents", "blob"),
    }
)
_JSON_FIELDS = frozenset({"raw_input", "raw_output"})
_MESSAGE_UPDATES = frozenset({"UserMessageChunk", "AgentMessageChunk", "AgentThoughtChunk"})
# `_meta` keys of the terminal display convention whose strings are shown (cwd, ids, signal).
_TERMINAL_META = ("terminal_info", "terminal_exit")


def _line(text: str) -> str:
    # The common case, short ASCII names, skips the regular expressions.
    if text.isascii() and text.isprintable() and text == text.strip():
        return text
    return clean_line(text)


def _json(value: Any) -> Any:
    """A JSON value with every string (keys too) cleaned as a block."""
    if isinstance(value, str):
        return clean_block(value)
    if isinstance(value, list):
        items = [_json(item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        cleaned = {
            (clean_line(key) if isinstance(key, str) else key): _json(item)
            for key, item in value.items()
        }
        same = len(cleaned) == len(value) and all(
            key in value and cleaned[key] is value[key] for key in cleaned
        )
        return value if same else cleaned
    return value


def _meta(meta: Any) -> Any:
    """`_meta`: only the terminal convention's shown strings; output data stays raw."""
    if not isinstance(meta, dict):
        return meta
    changed: dict[str, Any] = {}
    for key in _TERMINAL_META:
        info = meta.get(key)
        if isinstance(info, dict):
            cleaned = {k: _line(v) if isinstance(v, str) else v for k, v in info.items()}
            if any(cleaned[k] is not info[k] for k in info):
                changed[key] = cleaned
    return {**meta, **changed} if changed else meta


def _value(value: Any, prose: bool) -> Any:
    if isinstance(value, str):
        return _line(value)
    if isinstance(value, BaseModel):
        return _model(value, prose)
    if isinstance(value, list):
        items = [_value(item, prose) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):  # free-form fields (a config option's custom category, say)
        cleaned = {
            (_line(key) if isinstance(key, str) else key): _value(item, prose)
            for key, item in value.items()
        }
        same = len(cleaned) == len(value) and all(
            key in value and cleaned[key] is value[key] for key in cleaned
        )
        return value if same else cleaned
    return value


def _model(model: BaseModel, prose: bool) -> BaseModel:
    name = type(model).__name__
    prose = prose or name in _MESSAGE_UPDATES
    update: dict[str, Any] = {}
    for field in type(model).model_fields:
        value = getattr(model, field, None)
        if value is None or field == "session_id" or (name, field) in _RAW_FIELDS:
            continue
        if field == "field_meta":
            cleaned = _meta(value)
        elif field in _JSON_FIELDS:
            cleaned = _json(value)
        elif name == "TextContentBlock" and field == "text":
            cleaned = clean_prose(value) if prose else clean_block(value)
        elif name == "TextResourceContents" and field == "text":
            cleaned = clean_block(value)
        else:
            cleaned = _value(value, prose)
        if cleaned is not value:
            update[field] = cleaned
    # Only fields that were set can change (a default holds no agent text), so the copy keeps
    # `model_fields_set`, which tells a tool-call update's carried fields from absent ones.
    return model.model_copy(update=update) if update else model


def clean(value: T) -> T:
    """`value` (an SDK model, a list of them, or a string) with every agent string made safe to
    show, as the module docstring says; the same object when nothing needed cleaning."""
    return _value(value, False)  # type: ignore[no-any-return]


def clean_error(error: BaseException) -> str:
    """An agent's error (a JSON-RPC error message, a lost connection) as one safe line for a
    notification: never markup, never an escape sequence."""
    return clean_line(str(error)) or type(error).__name__
