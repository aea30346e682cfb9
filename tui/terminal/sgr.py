"""SGR pens: the colour and style state of terminal output, and stored lines as styled text.

A pen is the tuple of SGR attribute groups in effect (`("1", "38;5;0")`). `TerminalScreenBuffer`
(tui/terminal/stream.py) keeps one while it parses, and stores each line as normalized text: the
line's starting pen as one SGR sequence, then every change of style as a reset followed by the
whole new pen. Because every sequence in a stored line names the full style, `styled_line` can
turn it into a Rich `Text` with one split and a cached `Style` per pen: several times faster
than `Text.from_ansi`'s general decoder, which would otherwise run for every row drawn, and
with the same result.

No Textual import here: the stream and its tests run without it.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Span, Text

from tui.sanitize import reveal_invisible

__all__ = [
    "MAX_PEN_GROUPS",
    "PEN_CACHE",
    "SGR",
    "Pen",
    "apply_sgr",
    "pen_seq",
    "plain_line",
    "resets",
    "styled_line",
    "switch_seq",
]

Pen = tuple[str, ...]

# SGR as the buffer emits it; group 1 holds the parameters.
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
# Cap the SGR attribute groups remembered per pen, so endless SGR spam cannot grow a line's prefix.
MAX_PEN_GROUPS = 32
_CACHE_SIZE = 4096

# Pen after (pen, SGR parameters): `apply_sgr` fills it; hot loops read it directly, since a
# dictionary lookup costs less than the call.
PEN_CACHE: dict[tuple[Pen, str], Pen] = {}
_SWITCH_CACHE: dict[tuple[Pen, Pen], str] = {}
_STYLE_CACHE: dict[str, Style | None] = {}


def apply_sgr(pen: Pen, params: str) -> Pen:
    """Return the pen after an SGR sequence: resets clear it, other attributes accumulate.

    Colour groups such as `38;5;0` are kept whole, so a 0 inside them is not taken for a reset.
    Cached, because coloured output repeats the same few sequences on every line.
    """
    key = (pen, params)
    cached = PEN_CACHE.get(key)
    if cached is None:
        if len(PEN_CACHE) > _CACHE_SIZE:
            PEN_CACHE.clear()
        cached = PEN_CACHE[key] = _compute_sgr(pen, params)
    return cached


def _compute_sgr(pen: Pen, params: str) -> Pen:
    groups = list(pen)
    tokens = params.split(";")
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("", "0"):
            groups.clear()
            i += 1
            continue
        width = 1
        if tok in ("38", "48", "58") and i + 1 < len(tokens):
            width = {"5": 3, "2": 5}.get(tokens[i + 1], 1)
        groups.append(";".join(tokens[i : i + width]))
        i += width
    return tuple(groups[-MAX_PEN_GROUPS:])


def resets(params: str) -> bool:
    """Whether the pen after this SGR no longer depends on the pen before it."""
    after = _compute_sgr(("\x00",), params)
    return not after or after[0] != "\x00"


def pen_seq(pen: Pen) -> str:
    """The one SGR sequence that sets `pen` from no style."""
    return f"\x1b[{';'.join(pen)}m" if pen else ""


def switch_seq(old: Pen, new: Pen) -> str:
    """The SGR text that changes the style from `old` to `new` (cached like `apply_sgr`)."""
    key = (old, new)
    seq = _SWITCH_CACHE.get(key)
    if seq is None:
        if len(_SWITCH_CACHE) > _CACHE_SIZE:
            _SWITCH_CACHE.clear()
        if old == new:
            seq = ""
        elif not new:
            seq = "\x1b[0m"
        else:
            seq = ("\x1b[0m" if old else "") + pen_seq(new)
        _SWITCH_CACHE[key] = seq
    return seq


def plain_line(line: str) -> str:
    """A stored line without its SGR sequences, as it is shown (see `styled_line`)."""
    return reveal_invisible(SGR.sub("", line) if "\x1b" in line else line)


def _style_of(params: str) -> Style | None:
    """The Rich style of one whole pen, as Rich's own decoder reads it."""
    try:
        return _STYLE_CACHE[params]
    except KeyError:
        pass
    if len(_STYLE_CACHE) > _CACHE_SIZE:
        _STYLE_CACHE.clear()
    spans = Text.from_ansi(f"\x1b[{params}m.", end="").spans
    style = spans[0].style if spans else None
    found = _STYLE_CACHE[params] = style if isinstance(style, Style) and style else None
    return found


def styled_line(line: str) -> Text:
    """A stored line (see the module docstring) as a `Text` with its colours, parsed once.
    Bidi controls and invisible characters are shown as `⟨U+202E⟩`, as in any tool output the
    agent sends (tui/sanitize.py): a command's output is no more trusted than the agent."""
    line = reveal_invisible(line)
    if "\x1b" not in line:
        return Text(line, end="", no_wrap=True)
    parts = SGR.split(line)
    spans: list[Span] = []
    runs: list[str] = []
    pos = 0
    style: Style | None = None
    for index, part in enumerate(parts):
        if index % 2:
            style = _style_of(part) if part not in ("", "0") else None
        elif part:
            end = pos + len(part)
            if style is not None:
                spans.append(Span(pos, end, style))
            runs.append(part)
            pos = end
    return Text("".join(runs), end="", no_wrap=True, spans=spans)
