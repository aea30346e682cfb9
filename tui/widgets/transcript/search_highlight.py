"""The words a transcript search found, highlighted where they are drawn.

Entries are drawn by many widgets (Markdown blocks, cards, diffs, panes), none of which knows
about search, so the highlight is a line filter on what they draw: every occurrence of the
query on a drawn line of an entry with a match is painted, and the current match in a
distinct colour. Which drawn occurrence is the current one is told by the words around it,
since wrapping and Markdown change lines but keep words (`same_place`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter
from textual.widget import Widget

HIT_STYLE = Style(color="black", bgcolor="#d7af00")
CURRENT_STYLE = Style(color="black", bgcolor="#ff5f00", bold=True, underline=True)


@dataclass(frozen=True)
class Place:
    """The current match: the entry's text and the match's span in it."""

    text: str
    start: int
    end: int


def folded(query: str) -> tuple[str, bool]:
    """The needle and whether case counts (a capital makes it count, as the search does)."""
    smart_case = query != query.lower()
    return (query if smart_case else query.lower()), smart_case


def spans(line: str, query: str) -> list[tuple[int, int]]:
    """Where `query` occurs in `line`, with the search's case rule."""
    if not query:
        return []
    needle, smart_case = folded(query)
    haystack = line if smart_case else line.lower()
    if len(haystack) != len(line):
        haystack, needle = line, query
    found: list[tuple[int, int]] = []
    at = haystack.find(needle)
    while at >= 0:
        found.append((at, at + len(needle)))
        at = haystack.find(needle, at + len(needle))
    return found


def _words(text: str) -> list[str]:
    """The words of `text`, without borders and marks (words with no letter or digit)."""
    return [word for word in text.split() if any(ch.isalnum() for ch in word)]


def _glued_end(text: str) -> str:
    """The characters at the end of `text` with no space between them and what follows."""
    found = re.search(r"\S*\Z", text)
    return found.group(0) if found else ""


def _glued_start(text: str) -> str:
    found = re.match(r"\S*", text)
    return found.group(0) if found else ""


def same_place(line: str, start: int, end: int, place: Place) -> bool:
    """Whether the occurrence at `line[start:end]` is the one at `place`: the drawn words next
    to it (two on each side, within the drawn line) are those next to the match within its
    own line of the entry's text. A side with no drawn word (the line wrapped there) only
    counts when the other side has words, and they agree."""
    text = place.text
    line_start = text.rfind("\n", 0, place.start) + 1
    line_end = text.find("\n", place.end)
    before_source = text[line_start : place.start]
    after_source = text[place.end : len(text) if line_end < 0 else line_end]
    before_drawn, after_drawn = line[:start], line[end:].rstrip()
    glued = _glued_end(before_drawn), _glued_start(after_drawn)
    source_glued = _glued_end(before_source), _glued_start(after_source)
    if not source_glued[0].endswith(glued[0]) or not source_glued[1].startswith(glued[1]):
        return False
    # The words apart from the match (what is glued to it is the match's own word).
    drawn_before = _words(before_drawn[: len(before_drawn) - len(glued[0])])[-2:]
    source_before = _words(before_source[: len(before_source) - len(source_glued[0])])
    drawn_after = _words(after_drawn[len(glued[1]) :])[:2]
    source_after = _words(after_source[len(source_glued[1]) :])
    if drawn_before != source_before[len(source_before) - len(drawn_before) :]:
        return False
    if drawn_after != source_after[: len(drawn_after)]:
        return False
    if not drawn_before and source_before:
        return bool(drawn_after)
    if not drawn_after and source_after:
        return bool(drawn_before)
    return True


class Occurrences(LineFilter):
    """Paints the query's occurrences on each drawn line; the one at `place` as current."""

    def __init__(self, query: str, place: Place | None = None) -> None:
        super().__init__()
        self.query = query
        self.place = place

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        line = "".join(segment.text for segment in segments if not segment.control)
        found = spans(line, self.query)
        if not found:
            return segments
        styles = [
            CURRENT_STYLE
            if self.place is not None and same_place(line, start, end, self.place)
            else HIT_STYLE
            for start, end in found
        ]
        return paint(segments, found, styles)


def paint(
    segments: list[Segment], found: list[tuple[int, int]], styles: list[Style]
) -> list[Segment]:
    """`segments` with the characters of each span restyled (split where a span begins or
    ends inside a segment)."""
    result: list[Segment] = []
    position = 0
    index = 0
    for segment in segments:
        if segment.control:
            result.append(segment)
            continue
        text, style = segment.text, segment.style
        cursor = 0
        while cursor < len(text):
            at = position + cursor
            while index < len(found) and found[index][1] <= at:
                index += 1
            if index < len(found) and found[index][0] <= at:
                stop = min(len(text), found[index][1] - position)
                painted = styles[index] if style is None else style + styles[index]
                result.append(Segment(text[cursor:stop], painted))
            else:
                next_start = found[index][0] - position if index < len(found) else len(text)
                stop = min(len(text), next_start)
                result.append(Segment(text[cursor:stop], style))
            cursor = stop
        position += len(text)
    return result


def _filtered(widget: Widget, extra: LineFilter) -> list[LineFilter]:
    return [*type(widget).get_line_filters(widget), extra]


def mark(widget: Widget, occurrences: Occurrences) -> None:
    """Draw `widget` and everything in it with the occurrences painted."""
    for child in widget.walk_children(with_self=True):
        # Per widget: Textual asks each widget for its line filters as it draws it.
        setattr(child, "get_line_filters", lambda child=child: _filtered(child, occurrences))  # noqa: B010
        child.refresh()


def unmark(widget: Widget) -> None:
    for child in widget.walk_children(with_self=True):
        if "get_line_filters" in vars(child):
            delattr(child, "get_line_filters")
            child.refresh()
