"""Text of a diff side made safe and measured for display: lines, controls, tabs, line ends.

The diff compares the raw lines; what the panel draws are the display lines made here, where a
control character or a bidi override is substituted by a visible symbol rather than stripped,
so an edit that inserts one still shows in the review.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePath

from rich.cells import cell_len

from tui.sanitize import strip_control

__all__ = [
    "MARKERS",
    "MAX_LINE_CHARS",
    "TAB_SIZE",
    "display_line",
    "eol_note",
    "prepare_text",
    "relative_path",
    "split_text",
]

TAB_SIZE = 4
MAX_LINE_CHARS = 4000
"""Longer lines are cut for display (the diff itself still compares the whole line)."""

_SPECIAL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_SPECIAL_TEXT = re.compile(_SPECIAL.pattern.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f"))
"""`_SPECIAL` for whole texts: line feeds are expected there."""
MARKERS = re.compile("[\u2400-\u2424\ufffd]")
"""What `display_line` substitutes, so the widget can give it a warning style."""


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (control pictures)
    if code == 0x7F:
        return "\u2421"  # ␡
    if ch in "\u2028\u2029":
        return "\u2424"  # ␤
    return "\ufffd"  # C1 controls, bidi overrides (Trojan Source), lone surrogates


def display_line(raw: str) -> str:
    """Make one line safe and visible: tabs expanded, controls shown as symbols.

    Substituting instead of stripping (as `sanitize_text` does for prose) keeps an edit that
    inserts an ESC or a bidi override visible in the review, and no raw control character can
    reach the terminal. Lone surrogates (undecodable bytes) become U+FFFD, which every
    terminal can encode.
    """
    extra = len(raw) - MAX_LINE_CHARS
    if extra > 0:
        raw = raw[:MAX_LINE_CHARS]
    if _SPECIAL.search(raw) is not None:
        parts: list[str] = []
        column = 0
        for piece in re.split("(\t)", raw):
            if piece == "\t":
                pad = TAB_SIZE - column % TAB_SIZE
                parts.append(" " * pad)
                column += pad
            elif piece:
                piece = _SPECIAL.sub(lambda m: _visible(m.group()), piece)
                parts.append(piece)
                column += cell_len(piece)
        raw = "".join(parts)
    if extra > 0:
        raw += f" \u22ef (+{extra:,} chars)"
    return raw


def split_text(text: str) -> tuple[list[str], str]:
    """Split on LF, dropping one CR before each LF; returns (lines, line-ending style).

    The style is "CRLF", "LF", "mixed" or "" (no line break seen). A final newline ends the
    last line rather than starting an empty one, and "" has no lines, so emptying a file reads
    as deleting each of its lines.
    """
    lines = text.split("\n")
    breaks = len(lines) - 1
    if lines[-1] == "":
        lines.pop()
    crlf = 0
    for n, line in enumerate(lines):
        if line.endswith("\r") and n < breaks:
            lines[n] = line[:-1]
            crlf += 1
    if not breaks:
        return lines, ""
    if crlf == breaks:
        return lines, "CRLF"
    return lines, ("mixed" if crlf else "LF")


def prepare_text(text: str) -> tuple[list[str], list[str], str, int]:
    """(raw lines to compare, display lines, line-ending style, widest display line in cells).

    Clean ASCII text (the common case) takes a whole-text fast path: no per-line work beyond
    the split, which matters on 10,000-line files.
    """
    raw, eol = split_text(text)
    if not raw:
        return raw, raw, eol, 0
    longest = max(map(len, raw))
    probe = text.replace("\r\n", "\n") if "\r" in text else text
    if longest <= MAX_LINE_CHARS and _SPECIAL_TEXT.search(probe) is None:
        if text.isascii():
            return raw, raw, eol, longest
        return raw, raw, eol, max(map(cell_len, raw))
    display = [display_line(line) for line in raw]
    return raw, display, eol, _widest(display)


def eol_note(old: set[str], new: set[str]) -> str:
    """A header note for CRLF files (their CRs are not shown) and for line-ending changes."""
    old_style = next(iter(old)) if len(old) == 1 else ("mixed" if old else "")
    new_style = next(iter(new)) if len(new) == 1 else ("mixed" if new else "")
    if old_style and new_style and old_style != new_style:
        return f"{old_style} \u2192 {new_style}"
    style = new_style or old_style
    return "" if style == "LF" else style


def relative_path(path: str, cwd: Path | None) -> str:
    """The path as the header shows it: relative to the session cwd when inside it, one line."""
    shown = path
    if cwd is not None:
        try:
            shown = PurePath(path).relative_to(cwd).as_posix()
        except ValueError:
            shown = path
    return strip_control(shown) or "(no path)"


def _widest(lines: Iterable[str]) -> int:
    widest = 0
    for line in lines:
        width = len(line) if line.isascii() else cell_len(line)
        widest = max(widest, width)
    return widest
