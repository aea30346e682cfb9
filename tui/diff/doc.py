"""One side of a diff item (`Doc`): its display lines, their file numbers and their colours.

Highlighting is done per block of lines on first use and cached on the `Doc`, so a 10,000-line
file costs a handful of lexer runs for the rows actually drawn. Lexing takes milliseconds a
block: the panel does it in a worker thread and reads it on the event loop (`cached_spans`).
Pygments is imported late: loading its lexer table is slow, and dsh-tui should not pay for it
at start.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import TypeAlias

__all__ = ["HIGHLIGHT_BLOCK", "Doc", "TokenSpans", "resolve_language"]

HIGHLIGHT_BLOCK = 32
HIGHLIGHT_LEAD = 16
"""Lines lexed before a block so the lexer has some state (a block never starts blind)."""
MAX_HIGHLIGHT_CHARS = 12_000
"""Blocks with more text stay plain: lexing runs on the event loop when scrolling (~2 µs a
character for Python), so this bounds one block to ~25 ms."""

TokenSpans: TypeAlias = tuple[tuple[int, int, tuple[str, ...]], ...]
"""Per line: (start, end, Pygments token type as a tuple such as ("Keyword", "Constant"))."""

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
