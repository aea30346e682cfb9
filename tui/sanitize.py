"""Make untrusted agent and terminal text safe to show in a Textual widget.

Textual's `Log` and `Static` pass ESC straight through to the user's terminal, so raw tool output
could set the window title, write the clipboard (OSC 52), switch to the alternate screen or move the
cursor. Everything external therefore goes through this module first:

* `TerminalScreenBuffer` turns a stream of decoded chunks into display lines. It keeps SGR colour
  and style sequences (normalized, so `to_rich_text` can render them with `Text.from_ansi`),
  interprets the few in-line edits that progress bars use (CR, BS, TAB, erase-in-line, column
  moves) and drops every other escape sequence and control character, also when a sequence is split
  across chunks.
* `sanitize_text` does the same for a whole string without the line editing (for message text).
* `strip_control` flattens text to one safe line (titles, headers).

No Textual import here: this module is unit-tested on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

__all__ = [
    "TerminalScreenBuffer",
    "sanitize_text",
    "strip_control",
    "terminal_text_to_lines",
    "to_rich_text",
]

DEFAULT_MAX_CHARS = 5_000_000
DEFAULT_MAX_LINE_CHARS = 16_384
TAB_SIZE = 8

# The common tokens: a run of printable text (no C0, DEL or C1), LF, SGR; then any other single
# character (a control, or an ESC that `_escape` parses).
_TOKEN = re.compile(r"([^\x00-\x1f\x7f-\x9f]+)|(\n)|\x1b\[([0-9;:]*)m|(.)", re.DOTALL)
# Anything the chunk-level fast path cannot do: escapes and controls other than LF, CR and TAB.
_NEEDS_SLOW_PATH = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A complete CSI sequence: parameters, intermediates, final byte (ECMA-48 5.4).
_CSI = re.compile(r"\x1b\[([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])")
# The longest valid prefix of a CSI sequence, used for incomplete and malformed ones.
_CSI_PREFIX = re.compile(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*")
# nF escape sequences (charset designation and the like): ESC, intermediates, final.
_ESC_INTERMEDIATE = re.compile(r"\x1b[\x20-\x2f]+[\x30-\x7e]")
_ESC_INTERMEDIATE_PREFIX = re.compile(r"\x1b[\x20-\x2f]+")
# What ends a control string (OSC, DCS, SOS, PM, APC): BEL, ST (8-bit), CAN, SUB, or ESC (which is
# either the 7-bit ST `ESC \` or the start of the next sequence, as in the VT500 parser).
_STRING_END = re.compile(r"[\x07\x18\x1a\x1b\x9c]")
# SGR as this module emits it, used to split a stored line back into styled cells.
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_SGR_PARAMS = re.compile(r"[0-9;:]*")
# A malformed or unfinished CSI prefix longer than this is dropped rather than buffered.
_MAX_PENDING = 1024
# Cap the SGR attribute groups remembered per pen, so endless SGR spam cannot grow a line's prefix.
_MAX_PEN_GROUPS = 32

_Pen = tuple[str, ...]


_SGR_CACHE: dict[tuple[_Pen, str], _Pen] = {}


def _apply_sgr(pen: _Pen, params: str) -> _Pen:
    """Return the pen after an SGR sequence: resets clear it, other attributes accumulate.

    Colour groups such as `38;5;0` are kept whole, so a 0 inside them is not taken for a reset.
    Cached, because coloured output repeats the same few sequences on every line.
    """
    key = (pen, params)
    cached = _SGR_CACHE.get(key)
    if cached is None:
        if len(_SGR_CACHE) > 4096:
            _SGR_CACHE.clear()
        cached = _SGR_CACHE[key] = _compute_sgr(pen, params)
    return cached


def _compute_sgr(pen: _Pen, params: str) -> _Pen:
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
    return tuple(groups[-_MAX_PEN_GROUPS:])


def _pen_seq(pen: _Pen) -> str:
    return f"\x1b[{';'.join(pen)}m" if pen else ""


def _switch_seq(old: _Pen, new: _Pen) -> str:
    """The SGR text that changes the style from `old` to `new`."""
    if old == new:
        return ""
    if not new:
        return "\x1b[0m"
    return ("\x1b[0m" if old else "") + _pen_seq(new)


class TerminalScreenBuffer:
    """Turn a stream of decoded terminal output into safe display lines.

    Feed decoded chunks with `feed`; it returns the lines completed by that chunk, which never
    change again. `partial` is the line still being written: a carriage return moves the cursor back
    to its start, so later text overwrites it cell by cell, which is how progress bars redraw. Each
    stored line starts with the SGR pen it inherits, so it can be rendered alone with
    `to_rich_text`. Supported in-line edits: CR, BS, TAB (expanded to spaces), erase in line
    (`CSI K`) and column moves (`CSI G`, `C`, `D`). Everything else that could act on the user's own
    terminal is dropped. An LF is taken as CR LF, as a tty with `onlcr` would show it.

    Memory is bounded: completed lines beyond `max_chars` are dropped from the head (`truncated`,
    `dropped_lines`), and a line longer than `max_line_chars` is wrapped. Columns count code
    points, not display cells, so overwrites across wide (CJK) characters are approximate.
    """

    def __init__(
        self, *, max_chars: int = DEFAULT_MAX_CHARS, max_line_chars: int = DEFAULT_MAX_LINE_CHARS
    ) -> None:
        if max_line_chars < 1:
            raise ValueError("max_line_chars must be at least 1")
        self.max_chars = max_chars
        self.max_line_chars = max_line_chars
        self._lines: list[str] = []
        self._retained_chars = 0
        self.dropped_lines = 0
        self.truncated = False
        # Current line: normalized text plus SGR, its width in cells, the cursor column, and the
        # style in effect at its end (which may lag behind the pen until more text is written).
        self._parts: list[str] = []
        self._len = 0
        self._col = 0
        self._line_style: _Pen = ()
        self._pen: _Pen = ()
        # Parser state carried between chunks.
        self._pending = ""
        self._in_string = False
        self._new: list[str] = []

    # ----------------------------------------------------------------------------- public API
    @property
    def lines(self) -> Sequence[str]:
        """The retained completed lines (read-only view; do not mutate)."""
        return self._lines

    @property
    def partial(self) -> str:
        """The line being written (no trailing newline), possibly empty."""
        return "".join(self._parts) if self._len else ""

    def all_lines(self) -> list[str]:
        """Completed lines plus the partial one when it is not empty."""
        return [*self._lines, self.partial] if self._len else list(self._lines)

    def text(self) -> str:
        """Everything retained, joined with newlines."""
        return "\n".join(self.all_lines())

    def feed(self, chunk: str) -> list[str]:
        """Consume one decoded chunk and return the lines it completed."""
        self._new = []
        data = self._pending + chunk if self._pending else chunk
        self._pending = ""
        if not self._in_string and self._col == self._len and not _NEEDS_SLOW_PATH.search(data):
            self._feed_fast(data)
        else:
            self._feed_slow(data)
        new, self._new = self._new, []
        self._trim()
        return new

    def finish(self) -> list[str]:
        """End of stream: drop any unfinished escape sequence and complete the partial line."""
        self._pending = ""
        self._in_string = False
        self._new = []
        if self._len:
            self._newline()
        new, self._new = self._new, []
        self._trim()
        return new

    # ----------------------------------------------------------------------------- parsing
    def _feed_fast(self, data: str) -> None:
        """No escapes and no controls but LF, CR and TAB, cursor at the end of the line: split in
        C and let `str.expandtabs` and slicing do the editing."""
        pieces = data.split("\n")
        last = len(pieces) - 1
        for index, piece in enumerate(pieces):
            if "\r" not in piece:
                self._write_expanding_tabs(piece)
            else:
                segments = piece.split("\r")
                if any("\t" in segment for segment in segments[1:]):
                    self._feed_slow(piece)  # a tab over existing text moves without erasing
                else:
                    self._write_expanding_tabs(segments[0])
                    for segment in segments[1:]:
                        self._col = 0
                        self._write(segment)
            if index < last:
                self._newline()

    def _write_expanding_tabs(self, text: str) -> None:
        # Only called with the cursor at the end of the line, where a tab writes blanks.
        if "\t" in text:
            text = (" " * self._col + text).expandtabs(TAB_SIZE)[self._col :]
        self._write(text)

    def _feed_slow(self, data: str) -> None:
        i, n = 0, len(data)
        while i < n:
            if self._in_string:
                m = _STRING_END.search(data, i)
                if m is None:
                    return  # the whole rest is string payload: discard it, stay in the string
                self._in_string = False
                i = m.start()
                if data[i] != "\x1b":
                    i += 1  # BEL, ST, CAN and SUB are consumed; ESC is parsed below
                    continue
                if i + 1 >= n:
                    self._pending = "\x1b"  # may be the first half of `ESC \`
                    return
                if data[i + 1] == "\\":
                    i += 2
                continue
            m = _TOKEN.match(data, i)
            assert m is not None  # the last alternative matches any single character
            kind = m.lastindex
            if kind == 1:
                text = m.group(1)
                end = self._len + len(text)
                if self._col == self._len and end <= self.max_line_chars:
                    # `_append`, inlined: this is the hot path for coloured output.
                    if self._line_style != self._pen:
                        self._parts.append(_switch_seq(self._line_style, self._pen))
                        self._line_style = self._pen
                    self._parts.append(text)
                    self._len = self._col = end
                else:
                    self._write(text)
            elif kind == 2:
                self._newline()
            elif kind == 3:
                self._pen = _apply_sgr(self._pen, m.group(3))
            else:
                c = data[i]
                if c == "\x1b":
                    i = self._escape(data, i)
                    continue
                if c == "\r":
                    self._col = 0
                elif c == "\b":
                    if self._col > 0:
                        self._col -= 1
                elif c == "\t":
                    self._tab()
                # Every other C0, DEL and C1 control is dropped on its own. 8-bit C1 introducers
                # (CSI, OSC, DCS...) are not parsed as sequences: in UTF-8 text they mostly come
                # from mojibake, and dropping the introducer alone already disarms them.
            i = m.end()

    def _escape(self, data: str, i: int) -> int:
        """Handle the escape sequence at `data[i]` (an ESC); return where parsing continues."""
        n = len(data)
        if i + 1 >= n:
            self._pending = data[i:]
            return n
        c = data[i + 1]
        if c == "[":
            m = _CSI.match(data, i)
            if m is not None:
                self._csi(m.group(1), m.group(2), m.group(3))
                return m.end()
            prefix = _CSI_PREFIX.match(data, i)
            end = prefix.end() if prefix is not None else i + 2
            if end >= n and end - i <= _MAX_PENDING:
                self._pending = data[i:]  # unfinished: wait for the next chunk
                return n
            return end  # malformed (or absurdly long): drop the prefix, keep what follows
        if c in "]PX^_":  # OSC, DCS, SOS, PM, APC: swallow until the terminator
            self._in_string = True
            return i + 2
        if "\x20" <= c <= "\x2f":
            m = _ESC_INTERMEDIATE.match(data, i)
            if m is not None:
                return m.end()
            prefix = _ESC_INTERMEDIATE_PREFIX.match(data, i)
            end = prefix.end() if prefix is not None else i + 2
            if end >= n and end - i <= _MAX_PENDING:
                self._pending = data[i:]
                return n
            return end
        if "\x30" <= c <= "\x7e":
            return i + 2  # a two-byte escape such as ESC 7, ESC c (reset!), ESC =, or a stray ST
        return i + 1  # ESC before a control or non-ASCII character: drop the ESC alone

    def _csi(self, params: str, intermediates: str, final: str) -> None:
        if intermediates or (params and params[0] in "<=>?"):
            return  # private modes (?1049h, ?25l, ...) and anything exotic: dropped
        if final == "m":
            if _SGR_PARAMS.fullmatch(params):
                self._pen = _apply_sgr(self._pen, params)
            return
        if final not in "KGCD":
            return  # cursor moves across lines, scrolling, erase display, reports...: dropped
        try:
            arg = int(params.split(";")[0] or "0")
        except ValueError:
            return
        if final == "K":
            self._erase_in_line(arg)
        elif final == "G":
            self._col = min(max(arg, 1) - 1, self.max_line_chars - 1)
        elif final == "C":
            self._col = min(self._col + max(arg, 1), self.max_line_chars - 1)
        else:
            self._col = max(self._col - max(arg, 1), 0)

    # ----------------------------------------------------------------------------- line editing
    def _write(self, text: str) -> None:
        if not text:
            return
        if self._col == self._len and self._len + len(text) <= self.max_line_chars:
            self._append(text)  # the common case, without the loop
            return
        while text:
            room = self.max_line_chars - self._col
            if room <= 0:
                self._newline()
                continue
            piece, text = text[:room], text[room:]
            if self._col == self._len:
                self._append(piece)
            elif self._col > self._len:
                self._append(" " * (self._col - self._len))
                self._append(piece)
            else:
                self._overwrite(piece)

    def _append(self, text: str) -> None:
        if self._line_style != self._pen:
            self._parts.append(_switch_seq(self._line_style, self._pen))
            self._line_style = self._pen
        self._parts.append(text)
        self._len += len(text)
        self._col = self._len

    def _cells(self, line: str | None = None) -> list[tuple[_Pen, str]]:
        """Split the current line into (style, character) cells."""
        cells: list[tuple[_Pen, str]] = []
        style: _Pen = ()
        pos = 0
        if line is None:
            line = "".join(self._parts)
        for m in _SGR.finditer(line):
            cells.extend((style, ch) for ch in line[pos : m.start()])
            style = _apply_sgr(style, m.group(1))
            pos = m.end()
        cells.extend((style, ch) for ch in line[pos:])
        return cells

    def _set_cells(self, cells: list[tuple[_Pen, str]]) -> None:
        out: list[str] = []
        style: _Pen = ()
        run: list[str] = []
        for cell_style, ch in cells:
            if cell_style != style:
                out.append("".join(run))
                run = []
                out.append(_switch_seq(style, cell_style))
                style = cell_style
            run.append(ch)
        out.append("".join(run))
        self._parts = ["".join(out)]
        self._len = len(cells)
        self._line_style = style

    def _overwrite(self, text: str) -> None:
        line = "".join(self._parts)
        if not self._pen and "\x1b" not in line:
            # Unstyled line and pen (the usual progress bar): plain string slicing.
            end = self._col + len(text)
            line = line[: self._col] + text + line[end:]
            self._parts = [line]
            self._len = len(line)
            self._col = end
            return
        cells = self._cells(line)
        end = self._col + len(text)
        cells[self._col : end] = [(self._pen, ch) for ch in text]
        self._set_cells(cells)
        self._col = end

    def _erase_in_line(self, mode: int) -> None:
        if mode == 0:
            if self._col < self._len:
                self._set_cells(self._cells()[: self._col])
        elif mode in (1, 2):
            # Mode 1 blanks up to and including the cursor, mode 2 the whole line. Trailing blanks
            # are not stored: the cursor stays put and later text is padded up to it.
            keep = self._cells()[self._col + 1 :] if mode == 1 else []
            self._set_cells([((), " ")] * (self._col + 1) + keep if keep else [])

    def _tab(self) -> None:
        stop = min((self._col // TAB_SIZE + 1) * TAB_SIZE, self.max_line_chars)
        if self._col >= self._len:
            self._write(" " * (stop - self._col))
        else:
            self._col = stop  # a tab moves over existing text without erasing it

    def _newline(self) -> None:
        line = "".join(self._parts) if self._len else ""
        self._lines.append(line)
        self._new.append(line)
        self._retained_chars += len(line) + 1
        self._parts = []
        self._len = 0
        self._col = 0
        self._line_style = ()

    def _trim(self) -> None:
        if self._retained_chars <= self.max_chars:
            return
        drop = 0
        while drop < len(self._lines) and self._retained_chars > self.max_chars:
            self._retained_chars -= len(self._lines[drop]) + 1
            drop += 1
        del self._lines[:drop]
        self.dropped_lines += drop
        self.truncated = True


def terminal_text_to_lines(text: str) -> list[str]:
    """Sanitize complete terminal output into display lines (see `TerminalScreenBuffer`)."""
    buffer = TerminalScreenBuffer(max_chars=max(len(text) + 1, DEFAULT_MAX_CHARS))
    buffer.feed(text)
    buffer.finish()
    return list(buffer.lines)


_STRIP_SEQUENCES = re.compile(
    r"""
      \x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?                # CSI (possibly unfinished)
    | \x1b[\]PX^_][^\x07\x18\x1a\x1b\x9c]*(?:[\x07\x18\x1a\x9c]|\x1b\\|(?=\x1b)|\Z)  # strings
    | \x1b[\x20-\x2f]*[\x30-\x7e]?                             # other escapes, or a lone ESC
    """,
    re.VERBOSE,
)
_KEEP_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_BUT_ESC = re.compile(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]")
_ALL_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_BREAKS = re.compile(r"[\t\n\r\x0b\x0c]+")


def sanitize_text(text: str, *, keep_sgr: bool = False) -> str:
    """Remove escape sequences and control characters from multi-line text.

    Keeps LF and TAB; CRLF and a lone CR become LF. With `keep_sgr`, SGR colour and style sequences
    survive for `to_rich_text`. No line editing is done: use `TerminalScreenBuffer` for output that
    redraws with CR.
    """

    def repl(m: re.Match[str]) -> str:
        seq = m.group()
        return seq if keep_sgr and _KEEP_SGR.fullmatch(seq) else ""

    text = _STRIP_SEQUENCES.sub(repl, text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Every ESC left is part of a kept SGR sequence.
    return (_CONTROLS_BUT_ESC if keep_sgr else _CONTROLS).sub("", text)


def strip_control(text: str) -> str:
    """Flatten text to one safe line for titles: no escapes or controls; line breaks and tabs
    become one space."""
    text = _STRIP_SEQUENCES.sub("", text)
    text = _BREAKS.sub(" ", text)
    return _ALL_CONTROLS.sub("", text).strip()


def to_rich_text(line: str, *, style: str = "") -> Text:
    """Render one sanitized line (SGR kept) as a `rich.text.Text` with its colours."""
    return Text.from_ansi(line, style=style, end="", no_wrap=True)
