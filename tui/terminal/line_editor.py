"""The general path of terminal output: tokens, escape sequences and in-line editing.

`LineEditor` holds the line being written and the parser state carried between chunks, and
interprets everything: text, LF, SGR (kept, see tui/terminal/sgr.py), the few in-line edits that
progress
bars use (CR, BS, TAB, erase in line, column moves), and every other escape sequence or control
character, which is dropped, also when it is split across chunks. `TerminalScreenBuffer`
(tui/terminal/stream.py) adds retention and the bulk fast path on top; whatever the fast path
cannot do comes here, so this is the behaviour both must agree with.

No Textual import here: this module is unit-tested on its own.
"""

from __future__ import annotations

import re

from rich.cells import cell_len

from tui.terminal.sgr import SGR, Pen, apply_sgr, switch_seq

__all__ = ["DEFAULT_MAX_LINE_CHARS", "MAX_PENDING", "TAB_SIZE", "LineEditor"]

DEFAULT_MAX_LINE_CHARS = 16_384
TAB_SIZE = 8
# A malformed or unfinished CSI prefix longer than this is dropped rather than buffered.
MAX_PENDING = 1024

# The common tokens: a run of printable text (no C0, DEL or C1), LF, SGR; then any other single
# character (a control, or an ESC that `_escape` parses).
_TOKEN = re.compile(r"([^\x00-\x1f\x7f-\x9f]+)|(\n)|\x1b\[([0-9;:]*)m|(.)", re.DOTALL)
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
_SGR_PARAMS = re.compile(r"[0-9;:]*")


class LineEditor:
    """The line being written, edited cell by cell, and the lines it completed.

    `_lines` holds the completed lines, each starting with the SGR pen it inherits, so it can be
    rendered alone; `_new` those completed during the current feed. Columns count code points,
    not display cells, so overwrites across wide (CJK) characters are approximate. A line
    longer than `max_line_chars` is wrapped. `max_cells` is the width of the widest completed
    line seen, in cells (it never decreases): a view's horizontal scroll range.
    """

    def __init__(self, *, max_line_chars: int = DEFAULT_MAX_LINE_CHARS) -> None:
        if max_line_chars < 1:
            raise ValueError("max_line_chars must be at least 1")
        self.max_line_chars = max_line_chars
        self._lines: list[str] = []
        self._new: list[str] = []
        self._retained_chars = 0
        self.max_cells = 0
        # Current line: normalized text plus SGR, its length in code points, the cursor column,
        # and the style in effect at its end (which may lag behind the pen until more text).
        self._parts: list[str] = []
        self._len = 0
        self._col = 0
        self._line_style: Pen = ()
        self._pen: Pen = ()
        # Parser state carried between chunks.
        self._pending = ""
        self._in_string = False

    # ----------------------------------------------------------------------------- parsing
    def _feed_general(self, data: str) -> None:
        """The one general path: every token, every escape, in order. Any input goes here."""
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
                        self._parts.append(switch_seq(self._line_style, self._pen))
                        self._line_style = self._pen
                    self._parts.append(text)
                    self._len = self._col = end
                else:
                    self._write(text)
            elif kind == 2:
                self._newline()
            elif kind == 3:
                self._pen = apply_sgr(self._pen, m.group(3))
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
            if end >= n and end - i <= MAX_PENDING:
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
            if end >= n and end - i <= MAX_PENDING:
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
                self._pen = apply_sgr(self._pen, params)
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
            self._parts.append(switch_seq(self._line_style, self._pen))
            self._line_style = self._pen
        self._parts.append(text)
        self._len += len(text)
        self._col = self._len

    def _cells(self, line: str | None = None) -> list[tuple[Pen, str]]:
        """Split the current line into (style, character) cells."""
        cells: list[tuple[Pen, str]] = []
        style: Pen = ()
        pos = 0
        if line is None:
            line = "".join(self._parts)
        for m in SGR.finditer(line):
            cells.extend((style, ch) for ch in line[pos : m.start()])
            style = apply_sgr(style, m.group(1))
            pos = m.end()
        cells.extend((style, ch) for ch in line[pos:])
        return cells

    def _set_cells(self, cells: list[tuple[Pen, str]]) -> None:
        out: list[str] = []
        style: Pen = ()
        run: list[str] = []
        for cell_style, ch in cells:
            if cell_style != style:
                out.append("".join(run))
                run = []
                out.append(switch_seq(style, cell_style))
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
        n = self._len
        if n > self.max_cells or (2 * n > self.max_cells and not line.isascii()):
            cells = n if line.isascii() else cell_len(SGR.sub("", line))
            self.max_cells = max(self.max_cells, cells)
        self._lines.append(line)
        self._new.append(line)
        self._retained_chars += len(line) + 1
        self._parts = []
        self._len = 0
        self._col = 0
        self._line_style = ()
