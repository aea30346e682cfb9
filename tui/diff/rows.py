"""The rows of a diff model for one view (unified or split), built one at a time on demand.

`RowLayout` keeps one entry per block, so `row(y)` is a bisect and a small object: the panel
asks only for the rows it is about to draw, and a 10,000-line file never holds 10,000 rows.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from tui.diff.doc import Doc
from tui.diff.intraline import Ranges
from tui.diff.model import Block, ChangedLines, DiffModel, Equal, FileView, Fold

__all__ = [
    "FileHeaderRow",
    "FoldRow",
    "GapRow",
    "LineKind",
    "LineRow",
    "Row",
    "RowLayout",
    "SplitRow",
]

LineKind: TypeAlias = Literal["context", "added", "removed"]


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
    file: FileView


@dataclass(frozen=True, slots=True)
class FoldRow:
    fold: Fold
    file: FileView = field(repr=False)


@dataclass(frozen=True, slots=True)
class GapRow:
    """Between two items of one file; `between` lines lie between them, None when unknown."""

    file: FileView = field(repr=False)
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


def _changed_line(block: ChangedLines, new_side: bool, rel: int) -> LineRow:
    changes = block.changes_of(new_side, rel)
    if new_side:
        j = block.new_start + rel
        return LineRow("added", None, block.new.number(j), block.new, j, changes)
    i = block.old_start + rel
    return LineRow("removed", block.old.number(i), None, block.old, i, changes)


def _changed_row(block: ChangedLines, k: int, split: bool) -> Row:
    if split:
        left, right = block.split_row(k)
        return SplitRow(
            None if left is None else _changed_line(block, False, left),
            None if right is None else _changed_line(block, True, right),
        )
    if k < block.old_count:
        return _changed_line(block, False, k)
    return _changed_line(block, True, k - block.old_count)


class RowLayout:
    """The rows of a model for one view (unified or split) and one set of expanded folds.

    Holds only one entry per block; `row(y)` builds the row when the widget draws it.
    """

    def __init__(self, model: DiffModel, *, split: bool, expanded: frozenset[int]) -> None:
        self.model = model
        self.split = split
        self.expanded = expanded
        self._starts: list[int] = []
        self._entries: list[tuple[FileView, Block | None]] = []  # None: the file header
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
                    if isinstance(block, ChangedLines):
                        self.change_starts.append(y)
                    y = self._add(y, file, block)
        self.height = y

    def _add(self, y: int, file: FileView, block: Block | None) -> int:
        count = self._count(block)
        if count:
            self._starts.append(y)
            self._entries.append((file, block))
        return y + count

    def _count(self, block: Block | None) -> int:
        if isinstance(block, Equal):
            return block.count
        if isinstance(block, ChangedLines):
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
        if isinstance(block, ChangedLines):
            return _changed_row(block, k, self.split)
        if isinstance(block, Fold):
            return FoldRow(block, file)
        return GapRow(file, block.between)

    def file_at(self, y: int) -> tuple[int, FileView]:
        """The header row index and file that row `y` belongs to (for a sticky header)."""
        n = bisect_right(self.header_starts, y) - 1
        return self.header_starts[max(n, 0)], self.model.files[max(n, 0)]

    def rows(self, start: int = 0, end: int | None = None) -> list[Row]:
        """A slice of rows (tests and text rendering)."""
        stop = self.height if end is None else min(end, self.height)
        return [self.row(y) for y in range(max(start, 0), stop)]
