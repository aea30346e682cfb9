"""`@` completion: workspace paths, fuzzy-matched to the word being typed after `@`.

The menu never reads keys or the prompt itself, so the prompt stays the one owner of its
keys: the prompt tells it the text and the cursor (`follow`), routes Up and Down to `move`
while `is_open`, and on Tab or Enter asks `take` for the completed text, which the menu also
posts as `MentionMenu.Chosen`. `follow_text_area` and `apply_to_text_area` do the TextArea
side of that in one call each.

The workspace index is built in a thread (`tui.prompt.mentions.index`) when the first `@` is typed,
not at start-up: dsh-tui may be started in a home directory of a million files, and a walk
that nobody asked for would take CPU from the first frames. Until it is ready, an open menu
says "indexing…" (a 50,000-file tree takes about a quarter of a second). A later `@` after
`REINDEX_AFTER_S` rebuilds it in the background, so files created since show up, while the
old index keeps answering.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.message import Message
from textual.widgets import Static, TextArea
from textual.worker import Worker

from tui.prompt.mentions.fuzzy import FuzzyMatcher, Match
from tui.prompt.mentions.index import PathIndex, build_index
from tui.prompt.mentions.parse import MentionQuery, complete, mention_at

MAX_SHOWN = 8
REINDEX_AFTER_S = 30.0
INDEXING = "indexing…"

IndexBuilder = Callable[[Path], PathIndex]

log = logging.getLogger(__name__)


class MentionMenu(Static):
    """Shown above the prompt while the word under the cursor starts with `@`."""

    DEFAULT_CSS = """
    MentionMenu {
        height: auto;
        margin: 0 2;
        padding: 0 1;
        background: $boost;
        display: none;
    }
    MentionMenu.-visible { display: block; }
    """

    class Chosen(Message):
        """A path was taken: `text` is the prompt with it inserted, `cursor` the offset after
        its trailing space."""

        def __init__(self, menu: MentionMenu, text: str, cursor: int, path: str) -> None:
            super().__init__()
            self.menu = menu
            self.text = text
            self.cursor = cursor
            self.path = path

        @property
        def control(self) -> MentionMenu:
            return self.menu

    def __init__(
        self,
        workspace: str | Path,
        *,
        builder: IndexBuilder = build_index,
        clock: Callable[[], float] = time.monotonic,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.workspace = Path(workspace)
        self._builder = builder
        self._clock = clock
        self._matcher: FuzzyMatcher | None = None
        self._built_at = float("-inf")
        self._indexing: Worker[None] | None = None
        self._failure: str | None = None
        self._text = ""
        self._at: MentionQuery | None = None
        self._matches: list[Match] = []
        self.highlighted = 0

    # --- what the prompt calls ----------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """Whether there is a path to take (Up, Down, Tab and Enter belong to the menu)."""
        return self._at is not None and bool(self._matches)

    @property
    def is_indexing(self) -> bool:
        return self._indexing is not None and not self._indexing.is_finished

    def follow(self, text: str, cursor: int) -> None:
        """The prompt's text and cursor offset changed: show the matches for the mention
        under the cursor, or hide."""
        at = mention_at(text, cursor)
        if at == self._at and text == self._text:
            return  # a cursor move inside the same word, or the second of Changed/Selection
        opening = at is not None and self._at is None
        self.highlighted = 0
        self._text, self._at = text, at
        if opening and self._clock() - self._built_at > REINDEX_AFTER_S:
            self.reindex()
        self._search()

    def move(self, delta: int) -> None:
        """Move the highlight, wrapping round at either end."""
        if self._matches:
            self.highlighted = (self.highlighted + delta) % len(self._matches)
            self._render_menu()

    def take(self) -> tuple[str, int] | None:
        """The prompt text with the highlighted path put in place of the mention, and the
        cursor after it; None when there is nothing to take. Also posts `Chosen`."""
        at = self._at
        if at is None or not self._matches:
            return None
        path = self._matches[self.highlighted].path
        text, cursor = complete(self._text, at, path)
        self.post_message(self.Chosen(self, text, cursor, path))
        self.follow(text, cursor)
        return text, cursor

    def reindex(self) -> None:
        """Rebuild the index in a thread (the menu keeps answering from the old one)."""
        if self.is_indexing:
            return
        self._indexing = self.run_worker(self._build(), group="mention-index")
        self._render_menu()

    # --- inside -----------------------------------------------------------------------------

    async def _build(self) -> None:
        started = self._clock()
        try:
            index = await asyncio.to_thread(self._builder, self.workspace)
            matcher = await asyncio.to_thread(FuzzyMatcher, index)
        except Exception as error:  # an unreadable workspace must not take the app down
            log.warning("cannot index %s: %s", self.workspace, error)
            self._failure = f"cannot list the workspace: {error}"
            self._render_menu()
            return
        self._matcher, self._failure = matcher, None
        self._built_at = started
        self._search()

    def _search(self) -> None:
        at = self._at
        self._matches = self._matcher.search(at.query) if at is not None and self._matcher else []
        self.highlighted = min(self.highlighted, max(len(self._matches) - 1, 0))
        self._render_menu()

    def _render_menu(self) -> None:
        at = self._at
        self.set_class(at is not None, "-visible")
        if at is None:
            return
        if self._matcher is None:
            self.update(Text(self._failure or INDEXING, style="dim italic"))
            return
        found = self._matches
        if not found:
            self.update(Text(f"no path matches {at.query!r}", style="dim"))
            return
        first = max(0, min(self.highlighted - MAX_SHOWN + 1, len(found) - MAX_SHOWN))
        text = Text()
        if first:
            text.append(f"… {first} more\n", style="dim")
        for index, match in enumerate(found[first : first + MAX_SHOWN], start=first):
            if index > first:
                text.append("\n")
            text.append_text(_row(match, chosen=index == self.highlighted))
        below = len(found) - first - MAX_SHOWN
        if below > 0:
            text.append(f"\n… {below} more", style="dim")
        self.update(text)


def _row(match: Match, *, chosen: bool) -> Text:
    """One path, its matched characters underlined; directories in the accent colour."""
    row = Text(match.path, style="bold blue" if match.is_dir else "")
    for position in match.positions:
        row.stylize("bold underline", position, position + 1)
    if chosen:
        row.stylize("reverse")
    return row


def follow_text_area(menu: MentionMenu, area: TextArea) -> None:
    """`menu.follow` with a TextArea's text and cursor (call on Changed and SelectionChanged)."""
    row, column = area.cursor_location
    lines = area.document.lines
    menu.follow("\n".join(lines), sum(len(line) + 1 for line in lines[:row]) + column)


def apply_to_text_area(area: TextArea, text: str, cursor: int) -> None:
    """Put a completion into a TextArea: its text, and the cursor after the inserted path."""
    area.text = text
    before = text[:cursor]
    row = before.count("\n")
    area.move_cursor((row, cursor - (before.rfind("\n") + 1)))


__all__ = [
    "INDEXING",
    "MAX_SHOWN",
    "REINDEX_AFTER_S",
    "MentionMenu",
    "apply_to_text_area",
    "follow_text_area",
]
