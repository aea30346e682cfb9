"""A message as the inspector shows it: pretty JSON from a bounded prefix of the line.

Only the first DISPLAY_BYTES of a line are ever decoded, lexed and indented, so opening a
60 MB message costs what opening a 256 KB one does, and a marker line says how much was left
out. `json` cannot read a prefix, so the line is not parsed: Pygments' JSON lexer (which
tolerates a cut string or an unclosed brace) tokenizes the prefix, and the tokens are
re-indented here as they came, keys, escapes and number spellings exactly as on the wire.
Pure Python, no Textual: spans carry a kind, the view picks the colours.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pygments.token import Token, _TokenType, is_token_subtype

from tui.inspector.traffic import WireMessage, format_size
from tui.sanitize import reveal_invisible

DISPLAY_BYTES = 256 * 1024
MAX_INDENT_LEVELS = 32
"""Deeper nesting is drawn at this indent: a line of 100,000 `[` must not make 100,000
ever longer lines."""
INDENT = "  "

SpanKind = Literal["key", "string", "number", "literal", "punct", "error", "text", "note"]
Span = tuple[str, SpanKind]
Line = tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class Display:
    lines: list[Line]
    shown_bytes: int
    """How many bytes of the line the lines show."""


def _kind(token: _TokenType, text: str) -> SpanKind:
    if is_token_subtype(token, Token.Name.Tag):
        return "key"
    if is_token_subtype(token, Token.Literal.String):
        return "string"
    if is_token_subtype(token, Token.Literal.Number):
        return "number"
    if is_token_subtype(token, Token.Keyword.Constant):
        return "literal"
    if is_token_subtype(token, Token.Error) and text.startswith('"'):
        return "string"  # a string cut by the prefix
    return "error"


_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """Wire text fit for the screen: a control character (JSON strings may hold DEL and the C1
    controls raw, a line that is not JSON anything) becomes U+FFFD, which keeps its column, and
    invisible or reordering characters are named (`⟨U+202E⟩`)."""
    if text.isascii() and text.isprintable():
        return text
    return reveal_invisible(_CONTROLS.sub("\ufffd", text))


def decode_prefix(data: bytes) -> str:
    """UTF-8 text of `data`, without a character the cut split in two."""
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def pretty(text: str) -> list[Line]:
    """JSON text re-indented two spaces a level (as `json.dumps(indent=2)` would), each line
    a tuple of typed spans; `{}` and `[]` stay on one line."""
    lines: list[Line] = []
    line: list[Span] = []
    depth = 0
    break_due = False  # a line break goes before the next thing emitted
    just_opened = False

    def emit(piece: str, kind: SpanKind) -> None:
        nonlocal line, break_due
        if break_due:
            lines.append(tuple(line))
            line = [(INDENT * min(depth, MAX_INDENT_LEVELS), "punct")] if depth else []
            break_due = False
        line.append((piece, kind))

    # Imported when the inspector first shows a message, not at start-up (33 ms).
    from pygments.lexers.data import JsonLexer

    lexer = JsonLexer(ensurenl=False, stripnl=False)
    for token, value in lexer.get_tokens(text):
        if is_token_subtype(token, Token.Punctuation):
            for char in value:
                if char in "{[":
                    emit(char, "punct")
                    depth += 1
                    break_due = just_opened = True
                elif char in "}]":
                    depth = max(0, depth - 1)
                    break_due = not just_opened  # `{}` and `[]` stay on one line
                    emit(char, "punct")
                    just_opened = False
                elif char == ",":
                    emit(",", "punct")
                    break_due, just_opened = True, False
                elif char == ":":
                    emit(": ", "punct")
                    just_opened = False
                else:
                    emit(char, "error")
                    just_opened = False
            continue
        if is_token_subtype(token, Token.Text.Whitespace) or (
            is_token_subtype(token, Token.Text) and not value.strip()
        ):
            continue  # the wire's own spacing between tokens; strings keep theirs
        emit(value, _kind(token, value))
        just_opened = False
    if line:
        lines.append(tuple(line))
    return lines


def note(text: str) -> Line:
    return ((text, "note"),)


def display(message: WireMessage, limit: int = DISPLAY_BYTES) -> Display:
    """What the inspector shows for one message: pretty JSON (or the raw text of a line that
    is not JSON) from the first `limit` bytes, and a note for what it leaves out."""
    body = message.body()
    head = body[:limit]
    text = decode_prefix(head)
    lines: list[Line]
    if message.cut:
        lines = [
            note(
                f"dropped at the transport's cap: {format_size(message.size)}; "
                f"only its first {format_size(len(body))} were kept"
            ),
            *_raw_lines(text),
        ]
    elif not message.valid_json:
        lines = [note("not valid JSON: the line as it came"), *_raw_lines(text)]
    else:
        lines = pretty(text)
    lines = [tuple((safe(piece), kind) for piece, kind in spans) for spans in lines]
    left = message.size - len(head) if not message.cut else 0
    if left > 0:
        lines.append(note(f"… {format_size(left)} more, truncated for display"))
    return Display(lines, len(head))


def _raw_lines(text: str) -> Iterable[Line]:
    return [((part, "text"),) for part in text.split("\n")]
