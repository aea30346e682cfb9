"""Terminal output as display lines: a stream of decoded chunks in, safe styled lines out.

`TerminalScreenBuffer` is the one pipeline every terminal pane's output goes through. Textual's
`Log` and `Static` pass ESC straight through to the user's terminal, so raw tool output could set
the window title, write the clipboard (OSC 52), switch to the alternate screen or move the
cursor; here SGR colour and style are kept (normalized, `tui.terminal.sgr`), the few in-line
edits of progress bars are applied, and everything else is dropped (`tui.terminal.line_editor`).

There is one general path (`LineEditor._feed_general`, token by token) and one bulk fast path
(`_feed_bulk`) for output whose only escapes are SGR, which is nearly all command output. The
fast path stores exactly the lines the general one would: it splits in C, at SGR, LF and CR,
and leaves the editing to the line editor's primitives; a tab over existing text and every
other control go to the general path. It is what keeps a 10 MB burst within a few tenths of a
second.

No Textual import here: this module is unit-tested on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain

from rich.cells import cell_len
from rich.text import Text

from tui.sanitize import is_plain
from tui.terminal.line_editor import DEFAULT_MAX_LINE_CHARS, MAX_PENDING, TAB_SIZE, LineEditor
from tui.terminal.sgr import (
    MAX_PEN_GROUPS,
    PEN_CACHE,
    SGR,
    Pen,
    apply_sgr,
    pen_seq,
    resets,
    styled_line,
    switch_seq,
)

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_LINE_CHARS",
    "TerminalScreenBuffer",
]

DEFAULT_MAX_CHARS = 5_000_000
# What ends a control string without being an escape of its own.
_STRING_TERMINATOR = re.compile(r"[\x07\x18\x1a\x9c]")


class TerminalScreenBuffer(LineEditor):
    """Turn a stream of decoded terminal output into safe display lines.

    Feed decoded chunks with `feed`; it returns the lines completed by that chunk, which never
    change again. `partial` is the line still being written: a carriage return moves the cursor
    back to its start, so later text overwrites it cell by cell, which is how progress bars
    redraw. Each stored line starts with the SGR pen it inherits, so it can be rendered alone
    (`styled`). Supported in-line edits: CR, BS, TAB (expanded to spaces), erase in line
    (`CSI K`) and column moves (`CSI G`, `C`, `D`). Everything else that could act on the
    user's own terminal is dropped. An LF is taken as CR LF, as a tty with `onlcr` would show it.

    Memory is bounded: completed lines beyond `max_chars` are dropped from the head (`truncated`,
    `dropped_lines`), and a line longer than `max_line_chars` is wrapped. A chunk bigger than
    `max_chars` is parsed from where its retained tail starts (`skip_head`).
    """

    def __init__(
        self, *, max_chars: int = DEFAULT_MAX_CHARS, max_line_chars: int = DEFAULT_MAX_LINE_CHARS
    ) -> None:
        super().__init__(max_line_chars=max_line_chars)
        self.max_chars = max_chars
        self.dropped_lines = 0
        self.truncated = False
        # Lines as styled text, by absolute line number: each parsed once, when first drawn,
        # and let go with the line.
        self._styled: dict[int, Text] = {}

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

    def styled(self, number: int) -> Text | None:
        """Completed line `number` (counted from the first line ever, dropped ones included) as
        styled text, parsed on first use and kept with the line; None once it was dropped."""
        found = self._styled.get(number)
        if found is None:
            index = number - self.dropped_lines
            if not 0 <= index < len(self._lines):
                return None
            found = self._styled[number] = styled_line(self._lines[index])
        return found

    def feed(self, chunk: str) -> list[str]:
        """Consume one decoded chunk and return the lines it completed.

        A chunk longer than `max_chars` goes through `skip_head` first: the lines of its head,
        which could not be retained anyway, are neither built nor returned.
        """
        data = self.skip_head(chunk) if len(chunk) > self.max_chars else chunk
        self._new = []
        if self._pending:
            data = self._pending + data
            self._pending = ""
        if self._in_string:
            self._feed_general(data)
        else:
            self._feed_bulk(data)
        new, self._new = self._new, []
        self._trim()
        return new

    def skip_head(self, chunk: str) -> str:
        """Skip the part of a big chunk that could not be retained anyway; return the rest to feed.

        When the pending text plus `chunk` exceeds `max_chars`, parsing can resume after the last
        LF that leaves at least `max_chars` characters: every line before it would be dropped. The
        pen and the control-string state at that point are recovered from the skipped text with
        C-speed scans, so the tail renders as if everything had been parsed; `dropped_lines` counts
        the skipped LFs (approximate: LFs inside control strings and wrapped lines differ). The
        retained text can then be somewhat less than `max_chars`. Otherwise nothing happens and
        `chunk` is returned. Call `feed` with the result (in any number of pieces).
        """
        data = self._pending + chunk if self._pending else chunk
        cut = data.rfind("\n", 0, len(data) - self.max_chars)
        # Cut where no control string is open, so that the line after the cut starts afresh: an
        # unterminated OSC (say) before the LF is moved into the parsed tail.
        for _ in range(8):
            if cut < 0:
                return chunk
            end = cut + 1
            esc = data.rfind("\x1b", 0, end)
            if not self._in_string_after(data, end, esc):
                break
            cut = data.rfind("\n", 0, esc) if esc >= 0 else -1
        else:
            return chunk
        self._pending = ""
        self._in_string = False
        self._pen = self._pen_after(data, end)
        self.dropped_lines += len(self._lines) + data.count("\n", 0, end)
        self._lines.clear()
        self._styled.clear()
        self._retained_chars = 0
        self._parts = []
        self._len = self._col = 0
        self._line_style = ()
        self.truncated = True
        return data[end:]

    def _pen_after(self, data: str, end: int) -> Pen:
        """The pen once `data[:end]` has been parsed, from its last SGR sequences only.

        Every `ESC [ params m` is effective (an ESC always ends a control string), so it is enough
        to walk back to the last reset, or to `MAX_PEN_GROUPS` sequences, which push out any
        earlier attribute. It walks back with `rfind`, then (past many other CSI sequences) with
        regex windows growing from the end, so that this stays a C-speed scan.
        """
        found: list[str] = []
        stop = end
        # Usually the last reset is near: walk back with rfind, which is much faster than a
        # regex scan. Lots of other CSI sequences (progress bars) switch to regex windows.
        for _ in range(1024):
            start = data.rfind("\x1b[", 0, stop)
            if start < 0:
                stop = 0
                break
            stop = start
            m = SGR.match(data, start, end)
            if m is None:
                continue
            found.append(m.group(1))
            if resets(m.group(1)) or len(found) >= MAX_PEN_GROUPS:
                return self._fold_pen((), found)
        window = 65536
        while stop > 0:
            start = max(0, stop - window)
            # Matches that begin in [start, stop); one may end past `stop` (but not past `end`).
            matches: list[re.Match[str]] = []
            for m in SGR.finditer(data, start, end):
                if m.start() >= stop:
                    break
                matches.append(m)
            for m in reversed(matches):
                params = m.group(1)
                found.append(params)
                if resets(params) or len(found) >= MAX_PEN_GROUPS:
                    return self._fold_pen((), found)
            stop = start
            window *= 2
        return self._fold_pen(self._pen, found)

    @staticmethod
    def _fold_pen(pen: Pen, found_backwards: list[str]) -> Pen:
        for params in reversed(found_backwards):
            pen = apply_sgr(pen, params)
        return pen

    def _in_string_after(self, data: str, end: int, esc: int) -> bool:
        """Whether `data[:end]` (ending with an LF, its last ESC at `esc`) leaves the parser inside
        an OSC, DCS or like string. Any ESC ends a string, so only the last one matters."""
        if esc < 0:
            return self._in_string and _STRING_TERMINATOR.search(data, 0, end) is None
        return data[esc + 1] in "]PX^_" and _STRING_TERMINATOR.search(data, esc + 2, end) is None

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

    # ----------------------------------------------------------------------------- bulk path
    def _feed_bulk(self, data: str) -> None:
        """The fast path, for output whose only escapes are SGR: one C-speed split into text runs
        and SGR parameters, then string methods per run instead of a regex match per token. An
        unfinished sequence at the very end (a chunk boundary) and any other escape or control
        but LF, CR and TAB go to the general path."""
        body, rest = data, ""
        if "\x1b" in data:
            last_esc = data.rfind("\x1b", max(0, len(data) - MAX_PENDING))
            if last_esc >= 0 and SGR.match(data, last_esc) is None:
                body, rest = data[:last_esc], data[last_esc:]
            parts = SGR.split(body) if body else []
            texts = "".join(parts[0::2])
        else:
            parts, texts = [data], data
        if not parts or not is_plain(texts):
            self._feed_general(data)
            return
        self._feed_runs(parts, edits="\r" in body or "\t" in body)
        if rest:
            self._feed_general(rest)

    def _feed_runs(self, parts: list[str], *, edits: bool) -> None:
        """Text runs (no controls but LF, CR and TAB) alternating with SGR parameters; `edits`
        says whether any run holds a CR or TAB.

        The line state lives in local variables while the cursor stays at the end of the line,
        which is what plain appending and LF keep true; a whole line inside a run is stored at
        once. A run with CR or TAB in it, a cursor moved back, and a line to wrap are handed to
        the general path, from the state kept here.
        """
        lines, new, limit = self._lines, self._new, self.max_line_chars
        cur, length, style, pen = self._parts, self._len, self._line_style, self._pen
        at_end = self._col == length
        widest = self.max_cells
        added = 0
        cache = PEN_CACHE
        first: list[str | None] = [None]  # no SGR before the first text run
        for params, text in zip(chain(first, parts[1::2]), parts[0::2], strict=True):
            if params is not None:
                after = cache.get((pen, params))
                pen = after if after is not None else apply_sgr(pen, params)
            if not text:
                continue
            if not at_end or (edits and ("\r" in text or "\t" in text)):
                # Hand over: the line editor edits the line from the state kept here.
                self._parts, self._len, self._line_style = cur, length, style
                if at_end:
                    self._col = length
                self._pen, self.max_cells = pen, widest
                self._retained_chars += added
                added = 0
                self._edit_run(text)
                cur, length, style = self._parts, self._len, self._line_style
                at_end, widest = self._col == length, self.max_cells
                continue
            if "\n" not in text and length + len(text) <= limit:
                if style != pen:
                    cur.append(switch_seq(style, pen))
                    style = pen
                cur.append(text)
                length += len(text)
                continue
            pieces = text.split("\n")
            last = len(pieces) - 1
            prefix = pen_seq(pen)
            if length + len(text) <= limit:
                # No line of the run can wrap (the usual coloured line): no check per line.
                if pieces[0]:
                    if style != pen:
                        cur.append(switch_seq(style, pen))
                    cur.append(pieces[0])
                    length += len(pieces[0])
                for index in range(last):
                    if index:
                        piece = pieces[index]
                        line = prefix + piece if piece and prefix else piece
                        length = len(piece)
                    else:
                        line = "".join(cur) if length else ""
                    if length > widest or (2 * length > widest and not line.isascii()):
                        cells = length if line.isascii() else cell_len(SGR.sub("", line))
                        widest = max(widest, cells)
                    lines.append(line)
                    new.append(line)
                    added += len(line) + 1
                tail = pieces[last]
                cur, style = ([prefix, tail] if prefix else [tail], pen) if tail else ([], ())
                length = len(tail)
                continue
            for index, piece in enumerate(pieces):
                if index and index < last and len(piece) <= limit:
                    # A whole line inside the run, from a fresh line: store it at once.
                    line = prefix + piece if piece and prefix else piece
                    length = len(piece)
                elif length + len(piece) > limit:
                    # Wrapping: the general editor does it.
                    self._parts, self._len, self._col, self._line_style = cur, length, length, style
                    self._pen, self.max_cells = pen, widest
                    self._retained_chars += added
                    added = 0
                    self._write(piece)
                    cur, length, style = self._parts, self._len, self._line_style
                    widest = self.max_cells
                    if index == last:
                        break
                    line = "".join(cur) if length else ""
                else:
                    if piece:
                        if style != pen:
                            cur.append(switch_seq(style, pen))
                            style = pen
                        cur.append(piece)
                        length += len(piece)
                    if index == last:
                        break
                    line = "".join(cur) if length else ""
                if length > widest or (2 * length > widest and not line.isascii()):
                    cells = length if line.isascii() else cell_len(SGR.sub("", line))
                    widest = max(widest, cells)
                lines.append(line)
                new.append(line)
                added += len(line) + 1
                cur, length, style = [], 0, ()
        self._parts, self._len, self._line_style = cur, length, style
        if at_end:
            self._col = length
        self._pen, self.max_cells = pen, widest
        self._retained_chars += added

    def _edit_run(self, text: str) -> None:
        """A run of text whose only controls are LF, CR and TAB: split in C at LF and CR and let
        the line editor's primitives overwrite (a progress bar redrawn a hundred times a line
        costs string slicing, not a regex match per token). A tab over existing text moves
        without erasing: that piece goes to the general path."""
        pieces = text.split("\n")
        last = len(pieces) - 1
        for index, piece in enumerate(pieces):
            segments = piece.split("\r")
            if "\t" in piece and (len(segments) > 1 or self._col != self._len):
                self._feed_general(piece)
            else:
                for number, segment in enumerate(segments):
                    if number:
                        self._col = 0
                        self._write(segment)
                    elif self._col == self._len:
                        self._write_expanding_tabs(segment)
                    else:
                        self._write(segment)
            if index < last:
                self._newline()

    def _write_expanding_tabs(self, text: str) -> None:
        """Write text with the cursor at the end of the line, where a tab writes blanks."""
        if "\t" in text:
            expanded = (" " * self._col + text).expandtabs(TAB_SIZE)[self._col :]
            if self._col + len(expanded) > self.max_line_chars:
                # A tab stop is clamped at the wrap column (`_tab`); expandtabs does not know it.
                self._feed_general(text)
                return
            text = expanded
        self._write(text)

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
        if self._styled:
            first = self.dropped_lines
            self._styled = {n: text for n, text in self._styled.items() if n >= first}
