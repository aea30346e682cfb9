"""Search through the transcript: every place a query occurs, in order, over the state.

Pure Python over the conversation's entries (the text `tui.transcript.text` gives each), so
what it finds does not depend on what is on screen: pruned entries, folded cards and closed
thoughts are searched too, and the view opens them to show a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tui.state import Entry
from tui.transcript.text import RunLookup, entry_text, no_runs

MAX_MATCHES = 10_000


@dataclass(frozen=True)
class Match:
    """One occurrence: the entry's index in the conversation and the span in its text."""

    entry: int
    start: int
    end: int


@dataclass(frozen=True)
class Results:
    query: str
    matches: tuple[Match, ...]
    texts: dict[int, str]  # the text searched, by entry index (for snippets)

    def snippet(self, index: int, width: int = 60) -> tuple[str, int, int]:
        """The line around match `index`, at most `width` long, with the match's span in it."""
        match = self.matches[index]
        text = self.texts[match.entry]
        line_start = text.rfind("\n", 0, match.start) + 1
        line_end = text.find("\n", match.end)
        line_end = len(text) if line_end < 0 else line_end
        start = max(line_start, match.start - max(0, (width - (match.end - match.start)) // 2))
        end = min(line_end, start + width)
        shown = text[start:end]
        return shown, match.start - start, min(len(shown), match.end - start)


def search(entries: Sequence[Entry], query: str, runs: RunLookup = no_runs) -> Results:
    """Every occurrence of `query` (case folded when it is all lower case, as editors do)."""
    if not query:
        return Results(query, (), {})
    smart_case = query != query.lower()
    needle = query if smart_case else query.lower()
    matches: list[Match] = []
    texts: dict[int, str] = {}
    for index, entry in enumerate(entries):
        text = entry_text(entry, runs)
        haystack = text if smart_case else text.lower()
        if len(haystack) != len(text):  # a fold that changes lengths: spans would be off
            haystack, needle_here = text, query
        else:
            needle_here = needle
        at = haystack.find(needle_here)
        while at >= 0 and len(matches) < MAX_MATCHES:
            matches.append(Match(index, at, at + len(needle_here)))
            at = haystack.find(needle_here, at + max(1, len(needle_here)))
        if at >= 0 or (matches and matches[-1].entry == index):
            texts[index] = text
    return Results(query, tuple(matches), texts)


def step(current: int | None, count: int, direction: int) -> int | None:
    """The match after (or before) `current`, wrapping around; None when there is none."""
    if count == 0:
        return None
    if current is None:
        return 0 if direction > 0 else count - 1
    return (current + direction) % count


def nearest(results: Results, entry_index: int) -> int | None:
    """The first match at or after an entry (where the user is looking), else the last."""
    for number, match in enumerate(results.matches):
        if match.entry >= entry_index:
            return number
    return len(results.matches) - 1 if results.matches else None
