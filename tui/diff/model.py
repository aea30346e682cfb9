"""The diff model: per file, a sequence of blocks (unchanged, changed, folded, separators).

Blocks hold indices into the two `Doc`s of their item, never copies of lines, and compute what
they can lazily (intraline ranges, the split view's row pairing) so a large diff costs what is
drawn of it. `tui.diff.diffing` builds the model; `tui.diff.rows` lays it out as rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from tui.diff.doc import Doc
from tui.diff.intraline import Ranges, intraline

__all__ = ["Block", "ChangedLines", "DiffModel", "Equal", "FileView", "Fold", "Separator"]


@dataclass(eq=False, slots=True)
class Equal:
    """A run of unchanged lines (both docs, same length)."""

    old: Doc
    new: Doc
    old_start: int
    new_start: int
    count: int


@dataclass(eq=False, slots=True)
class ChangedLines:
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


Block: TypeAlias = Equal | ChangedLines | Fold | Separator


@dataclass(eq=False, slots=True)
class FileView:
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
    files: tuple[FileView, ...]
    fold_count: int

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)
