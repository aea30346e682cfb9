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
* `reveal_invisible` shows bidi controls and invisible characters as `⟨U+202E⟩`, and
  `clean_line` / `clean_block` combine it with the above for text that names a path or an
  action the user approves (tui/agent_text.py applies them to everything an agent sends).

No Textual import here: this module is unit-tested on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain

from rich.cells import cell_len
from rich.text import Text

__all__ = [
    "TerminalScreenBuffer",
    "clean_block",
    "clean_line",
    "reveal_invisible",
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

# What ends a control string without being an escape of its own.
_STRING_TERMINATOR = re.compile(r"[\x07\x18\x1a\x9c]")
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"

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


def _resets(params: str) -> bool:
    """Whether the pen after this SGR no longer depends on the pen before it."""
    after = _compute_sgr(("\x00",), params)
    return not after or after[0] != "\x00"


def _is_plain(text: str) -> bool:
    """No escape and no control but LF, CR and TAB: a C-speed check for big chunks, because a
    regex character-class scan runs at only about 100 MB/s."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _PLAIN_ASCII)
    return _NEEDS_SLOW_PATH.search(text) is None


def _pen_seq(pen: _Pen) -> str:
    return f"\x1b[{';'.join(pen)}m" if pen else ""


_SWITCH_CACHE: dict[tuple[_Pen, _Pen], str] = {}


def _switch_seq(old: _Pen, new: _Pen) -> str:
    """The SGR text that changes the style from `old` to `new` (cached like `_apply_sgr`)."""
    key = (old, new)
    seq = _SWITCH_CACHE.get(key)
    if seq is None:
        if len(_SWITCH_CACHE) > 4096:
            _SWITCH_CACHE.clear()
        if old == new:
            seq = ""
        elif not new:
            seq = "\x1b[0m"
        else:
            seq = ("\x1b[0m" if old else "") + _pen_seq(new)
        _SWITCH_CACHE[key] = seq
    return seq


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
    `max_cells` is the width of the widest completed line seen, for a view's scroll range.

    Big bursts stay fast: plain text and text whose only escapes are SGR take bulk paths that
    store the same lines as the token-by-token parser, and a chunk bigger than `max_chars` is
    parsed from where its retained tail starts (`skip_head`).
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
        # The widest completed line so far, in cells (never decreases): a horizontal scroll range
        # that a view would otherwise have to measure line by line.
        self.max_cells = 0
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
            self._feed_slow(data)
        elif "\x1b" not in data:
            if self._col == self._len and _is_plain(data):
                self._feed_fast(data)
            else:
                self._feed_slow(data)
        else:
            # Coloured output: if SGR is the only escape, take it apart in one regex split. An
            # unfinished sequence at the very end (a chunk boundary) is left to the slow path.
            body, rest = data, ""
            last_esc = data.rfind("\x1b", max(0, len(data) - _MAX_PENDING))
            if last_esc >= 0 and _SGR.match(data, last_esc) is None:
                body, rest = data[:last_esc], data[last_esc:]
            parts = _SGR.split(body) if body else []
            if parts and _is_plain("".join(parts[0::2])):
                if self._col == self._len and "\r" not in body and "\t" not in body:
                    self._feed_sgr_simple(parts)
                else:
                    self._feed_sgr(parts)
                if rest:
                    self._feed_slow(rest)
            else:
                self._feed_slow(data)
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
        self._retained_chars = 0
        self._parts = []
        self._len = self._col = 0
        self._line_style = ()
        self.truncated = True
        return data[end:]

    def _pen_after(self, data: str, end: int) -> _Pen:
        """The pen once `data[:end]` has been parsed, from its last SGR sequences only.

        Every `ESC [ params m` is effective (an ESC always ends a control string), so it is enough
        to walk back to the last reset, or to `_MAX_PEN_GROUPS` sequences, which push out any
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
            m = _SGR.match(data, start, end)
            if m is None:
                continue
            found.append(m.group(1))
            if _resets(m.group(1)) or len(found) >= _MAX_PEN_GROUPS:
                return self._fold_pen((), found)
        window = 65536
        while stop > 0:
            start = max(0, stop - window)
            # Matches that begin in [start, stop); one may end past `stop` (but not past `end`).
            matches: list[re.Match[str]] = []
            for m in _SGR.finditer(data, start, end):
                if m.start() >= stop:
                    break
                matches.append(m)
            for m in reversed(matches):
                params = m.group(1)
                found.append(params)
                if _resets(params) or len(found) >= _MAX_PEN_GROUPS:
                    return self._fold_pen((), found)
            stop = start
            window *= 2
        return self._fold_pen(self._pen, found)

    @staticmethod
    def _fold_pen(pen: _Pen, found_backwards: list[str]) -> _Pen:
        for params in reversed(found_backwards):
            pen = _apply_sgr(pen, params)
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

    def _feed_sgr(self, parts: list[str]) -> None:
        """Coloured output already split by `_SGR`: text runs (no controls but LF, CR and TAB)
        alternating with SGR parameters.

        Does what `_feed_slow` would do, token for token, but a run of text is handled with
        string methods instead of one regex match per token; complete lines in the middle of a
        run are stored directly. CR, TAB, a cursor off the end of the line and overlong lines go
        through the general paths.
        """
        lines, new, limit = self._lines, self._new, self.max_line_chars
        cache = _SGR_CACHE
        added = 0
        sgr = False
        for part in parts:
            if sgr:
                sgr = False
                pen = cache.get((self._pen, part))
                self._pen = pen if pen is not None else _apply_sgr(self._pen, part)
                continue
            sgr = True
            if not part:
                continue
            if "\r" in part or "\t" in part or self._col != self._len:
                if self._col == self._len:
                    self._feed_fast(part)
                else:
                    self._feed_slow(part)
                continue
            if "\n" not in part:
                end = self._len + len(part)
                if end > limit:
                    self._write(part)
                    continue
                # `_append`, inlined: this is the hot path for coloured output.
                pen = self._pen
                if self._line_style != pen:
                    self._parts.append(_switch_seq(self._line_style, pen))
                    self._line_style = pen
                self._parts.append(part)
                self._len = self._col = end
                continue
            pieces = part.split("\n")
            self._append_text(pieces[0])
            self._newline()
            for piece in pieces[1:-1]:
                # A whole line inside the run, from a fresh line: store it at once.
                n = len(piece)
                if n <= limit:
                    if n > self.max_cells or (2 * n > self.max_cells and not piece.isascii()):
                        self.max_cells = max(self.max_cells, cell_len(piece))
                    line = _pen_seq(self._pen) + piece if piece and self._pen else piece
                    lines.append(line)
                    new.append(line)
                    added += len(line) + 1
                else:
                    self._write(piece)
                    self._newline()
            self._append_text(pieces[-1])
        self._retained_chars += added

    def _feed_sgr_simple(self, parts: list[str]) -> None:
        """`_feed_sgr` for the usual coloured output: no CR or TAB, and the cursor at the end of
        the line, where it stays. The line state lives in local variables."""
        lines, new, limit = self._lines, self._new, self.max_line_chars
        cache = _SGR_CACHE
        cur, length, style, pen = self._parts, self._len, self._line_style, self._pen
        widest = self.max_cells
        added = 0
        first: list[str | None] = [None]  # no SGR before the first text run
        for params, text in zip(chain(first, parts[1::2]), parts[0::2], strict=True):
            if params is not None:
                after = cache.get((pen, params))
                pen = after if after is not None else _apply_sgr(pen, params)
            if not text:
                continue
            if length + len(text) > limit:
                # Wrapping: the general path does it, from the state kept here.
                self._parts, self._len, self._col, self._line_style = cur, length, length, style
                self._pen, self.max_cells = pen, widest
                self._retained_chars += added
                added = 0
                self._feed_sgr([text])
                cur, length, style = self._parts, self._len, self._line_style
                widest = self.max_cells
                continue
            if "\n" not in text:
                if style != pen:
                    cur.append(_switch_seq(style, pen))
                    style = pen
                cur.append(text)
                length += len(text)
                continue
            pieces = text.split("\n")
            if pieces[0]:
                if style != pen:
                    cur.append(_switch_seq(style, pen))
                cur.append(pieces[0])
                length += len(pieces[0])
            prefix = _pen_seq(pen)
            last = len(pieces) - 1
            for index in range(last):
                if index:
                    piece = pieces[index]
                    line = prefix + piece if piece and prefix else piece
                    length = len(piece)
                else:
                    line = "".join(cur) if length else ""
                if length > widest or (2 * length > widest and not line.isascii()):
                    cells = length if line.isascii() else cell_len(_SGR.sub("", line))
                    widest = max(widest, cells)
                lines.append(line)
                new.append(line)
                added += len(line) + 1
            tail = pieces[last]  # starts the next line
            if tail:
                cur, style = ([prefix, tail] if prefix else [tail]), pen
            else:
                cur, style = [], ()
            length = len(tail)
        self._parts, self._len, self._col, self._line_style = cur, length, length, style
        self._pen, self.max_cells = pen, widest
        self._retained_chars += added

    def _append_text(self, text: str) -> None:
        """Write text without controls with the cursor at the end of the line."""
        end = self._len + len(text)
        if not text or end > self.max_line_chars:
            self._write(text)
            return
        if self._line_style != self._pen:
            self._parts.append(_switch_seq(self._line_style, self._pen))
            self._line_style = self._pen
        self._parts.append(text)
        self._len = self._col = end

    def _write_expanding_tabs(self, text: str) -> None:
        # Only called with the cursor at the end of the line, where a tab writes blanks.
        if "\t" in text:
            expanded = (" " * self._col + text).expandtabs(TAB_SIZE)[self._col :]
            if self._col + len(expanded) > self.max_line_chars:
                # A tab stop is clamped at the wrap column (`_tab`); expandtabs does not know it.
                self._feed_slow(text)
                return
            text = expanded
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
        n = self._len
        if n > self.max_cells or (2 * n > self.max_cells and not line.isascii()):
            cells = n if line.isascii() else cell_len(_SGR.sub("", line))
            self.max_cells = max(self.max_cells, cells)
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
    if "\r" not in text and _is_plain(text):
        return text  # nothing to remove (the usual message chunk): a C-speed check, no copy

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


# Characters that reorder or hide text without being controls: bidi embeddings, overrides and
# isolates (Trojan Source: `U+202E` shows `exe.txt` as `txt.exe`), marks, zero-width and other
# default-ignorable characters (a hidden `U+200B` makes two paths that look the same differ),
# line and paragraph separators, Hangul fillers, tag characters; lone surrogates (undecodable
# bytes, which the terminal writer cannot encode). Variation selectors are kept: they only pick
# the look of the glyph before them (the emoji `⚠️`), and emoji sequences use them everywhere.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\ud800-\udfff"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f]"
)


# What prose keeps of `_INVISIBLE` but the embeddings, overrides and isolates: right-to-left text
# needs its marks, Persian and emoji their joiners; an override only ever hides what follows.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _reveal(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else f"\u27e8U+{code:04X}\u27e9"


def reveal_invisible(text: str, *, prose: bool = False) -> str:
    """Show bidi controls and invisible characters as `⟨U+202E⟩`, so a path or an action the
    user is asked to approve reads the same on screen as what runs (the diff view does the
    same with its own markers, tui/diffing.py). Lone surrogates become U+FFFD. With `prose`
    (message text), only the embeddings, overrides and isolates are shown so."""
    if text.isascii():
        return text
    return (_BIDI_CONTROLS if prose else _INVISIBLE).sub(_reveal, text)


def clean_line(text: str) -> str:
    """One safe, honest line from agent text: `strip_control`, then `reveal_invisible`."""
    return reveal_invisible(strip_control(text))


def clean_block(text: str) -> str:
    """Multi-line agent text that is shown as what a tool did or will do (tool-call content):
    `sanitize_text`, then `reveal_invisible`; line breaks stay."""
    return reveal_invisible(sanitize_text(text))


def to_rich_text(line: str, *, style: str = "") -> Text:
    """Render one sanitized line (SGR kept) as a `rich.text.Text` with its colours."""
    return Text.from_ansi(line, style=style, end="", no_wrap=True)
