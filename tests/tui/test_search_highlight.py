"""The search's highlight on drawn lines: every occurrence painted, the current one told
apart by the words around it, as drawn (borders, wrapping and Markdown marks aside)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color

from tui.widgets.transcript.search_highlight import (
    CURRENT_STYLE,
    HIT_STYLE,
    Occurrences,
    Place,
    same_place,
    spans,
)

CARD = "Run echo\n```console\n$ echo COPIED-OUTPUT\nCOPIED-OUTPUT\n```"


def at(text: str, word: str, nth: int = 0) -> Place:
    start = -1
    for _ in range(nth + 1):
        start = text.find(word, start + 1)
    return Place(text, start, start + len(word))


def current_on(line: str, query: str, place: Place) -> list[bool]:
    return [same_place(line, start, end, place) for start, end in spans(line, query)]


def test_the_current_occurrence_is_told_by_its_neighbours_within_its_line() -> None:
    first, second = at(CARD, "COPIED", 0), at(CARD, "COPIED", 1)
    echo_line = "│   $ echo COPIED-OUTPUT                  │"
    alone_line = "│   COPIED-OUTPUT                         │"
    assert current_on(echo_line, "COPIED", first) == [True]
    assert current_on(alone_line, "COPIED", first) == [False]
    assert current_on(echo_line, "COPIED", second) == [False]
    assert current_on(alone_line, "COPIED", second) == [True]


def test_wrapping_and_markdown_marks_keep_the_place() -> None:
    text = "a long reply that says **needle** here and then needle again at the end"
    bold = at(text, "needle", 0)
    assert current_on(" needle here and then needle again", "needle", bold) == [True, False]
    assert current_on(" says needle", "needle", bold) == [True]  # wrapped after it
    assert current_on(" says needle", "needle", at(text, "needle", 1)) == [False]


def test_the_filter_paints_each_occurrence_and_the_current_apart() -> None:
    text = "find the needle, a NEEDLE and a needle"
    segments = [Segment("find the nee", Style(bold=True)), Segment("dle, a NEEDLE and a needle")]
    painted = Occurrences("needle", at(text, "needle", 1)).apply(segments, Color(0, 0, 0))
    assert "".join(s.text for s in painted) == text
    styled = [(s.text, s.style) for s in painted if s.style and s.style.bgcolor]
    assert [t for t, _ in styled] == ["nee", "dle", "NEEDLE", "needle"]
    assert styled[0][1] == Style(bold=True) + HIT_STYLE and styled[2][1] == HIT_STYLE
    assert styled[3][1] == CURRENT_STYLE
    assert Occurrences("absent").apply(segments, Color(0, 0, 0)) is segments
