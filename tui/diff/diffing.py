"""Line diffs of ACP `diff` content, built into the model the diff panel draws.

Pure Python (no Textual), so it runs in a worker thread and is unit-tested on its own. The
pieces: `tui.diff.text` (display lines), `tui.diff.doc` (one side and its highlighting),
`tui.diff.intraline` (word changes), `tui.diff.model` (blocks), `tui.diff.rows` (rows on demand).

The line diff is `dsh_common.linediff` (prefix/suffix trimming, unique-line anchoring and
bounded Myers), shared with dsh-agent's hunks; it stays fast where `difflib.SequenceMatcher`
without autojunk goes quadratic on repeated lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dsh_common.linediff import Opcode, line_opcodes
from tui.diff.doc import Doc, resolve_language
from tui.diff.intraline import pair_lines
from tui.diff.model import Block, ChangedLines, DiffModel, Equal, FileView, Fold, Separator
from tui.diff.rows import LineRow, RowLayout, SplitRow
from tui.diff.text import eol_note, prepare_text

__all__ = ["CONTEXT", "MIN_FOLD", "DiffContent", "build_diff", "build_model"]

CONTEXT = 3
"""Unchanged lines kept visible on each side of a change."""
MIN_FOLD = 4
"""Shorter unchanged runs are shown in full: a fold row would save almost nothing."""


@dataclass(frozen=True, slots=True)
class DiffContent:
    """One ACP diff content item. `old_text` is None for a new file and may be a snippet.

    `old_line` / `new_line` are the 1-based lines where the item starts in the file before
    and after the edit, when something told us (`_meta["dsh.line"]`, an anchor found on disk,
    a location: see `tui.diff.line_numbers`). Without them a snippet is shown without numbers: a
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
    ops: list[Opcode] = []
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
            pairs = pair_lines(old.lines[i1:i2], new.lines[j1:j2])
            blocks.append(ChangedLines(old, new, i1, i2 - i1, j1, j2 - j1, pairs))
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


def build_diff(items: Sequence[DiffContent]) -> DiffModel:
    """Diff every item and group the items by path (first appearance order, items in order).

    May take tens of milliseconds on large inputs (and longer on the first call, when Pygments
    loads): the widget runs it in a thread.
    """
    groups: dict[str, list[DiffContent]] = {}
    for item in items:
        groups.setdefault(item.path, []).append(item)
    ids = _FoldIds()
    files: list[FileView] = []
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
        note = eol_note(old_eols, new_eols)
        files.append(
            FileView(
                path=path,
                new_file=all(i.old_text is None for i in group),
                added=added,
                removed=removed,
                blocks=tuple(blocks),
                language=language,
                number_width=len(str(max(longest, 1))),
                max_width=widest,
                eol_note=note,
                unnumbered=not all(i.numbered for i in group),
            )
        )
    return DiffModel(tuple(files), ids.next)


def build_model(items: Sequence[DiffContent], split: bool = False, rows: int = 50) -> DiffModel:
    """`build_diff`, then highlight the first `rows` rows: what the first paint shows.

    The panel runs it in a worker thread, so the first screen is drawn in colour at once.
    """
    model = build_diff(items)
    for row in RowLayout(model, split=split, expanded=frozenset()).rows(0, rows):
        lines = [row.left, row.right] if isinstance(row, SplitRow) else [row]
        for line in lines:
            if isinstance(line, LineRow):
                line.doc.spans(line.index)
    return model


def _file_order(group: list[DiffContent]) -> list[DiffContent]:
    """Items of one path in file order when their positions are known (an agent may send a
    file's hunks in any order); those without a position follow, in the order they came."""
    known: list[tuple[tuple[int, int], int, DiffContent]] = []
    rest: list[DiffContent] = []
    for n, item in enumerate(group):
        starts = item.starts
        if starts is not None and item.old_text is not None:
            known.append((starts, n, item))
        else:
            rest.append(item)
    return [item for _, _, item in sorted(known)] + rest
