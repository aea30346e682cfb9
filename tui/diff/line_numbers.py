"""Where a diff block sits in its file: true line numbers for any agent's diffs, or none.

ACP's `diff` content has no start line, and most agents send `old_string`/`new_string`
snippets, so counting a snippet from 1 gives numbers that look right and are wrong. A block is
numbered by the first rule that applies:

1. its `_meta["dsh.line"]` start lines (dsh-agent sends them), unless the file at hand holds
   the snippet exactly once somewhere else: then the block has no numbers (and a log line);
2. a unique anchor in the file on disk: `oldText` found exactly once before the edit is
   applied (a pending permission question), `newText` found exactly once after it (a
   completed call). The file is read with `tui.fs.ConfinedFs`, the code that serves
   `fs/read_text_file`, over the same roots (the workspace and every `--allow-dir`), so a path
   outside them is never read; each file is read once per card and phase, then cached;
3. `locations[].line` for that path, when there is exactly one location and one block;
4. otherwise no numbers at all (`DiffContent.starts` is None and the gutter says `?`).

A call from a loaded session's history or from a replay is numbered by rules 1 and 3 only
(`NoFiles`): the file on disk today is not the one that call saw, and a replay reads nothing.

A whole new file (`oldText` null) is numbered from 1 by `tui.diff.diffing` itself. Pure Python, no
Textual: the diff panel calls `Anchoring.resolve` in its build thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from tui.diff.diffing import DiffContent

log = logging.getLogger(__name__)

__all__ = [
    "ANCHOR_MAX_BYTES",
    "LINE_META_KEY",
    "Anchoring",
    "NoFiles",
    "Phase",
    "WorkspaceFiles",
    "anchor_line",
    "card_phase",
    "diff_items",
    "meta_lines",
    "roots_of",
]

LINE_META_KEY = "dsh.line"
"""The `_meta` key of a `diff` block with its start lines: `{"old": N, "new": M}`."""
ANCHOR_MAX_BYTES = 8 * 1024 * 1024
"""Larger files are not read for anchoring: their blocks go without numbers."""

Phase = Literal["before", "after", "unsure"]
"""Whether the edit is not yet applied (a permission question is open: find `oldText`),
applied (the call completed: find `newText`), or not known (running, failed): then `oldText`
counts only when `newText` is nowhere in the file, which an applied edit would have put there.
"""


def _positive(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def meta_lines(meta: object) -> tuple[int, int] | None:
    """The (old, new) start lines of a `diff` block's `_meta`, if well formed."""
    if not isinstance(meta, dict):
        return None
    lines = meta.get(LINE_META_KEY)
    if not isinstance(lines, dict):
        return None
    old, new = _positive(lines.get("old")), _positive(lines.get("new"))
    return None if old is None or new is None else (old, new)


def diff_items(content: Iterable[Any]) -> list[DiffContent]:
    """The `diff` blocks of a card's (or a permission request's) content, with the start lines
    their `_meta` gives (rule 1). Every place that shows a diff builds its items here."""
    from acp.schema import FileEditToolCallContent  # imported late: not needed at startup

    items: list[DiffContent] = []
    for block in content:
        if isinstance(block, FileEditToolCallContent):
            lines = None if block.old_text is None else meta_lines(block.field_meta)
            old, new = lines if lines is not None else (None, None)
            items.append(DiffContent(block.path, block.old_text, block.new_text, old, new))
    return items


def card_phase(status: str, permission_asked: bool = False) -> Phase:
    """The phase of a card's edit: applied once completed; not yet applied when a permission
    question was asked for it (agents ask before they act); else not known."""
    if status == "completed":
        return "after"
    return "before" if permission_asked else "unsure"


def roots_of(app: object, cwd: Path) -> tuple[Path, ...]:
    """The directories the client's fs serves: the workspace and the app's `--allow-dir`s."""
    config = getattr(app, "config", None)
    extra = getattr(config, "allow_dirs", ())
    return (cwd, *(Path(p) for p in extra if isinstance(p, (str, Path))))


class WorkspaceFiles:
    """Files read for anchoring, through `ConfinedFs` over the client's roots, each once.

    A refused path (outside the roots, relative, missing, a directory, too large) reads as
    None and is not asked again. Thread-safe: panels resolve in worker threads.
    """

    def __init__(self, roots: Sequence[Path], max_bytes: int = ANCHOR_MAX_BYTES) -> None:
        from tui.fs import ConfinedFs

        self._fs = ConfinedFs(roots, max_read_bytes=max_bytes)
        self._texts: dict[str, str | None] = {}
        self._lock = threading.Lock()

    def cached(self, path: str) -> bool:
        return path in self._texts

    def read(self, path: str) -> str | None:
        with self._lock:
            if path in self._texts:
                return self._texts[path]
        from tui.fs import FsError

        text: str | None
        try:
            self._fs.resolve(path)  # refuse before touching the file at all
            text = self._fs.read_text(path)
        except (FsError, OSError, ValueError):
            text = None
        with self._lock:
            self._texts[path] = text
        return text


class NoFiles(WorkspaceFiles):
    """No file is read: blocks are placed only by what the wire carries (history, replay)."""

    def __init__(self) -> None:
        super().__init__(())

    def cached(self, path: str) -> bool:
        return True

    def read(self, path: str) -> str | None:
        return None


def _find(text: str, snippet: str) -> tuple[int, int]:
    """(occurrences, offset of the first) of `snippet` in `text`, trying CRLF line ends for an
    LF snippet in a CRLF file, as agents' edit tools do."""
    count = text.count(snippet)
    if count == 0 and "\r\n" in text and "\n" in snippet and "\r\n" not in snippet:
        snippet = snippet.replace("\n", "\r\n")
        count = text.count(snippet)
    return count, (text.find(snippet) if count else -1)


def anchor_line(text: str, snippet: str) -> int | None:
    """The 1-based line `snippet` starts on when it occurs exactly once in `text`."""
    if not snippet.strip():
        return None  # blank text matches anywhere that is blank: no anchor
    count, offset = _find(text, snippet)
    if count != 1:
        return None
    return text.count("\n", 0, offset) + 1


def _anchor(item: DiffContent, text: str, phase: Phase) -> tuple[int, int] | None:
    """(old, new) start lines of one item found in the file as it is in `phase`."""
    assert item.old_text is not None
    if phase == "after":
        line = anchor_line(text, item.new_text)
        return None if line is None else (line, line)
    if phase == "unsure" and item.new_text.strip() and _find(text, item.new_text)[0]:
        return None  # `newText` is there: the edit may be applied already
    line = anchor_line(text, item.old_text)
    return None if line is None else (line, line)


def _agrees(item: DiffContent, text: str, phase: Phase) -> bool:
    """Whether a block's `_meta` start lines fit the file at hand: false only when the file
    holds the snippet exactly once, on another line (logged)."""
    assert item.old_line is not None and item.new_line is not None
    old = anchor_line(text, item.old_text or "") if phase != "after" else None
    new = anchor_line(text, item.new_text) if phase != "before" else None
    if (old is None and new is None) or old == item.old_line or new == item.new_line:
        return True
    log.warning(
        "%r: the agent's start lines (old %d, new %d) disagree with the file, where the "
        "snippet is on line %d; the block is shown without numbers",
        item.path,
        item.old_line,
        item.new_line,
        old if old is not None else new,
    )
    return False


@dataclass(frozen=True, eq=False)
class Anchoring:
    """How a card's diff blocks without `_meta` lines get numbered (rules 2 and 3).

    `files` is the card's cache: one per card and phase, so a file is read once before the
    edit and once after it. Compared by identity (a new phase is a new `Anchoring`).
    """

    phase: Phase
    files: WorkspaceFiles
    locations: tuple[tuple[str, int | None], ...] = ()
    _memo: dict[tuple[DiffContent, ...], tuple[DiffContent, ...]] = field(default_factory=dict)

    def resolve(
        self, items: Sequence[DiffContent], *, io: bool = True
    ) -> tuple[DiffContent, ...] | None:
        """The items with every start line that can be known; None when that needs a file read
        and `io` is False (the panel then resolves in its build thread)."""
        key = tuple(items)
        found = self._memo.get(key)
        if found is not None:
            return found
        wanted = [item for item in key if item.old_text is not None]
        if not io and any(not self.files.cached(item.path) for item in wanted):
            return None
        starts: dict[int, tuple[int, int]] = {}
        doubted: set[int] = set()
        for n, item in enumerate(key):
            if item.old_text is None:
                continue
            text = self.files.read(item.path)
            if text is None:
                continue
            if item.numbered:
                if not _agrees(item, text, self.phase):
                    doubted.add(n)
                continue
            found_at = _anchor(item, text, self.phase)
            if found_at is not None:
                starts[n] = found_at
        starts = _shift(key, starts, self.phase, doubted)
        if len(key) == 1 and 0 not in starts and not key[0].numbered:
            line = self._location_line(key[0].path)
            if line is not None:
                starts[0] = (line, line)
        result = tuple(
            replace(item, old_line=starts[n][0], new_line=starts[n][1])
            if n in starts
            else replace(item, old_line=None, new_line=None)
            if n in doubted
            else item
            for n, item in enumerate(key)
        )
        self._memo[key] = result
        return result

    def _location_line(self, path: str) -> int | None:
        """Rule 3: the line of the card's only location, when it names this path."""
        if len(self.locations) != 1:
            return None
        where, line = self.locations[0]
        return line if where == path and line is not None and line >= 1 else None


def _shift(
    items: tuple[DiffContent, ...],
    starts: dict[int, tuple[int, int]],
    phase: Phase,
    doubted: set[int] | frozenset[int] = frozenset(),
) -> dict[int, tuple[int, int]]:
    """Correct the other side's start for blocks of one file that lie below other blocks.

    An anchor gives a block's line on one side only (the file as it is now); each block above
    it in the same file moves the other side by its change in line count. Unknown blocks of
    the same path make that correction unknowable, so those files keep the anchor side only
    when the file has a single block.
    """
    by_path: dict[str, list[int]] = {}
    for n, item in enumerate(items):
        by_path.setdefault(item.path, []).append(n)
    shifted = dict(starts)
    for indexes in by_path.values():
        if len(indexes) == 1:
            continue
        if any(n not in starts for n in indexes if not items[n].numbered or n in doubted):
            for n in indexes:
                shifted.pop(n, None)  # a block we cannot place could sit above any other
            continue
        placed = sorted((starts[n][0], n) for n in indexes if n in starts)
        delta = 0
        for line, n in placed:
            item = items[n]
            old_count = len((item.old_text or "").splitlines())
            new_count = len(item.new_text.splitlines())
            if phase == "after":  # anchored in the new file: the old side moves back
                shifted[n] = (line - delta, line)
            else:
                shifted[n] = (line, line + delta)
            delta += new_count - old_count
    return shifted
