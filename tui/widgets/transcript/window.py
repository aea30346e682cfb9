"""The rows each transcript entry takes, measured or estimated, for the window of widgets.

Only the entries near the viewport are widgets (tui/widgets/transcript/conversation.py); the
others are rows of a spacer above or below them. A spacer is as tall as the entries it stands
for were when last laid out, or as the average entry of their kind when they never were, so
the scrollbar and the scroll position stay close to what mounting everything would give.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.state import Entry, MessageEntry, ToolCallEntry

# Rows guessed for an entry of a kind nothing has measured yet: a folded card is about this.
DEFAULT_ROWS = 3


def kind_of(entry: Entry) -> str:
    if isinstance(entry, ToolCallEntry):
        return "tool"
    if isinstance(entry, MessageEntry):
        return entry.role
    return "notice"


class Heights:
    """Rows per entry (by `id(entry)`) as last laid out, and a mean per kind for the rest."""

    def __init__(self) -> None:
        self._rows: dict[int, int] = {}
        self._sums: dict[str, tuple[int, int]] = {}  # kind -> (rows, entries measured)

    def record(self, entry: Entry, rows: int) -> None:
        key = id(entry)
        kind = kind_of(entry)
        total, count = self._sums.get(kind, (0, 0))
        old = self._rows.get(key)
        if old is None:
            self._sums[kind] = (total + rows, count + 1)
        else:
            self._sums[kind] = (total - old + rows, count)
        self._rows[key] = rows

    def estimate(self, entry: Entry) -> int:
        total, count = self._sums.get(kind_of(entry), (0, 0))
        return round(total / count) if count else DEFAULT_ROWS

    def of(self, entry: Entry) -> int:
        rows = self._rows.get(id(entry))
        return self.estimate(entry) if rows is None else rows

    def total(self, entries: Sequence[Entry]) -> int:
        return sum(self.of(entry) for entry in entries)

    def forget(self, entry: Entry) -> None:
        rows = self._rows.pop(id(entry), None)
        if rows is not None:
            kind = kind_of(entry)
            total, count = self._sums[kind]
            self._sums[kind] = (total - rows, count - 1)

    def clear(self) -> None:
        """Every measure is stale (the width changed): estimates until they are laid out."""
        self._rows.clear()
        self._sums.clear()


def count_filling(entries: Sequence[Entry], heights: Heights, rows: int, minimum: int) -> int:
    """How many entries from the end of `entries` fill `rows` (at least `minimum` of them)."""
    filled = 0
    count = 0
    for entry in reversed(entries):
        if filled >= rows and count >= minimum:
            break
        filled += heights.of(entry)
        count += 1
    return count


def count_filling_forward(
    entries: Sequence[Entry], heights: Heights, rows: int, minimum: int
) -> int:
    """How many entries from the start of `entries` fill `rows` (at least `minimum`)."""
    filled = 0
    count = 0
    for entry in entries:
        if filled >= rows and count >= minimum:
            break
        filled += heights.of(entry)
        count += 1
    return count
