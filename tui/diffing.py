"""Line diffs of ACP `diff` content, laid out as rows for a unified or a split view.

Pure Python (no Textual), so it runs in a worker thread and is unit-tested on its own. The
widget (`tui.widgets.diff_panel`) only asks for the rows it is about to draw: `RowLayout.row(y)`
builds one row on demand, and syntax highlighting is done per block of lines on first use, so a
10,000-line file costs a handful of block objects rather than 10,000 row objects.

The line diff reuses the agent's algorithm (`agent.tools.hunks.line_opcodes`: prefix/suffix
trimming, unique-line anchoring and bounded Myers), which stays fast where
`difflib.SequenceMatcher` without autojunk goes quadratic on repeated lines.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Literal, TypeAlias

from rich.cells import cell_len

from tui.sanitize import strip_control

__all__ = [
    "MARKERS",
    "Block",
    "Change",
    "DiffItem",
    "DiffModel",
    "Doc",
    "Equal",
    "FileDiff",
    "FileHeaderRow",
    "FoldRow",
    "GapRow",
    "LineRow",
    "Row",
    "RowLayout",
    "Separator",
    "SplitRow",
    "build_diff",
    "display_line",
    "intraline",
    "prepare_text",
    "relative_path",
    "resolve_language",
    "split_text",
]

CONTEXT = 3
"""Unchanged lines kept visible on each side of a change."""
MIN_FOLD = 4
"""Shorter unchanged runs are shown in full: a fold row would save almost nothing."""
TAB_SIZE = 4
MAX_LINE_CHARS = 4000
"""Longer lines are cut for display (the diff itself still compares the whole line)."""
HIGHLIGHT_BLOCK = 32
HIGHLIGHT_LEAD = 16
"""Lines lexed before a block so the lexer has some state (a block never starts blind)."""
MAX_HIGHLIGHT_CHARS = 12_000
"""Blocks with more text stay plain: lexing runs on the event loop when scrolling (~2 µs a
character for Python), so this bounds one block to ~25 ms."""
PAIR_LIMIT = 400
"""Replacement blocks up to this many old×new line comparisons are paired by similarity."""
PAIR_RATIO = 0.5
INTRALINE_MAX_TOKENS = 400
INTRALINE_MAX_CHANGED = 0.65
"""Lines whose changed share exceeds this are simply different: no word highlights."""

LineKind: TypeAlias = Literal["context", "added", "removed"]
Ranges: TypeAlias = tuple[tuple[int, int], ...]
TokenSpans: TypeAlias = tuple[tuple[int, int, tuple[str, ...]], ...]
"""Per line: (start, end, Pygments token type as a tuple such as ("Keyword", "Constant"))."""


@dataclass(frozen=True, slots=True)
class DiffItem:
    """One ACP diff content item. `old_text` is None for a new file and may be a snippet.

    `old_line` / `new_line` are the 1-based lines where the item starts in the file before
    and after the edit, when something told us (`_meta["dsh.line"]`, an anchor found on disk,
    a location: see `tui.line_numbers`). Without them a snippet is shown without numbers: a
    count from 1 would be a wrong number, and a reviewer trusts numbers. A new file
    (`old_text` None) is a whole file and is numbered from 1 regardless.
    """

    path: str
    old_text: str | None
    new_text: str
    old_line: int | None = None
    new_line: int | None = None

    @property
    def numbered(self) -> bool:
        """Whether its lines get numbers: a whole new file, or known start lines."""
        return self.old_text is None or (self.old_line is not None and self.new_line is not None)

    @property
    def starts(self) -> tuple[int, int] | None:
        """(old, new) start lines, None when the position is unknown."""
        if self.old_text is None:
            return (1, 1)
        if self.old_line is None or self.new_line is None:
            return None
        return (self.old_line, self.new_line)


# -- text preparation ------------------------------------------------------------------------

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


def _eol_note(old: set[str], new: set[str]) -> str:
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


# -- language and highlighting ---------------------------------------------------------------

_SHEBANGS = {
    "python": "python",
    "python3": "python",
    "node": "javascript",
    "deno": "typescript",
    "bash": "bash",
    "sh": "bash",
    "zsh": "zsh",
    "fish": "fish",
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
}
_LANGUAGE_BY_NAME: dict[str, str] = {}
GUESS_RATING = 0.3
"""Pygments' content guess is kept only above this rating: prose otherwise gets a random lexer."""


def resolve_language(path: str, sample: str) -> str:
    """The Pygments alias for a file: by file name, else guessed from content, else "text".

    Slow on first use (Pygments loads its lexer table), so the widget calls it in a thread.
    """
    from pygments.lexers import find_lexer_class_for_filename, guess_lexer
    from pygments.util import ClassNotFound

    name = PurePath(path).name
    if name.endswith(".tcss"):
        return "scss"  # Textual CSS: close enough, as textual.highlight does
    cached = _LANGUAGE_BY_NAME.get(name)
    if cached is not None:
        return cached
    try:
        lexer_class = find_lexer_class_for_filename(name)
    except ClassNotFound:  # pragma: no cover - Pygments returns None instead
        lexer_class = None
    if lexer_class is not None and lexer_class.aliases:
        _LANGUAGE_BY_NAME[name] = lexer_class.aliases[0]
        return lexer_class.aliases[0]
    head = sample[:4000]
    first = head.split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].replace("/", " ").split()
        if words and words[-1] in _SHEBANGS:
            return _SHEBANGS[words[-1]]
        for word in words:
            base = word.rstrip("0123456789.")
            if base in _SHEBANGS:
                return _SHEBANGS[base]
    if not head.strip():
        return "text"
    try:
        guessed = guess_lexer(head)
    except (ClassNotFound, ValueError):  # pragma: no cover - defensive
        return "text"
    if guessed.aliases and type(guessed).analyse_text(head) >= GUESS_RATING:
        return str(guessed.aliases[0])
    return "text"


def _lex(language: str, text: str) -> list[tuple[tuple[str, ...], str]]:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False, tabsize=0)
    except ClassNotFound:
        return []
    return [(tuple(token_type), value) for token_type, value in lexer.get_tokens(text)]


class Doc:
    """One side (old or new) of one diff item: its display lines and a highlight cache.

    Compared by identity: the model cache hands the same `Doc` to every update of a card, so
    its highlighted blocks are reused without hashing the text again.
    """

    __slots__ = ("_blocks", "first", "language", "lines")

    def __init__(self, lines: Sequence[str], language: str = "text", first: int | None = 1) -> None:
        self.lines: tuple[str, ...] = tuple(lines)
        self.language = language
        self.first = first
        """The file line number of `lines[0]`; None when the position in the file is unknown."""
        self._blocks: dict[int, tuple[TokenSpans, ...]] = {}

    def number(self, index: int) -> int | None:
        """The file line number of `lines[index]`, None when unknown."""
        return None if self.first is None else self.first + index

    def __len__(self) -> int:
        return len(self.lines)

    def spans(self, index: int) -> TokenSpans:
        """Token spans of one line, lexing its block (with some lead-in) on first use.

        Lexing a block takes milliseconds: the widget calls this from a worker thread and
        reads results on the event loop with `cached_spans`.
        """
        if self.language == "text":
            return ()
        block = index // HIGHLIGHT_BLOCK
        lines = self._blocks.get(block)
        if lines is None:
            lines = self._blocks[block] = self._highlight_block(block)
        return lines[index - block * HIGHLIGHT_BLOCK]

    def cached_spans(self, index: int) -> TokenSpans | None:
        """Token spans if the line's block is already lexed, else None (never lexes)."""
        if self.language == "text":
            return ()
        block = index // HIGHLIGHT_BLOCK
        lines = self._blocks.get(block)
        return None if lines is None else lines[index - block * HIGHLIGHT_BLOCK]

    def _highlight_block(self, block: int) -> tuple[TokenSpans, ...]:
        start = block * HIGHLIGHT_BLOCK
        end = min(len(self.lines), start + HIGHLIGHT_BLOCK)
        lead = max(0, start - HIGHLIGHT_LEAD)
        window = self.lines[lead:end]
        empty: tuple[TokenSpans, ...] = ((),) * (end - start)
        text = "\n".join(window)
        if len(text) > MAX_HIGHLIGHT_CHARS:
            return empty
        tokens = _lex(self.language, text)
        if sum(len(value) for _, value in tokens) != len(text):
            return empty  # a lexer that rewrote the text: better plain than misaligned
        per_line: list[list[tuple[int, int, tuple[str, ...]]]] = [[]]
        column = 0
        for token_type, value in tokens:
            pieces = value.split("\n")
            for n, piece in enumerate(pieces):
                if n:
                    per_line.append([])
                    column = 0
                if piece and token_type != ("Text",) and token_type != ("Text", "Whitespace"):
                    per_line[-1].append((column, column + len(piece), token_type))
                column += len(piece)
        skip = start - lead
        result = [tuple(spans) for spans in per_line[skip : skip + (end - start)]]
        result += [()] * (end - start - len(result))
        return tuple(result)


# -- the model -------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Equal:
    """A run of unchanged lines (both docs, same length)."""

    old: Doc
    new: Doc
    old_start: int
    new_start: int
    count: int


@dataclass(eq=False, slots=True)
class Change:
    """Removed lines `old[old_start:+old_count]` replaced by `new[new_start:+new_count]`.

    `pairs` links old and new lines (relative indices) that are edits of one another: they sit
    on one row in the split view and get word-level highlights.
    """

    old: Doc
    new: Doc
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    pairs: tuple[tuple[int, int], ...] = ()
    _intraline: dict[int, tuple[Ranges, Ranges] | None] = field(default_factory=dict)
    _pair_of: dict[tuple[bool, int], int] | None = None
    _split: tuple[tuple[int | None, int | None], ...] | None = None

    def intraline(self, pair: int) -> tuple[Ranges, Ranges] | None:
        """Changed character ranges of a paired line (old, new); memoized, computed on demand."""
        if pair not in self._intraline:
            i, j = self.pairs[pair]
            self._intraline[pair] = intraline(
                self.old.lines[self.old_start + i], self.new.lines[self.new_start + j]
            )
        return self._intraline[pair]

    def changes_of(self, new_side: bool, rel: int) -> Ranges:
        """Intraline ranges of one line of the block (relative index), () when unpaired."""
        if self._pair_of is None:
            self._pair_of = {}
            for p, (i, j) in enumerate(self.pairs):
                self._pair_of[(False, i)] = p
                self._pair_of[(True, j)] = p
        pair = self._pair_of.get((new_side, rel))
        if pair is None:
            return ()
        found = self.intraline(pair)
        if found is None:
            return ()
        return found[1] if new_side else found[0]

    @property
    def split_count(self) -> int:
        if not self.pairs:
            return max(self.old_count, self.new_count)
        return len(self.split_rows())

    def split_row(self, k: int) -> tuple[int | None, int | None]:
        """Row `k` of the side-by-side view: (old, new) relative indices, None for a filler."""
        if not self.pairs:
            return (k if k < self.old_count else None, k if k < self.new_count else None)
        return self.split_rows()[k]

    def split_rows(self) -> tuple[tuple[int | None, int | None], ...]:
        """Side-by-side rows: paired lines together, unpaired lines zipped between pairs."""
        if self._split is None:
            rows: list[tuple[int | None, int | None]] = []
            i = j = 0
            for pi, pj in [*self.pairs, (self.old_count, self.new_count)]:
                left = list(range(i, pi))
                right = list(range(j, pj))
                for k in range(max(len(left), len(right))):
                    rows.append(
                        (left[k] if k < len(left) else None, right[k] if k < len(right) else None)
                    )
                if pi < self.old_count:
                    rows.append((pi, pj))
                i, j = pi + 1, pj + 1
            self._split = tuple(rows)
        return self._split


@dataclass(eq=False, slots=True)
class Fold:
    """An unchanged run hidden behind one "N unchanged lines" row until expanded."""

    equal: Equal
    fold_id: int


@dataclass(eq=False, slots=True)
class Separator:
    """Between two items of one file. `between` is how many file lines lie between them when
    both positions are known (the row says so); None when unknown (a plain dashed row)."""

    between: int | None = None


Block: TypeAlias = Equal | Change | Fold | Separator


@dataclass(eq=False, slots=True)
class FileDiff:
    """All items that share one path, in order, as one file view."""

    path: str
    new_file: bool
    added: int
    removed: int
    blocks: tuple[Block, ...] = field(repr=False)
    language: str
    number_width: int
    max_width: int
    eol_note: str = ""
    unnumbered: bool = False
    """Some item's position in the file is unknown: its rows show `?` for numbers."""


@dataclass(eq=False, slots=True)
class DiffModel:
    files: tuple[FileDiff, ...]
    fold_count: int

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)


def _pair_lines(old: Sequence[str], new: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Which old and new lines of a replacement are edits of each other.

    Equal counts pair in order (the common in-place edit; `intraline` later declines pairs that
    are not alike). Otherwise small blocks get an in-order alignment maximizing similarity;
    large unequal blocks are left unpaired rather than spend quadratic time.
    """
    n, m = len(old), len(new)
    if n == 0 or m == 0:
        return ()
    if n == m:
        return tuple((k, k) for k in range(n))
    if n * m > PAIR_LIMIT:
        return ()
    score = [[0.0] * m for _ in range(n)]
    for i in range(n):
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(old[i])
        for j in range(m):
            matcher.set_seq1(new[j])
            if matcher.real_quick_ratio() >= PAIR_RATIO and matcher.quick_ratio() >= PAIR_RATIO:
                ratio = matcher.ratio()
                if ratio >= PAIR_RATIO:
                    score[i][j] = ratio
    # best[i][j]: best total for old[i:], new[j:]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = score[i][j] + best[i + 1][j + 1] if score[i][j] else 0.0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], take)
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if score[i][j] and best[i][j] == score[i][j] + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return tuple(pairs)


class _FoldIds:
    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        self.next += 1
        return self.next - 1


def _item_blocks(
    old_raw: list[str], new_raw: list[str], old: Doc, new: Doc, ids: _FoldIds
) -> tuple[list[Block], int, int]:
    """Blocks of one item. The diff compares the raw lines, so a change that display hides
    (two different controls shown as U+FFFD, a difference past the display cut) still shows."""
    # Imported here: `agent.tools` builds the agent's tool registry on import (~0.1 s), a cost
    # for the first diff (in its worker thread) rather than for every dsh-tui start.
    from agent.tools.hunks import line_opcodes

    ops: list[tuple[str, int, int, int, int]] = []
    for op in line_opcodes(old_raw, new_raw) if (old_raw or new_raw) else []:
        if ops and op[0] != "equal" and ops[-1][0] != "equal":
            # Myers yields a replacement as adjacent deletes and inserts: one change block.
            ops[-1] = ("replace", ops[-1][1], op[2], ops[-1][3], op[4])
        else:
            ops.append(op)
    blocks: list[Block] = []
    added = removed = 0
    last = len(ops) - 1
    for n, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "equal":
            pairs = _pair_lines(old.lines[i1:i2], new.lines[j1:j2])
            blocks.append(Change(old, new, i1, i2 - i1, j1, j2 - j1, pairs))
            added += j2 - j1
            removed += i2 - i1
            continue
        count = i2 - i1
        keep_before = 0 if n == 0 else CONTEXT  # context after the previous change
        keep_after = 0 if n == last else CONTEXT  # context before the next change
        hidden = count - keep_before - keep_after
        if hidden < MIN_FOLD:
            blocks.append(Equal(old, new, i1, j1, count))
            continue
        if keep_before:
            blocks.append(Equal(old, new, i1, j1, keep_before))
        a, b = i1 + keep_before, j1 + keep_before
        blocks.append(Fold(Equal(old, new, a, b, hidden), ids.take()))
        if keep_after:
            blocks.append(Equal(old, new, a + hidden, b + hidden, keep_after))
    return blocks, added, removed


def build_diff(items: Sequence[DiffItem]) -> DiffModel:
    """Diff every item and group the items by path (first appearance order, items in order).

    May take tens of milliseconds on large inputs (and longer on the first call, when Pygments
    loads): the widget runs it in a thread.
    """
    groups: dict[str, list[DiffItem]] = {}
    for item in items:
        groups.setdefault(item.path, []).append(item)
    ids = _FoldIds()
    files: list[FileDiff] = []
    for path, group in groups.items():
        sample = next((i.new_text for i in group if i.new_text), group[0].old_text or "")
        language = resolve_language(path, sample)
        blocks: list[Block] = []
        added = removed = 0
        widest = longest = 0
        old_eols: set[str] = set()
        new_eols: set[str] = set()
        previous_end: tuple[int, int] | None = None  # (old, new) line after the last item
        for n, item in enumerate(_file_order(group)):
            old_raw, old_display, old_eol, old_width = prepare_text(item.old_text or "")
            new_raw, new_display, new_eol, new_width = prepare_text(item.new_text)
            old_eols.update({old_eol} - {""})
            new_eols.update({new_eol} - {""})
            starts = item.starts
            old = Doc(old_display, language, None if starts is None else starts[0])
            new = Doc(new_display, language, None if starts is None else starts[1])
            item_blocks, a, r = _item_blocks(old_raw, new_raw, old, new, ids)
            if n and item_blocks:
                between: int | None = None
                if starts is not None and previous_end is not None:
                    between = starts[0] - previous_end[0]
                    if between < 0 or between != starts[1] - previous_end[1]:
                        between = None  # overlapping or inconsistent: say nothing
                if between != 0:
                    blocks.append(Separator(between))
            if item_blocks:
                previous_end = (
                    None if starts is None else (starts[0] + len(old), starts[1] + len(new))
                )
            blocks += item_blocks
            added += a
            removed += r
            for doc in (old, new):
                longest = max(longest, len(doc) + (doc.first or 1) - 1)
            widest = max(widest, old_width, new_width)
        eol_note = _eol_note(old_eols, new_eols)
        files.append(
            FileDiff(
                path=path,
                new_file=all(i.old_text is None for i in group),
                added=added,
                removed=removed,
                blocks=tuple(blocks),
                language=language,
                number_width=len(str(max(longest, 1))),
                max_width=widest,
                eol_note=eol_note,
                unnumbered=not all(i.numbered for i in group),
            )
        )
    return DiffModel(tuple(files), ids.next)


def _file_order(group: list[DiffItem]) -> list[DiffItem]:
    """Items of one path in file order when their positions are known (an agent may send a
    file's hunks in any order); those without a position follow, in the order they came."""
    known: list[tuple[tuple[int, int], int, DiffItem]] = []
    rest: list[DiffItem] = []
    for n, item in enumerate(group):
        starts = item.starts
        if starts is not None and item.old_text is not None:
            known.append((starts, n, item))
        else:
            rest.append(item)
    return [item for _, _, item in sorted(known)] + rest


def _widest(lines: Iterable[str]) -> int:
    widest = 0
    for line in lines:
        width = len(line) if line.isascii() else cell_len(line)
        widest = max(widest, width)
    return widest


# -- intraline changes -----------------------------------------------------------------------

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _merge(ranges: list[tuple[int, int]], text: str) -> Ranges:
    """Join ranges separated only by whitespace: "a b" → "c d" reads as one change."""
    merged: list[tuple[int, int]] = []
    for start, end in ranges:
        if merged and (merged[-1][1] == start or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return tuple(merged)


def intraline(old: str, new: str) -> tuple[Ranges, Ranges] | None:
    """Word-level changed ranges (character offsets) inside a modified line pair.

    None when the lines are mostly different (highlighting nearly everything is noise) or
    identical. Long lines fall back to the common prefix/suffix, which is linear.
    """
    if old == new:
        return None
    limit = min(len(old), len(new))
    prefix = _common_length(old, new, limit, suffix=False)
    suffix = _common_length(old, new, limit - prefix, suffix=True)
    # Back off to word boundaries so a change never starts or ends inside an identifier.
    while (
        prefix
        and _is_word(old[prefix - 1])
        and (_is_word(old[prefix : prefix + 1]) or _is_word(new[prefix : prefix + 1]))
    ):
        prefix -= 1
    while (
        suffix
        and _is_word(old[len(old) - suffix])
        and (
            _is_word(old[len(old) - suffix - 1 : len(old) - suffix])
            or _is_word(new[len(new) - suffix - 1 : len(new) - suffix])
        )
    ):
        suffix -= 1
    mid_old = old[prefix : len(old) - suffix]
    mid_new = new[prefix : len(new) - suffix]
    # Tokenizing is skipped when the middle is clearly too long to compare word by word.
    short = max(len(mid_old), len(mid_new)) <= 8 * INTRALINE_MAX_TOKENS
    tokens_old = _TOKEN.findall(mid_old) if short else []
    tokens_new = _TOKEN.findall(mid_new) if short else []
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    if not short or max(len(tokens_old), len(tokens_new)) > INTRALINE_MAX_TOKENS:
        if mid_old:
            old_ranges.append((prefix, prefix + len(mid_old)))
        if mid_new:
            new_ranges.append((prefix, prefix + len(mid_new)))
    else:
        offsets_old = _offsets(tokens_old, prefix)
        offsets_new = _offsets(tokens_new, prefix)
        matcher = difflib.SequenceMatcher(None, tokens_old, tokens_new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if i2 > i1:
                old_ranges.append((offsets_old[i1], offsets_old[i2]))
            if j2 > j1:
                new_ranges.append((offsets_new[j1], offsets_new[j2]))
    changed_old = sum(e - s for s, e in old_ranges)
    changed_new = sum(e - s for s, e in new_ranges)
    if changed_old > INTRALINE_MAX_CHANGED * max(
        len(old.strip()), 1
    ) or changed_new > INTRALINE_MAX_CHANGED * max(len(new.strip()), 1):
        return None
    return _merge(old_ranges, old), _merge(new_ranges, new)


def _common_length(a: str, b: str, limit: int, *, suffix: bool) -> int:
    """Length of the common prefix (or suffix) of `a` and `b`, at most `limit`.

    A binary search over slice comparisons, which run in C: a Python loop over the characters
    of two 4,000-character lines costs milliseconds per pair.
    """
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if (a[len(a) - mid :] == b[len(b) - mid :]) if suffix else (a[:mid] == b[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _offsets(tokens: list[str], start: int) -> list[int]:
    offsets = [start]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets


# -- rows ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LineRow:
    """One line of one side. `changes` are intraline ranges of a paired modified line.

    `old_no` / `new_no` are None on the side a line does not exist on, and on both sides
    when the item's position in the file is unknown (`unknown`).
    """

    kind: LineKind
    old_no: int | None
    new_no: int | None
    doc: Doc
    index: int
    changes: Ranges = ()

    @property
    def text(self) -> str:
        return self.doc.lines[self.index]

    @property
    def unknown(self) -> bool:
        """The line's number in the file is not known (the gutter shows `?`)."""
        return self.doc.first is None


@dataclass(frozen=True, slots=True)
class SplitRow:
    left: LineRow | None
    right: LineRow | None


@dataclass(frozen=True, slots=True)
class FileHeaderRow:
    file: FileDiff


@dataclass(frozen=True, slots=True)
class FoldRow:
    fold: Fold
    file: FileDiff = field(repr=False)


@dataclass(frozen=True, slots=True)
class GapRow:
    """Between two items of one file; `between` lines lie between them, None when unknown."""

    file: FileDiff = field(repr=False)
    between: int | None = None


Row: TypeAlias = LineRow | SplitRow | FileHeaderRow | FoldRow | GapRow


def _equal_row(block: Equal, k: int, split: bool) -> Row:
    """An unchanged line. Both halves of the split view read it from the new doc: the text
    is the same, and the old doc then only needs highlighting where lines were removed."""
    i, j = block.old_start + k, block.new_start + k
    old_no, new_no = block.old.number(i), block.new.number(j)
    if split:
        return SplitRow(
            LineRow("context", old_no, None, block.new, j),
            LineRow("context", None, new_no, block.new, j),
        )
    return LineRow("context", old_no, new_no, block.new, j)


def _change_line(block: Change, new_side: bool, rel: int) -> LineRow:
    changes = block.changes_of(new_side, rel)
    if new_side:
        j = block.new_start + rel
        return LineRow("added", None, block.new.number(j), block.new, j, changes)
    i = block.old_start + rel
    return LineRow("removed", block.old.number(i), None, block.old, i, changes)


def _change_row(block: Change, k: int, split: bool) -> Row:
    if split:
        left, right = block.split_row(k)
        return SplitRow(
            None if left is None else _change_line(block, False, left),
            None if right is None else _change_line(block, True, right),
        )
    if k < block.old_count:
        return _change_line(block, False, k)
    return _change_line(block, True, k - block.old_count)


class RowLayout:
    """The rows of a model for one view (unified or split) and one set of expanded folds.

    Holds only one entry per block; `row(y)` builds the row when the widget draws it.
    """

    def __init__(self, model: DiffModel, *, split: bool, expanded: frozenset[int]) -> None:
        self.model = model
        self.split = split
        self.expanded = expanded
        self._starts: list[int] = []
        self._entries: list[tuple[FileDiff, Block | None]] = []  # None: the file header
        self.change_starts: list[int] = []
        self.header_starts: list[int] = []
        y = 0
        for file in model.files:
            self.header_starts.append(y)
            y = self._add(y, file, None)
            for block in file.blocks:
                if isinstance(block, Fold) and block.fold_id in expanded:
                    y = self._add(y, file, block.equal)
                else:
                    if isinstance(block, Change):
                        self.change_starts.append(y)
                    y = self._add(y, file, block)
        self.height = y

    def _add(self, y: int, file: FileDiff, block: Block | None) -> int:
        count = self._count(block)
        if count:
            self._starts.append(y)
            self._entries.append((file, block))
        return y + count

    def _count(self, block: Block | None) -> int:
        if isinstance(block, Equal):
            return block.count
        if isinstance(block, Change):
            if self.split:
                return block.split_count
            return block.old_count + block.new_count
        return 1

    def row(self, y: int) -> Row:
        """The row at `y` (0 <= y < height), built now."""
        if not 0 <= y < self.height:
            raise IndexError(y)
        n = bisect_right(self._starts, y) - 1
        file, block = self._entries[n]
        k = y - self._starts[n]
        if block is None:
            return FileHeaderRow(file)
        if isinstance(block, Equal):
            return _equal_row(block, k, self.split)
        if isinstance(block, Change):
            return _change_row(block, k, self.split)
        if isinstance(block, Fold):
            return FoldRow(block, file)
        return GapRow(file, block.between)

    def file_at(self, y: int) -> tuple[int, FileDiff]:
        """The header row index and file that row `y` belongs to (for a sticky header)."""
        n = bisect_right(self.header_starts, y) - 1
        return self.header_starts[max(n, 0)], self.model.files[max(n, 0)]

    def rows(self, start: int = 0, end: int | None = None) -> list[Row]:
        """A slice of rows (tests and text rendering)."""
        stop = self.height if end is None else min(end, self.height)
        return [self.row(y) for y in range(max(start, 0), stop)]
