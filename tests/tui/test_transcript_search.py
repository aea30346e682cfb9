"""Search over the conversation's state: spans, case, order, stepping and snippets."""

from __future__ import annotations

from tui.state import MessageEntry, NoticeEntry
from tui.transcript.search import nearest, search, step


def entries() -> list[MessageEntry | NoticeEntry]:
    return [
        MessageEntry("user", "find the Needle"),
        MessageEntry("thought", "a needle, and needle again"),
        NoticeEntry("no match here"),
        MessageEntry("agent", "line one\nthe NEEDLE on line two\nline three"),
    ]


def test_lower_case_finds_any_case_in_order() -> None:
    results = search(entries(), "needle")
    assert [(m.entry, m.start) for m in results.matches] == [(0, 9), (1, 2), (1, 14), (3, 13)]


def test_a_capital_makes_the_case_count() -> None:
    assert [m.entry for m in search(entries(), "NEEDLE").matches] == [3]
    assert search(entries(), "").matches == ()
    assert search(entries(), "absent").matches == ()


def test_stepping_wraps_both_ways() -> None:
    assert step(None, 3, 1) == 0
    assert step(None, 3, -1) == 2
    assert step(2, 3, 1) == 0
    assert step(0, 3, -1) == 2
    assert step(None, 0, 1) is None


def test_the_nearest_match_is_at_or_after_where_the_user_is() -> None:
    results = search(entries(), "needle")
    assert nearest(results, 2) == 3
    assert nearest(results, 0) == 0
    assert nearest(search(entries(), "Needle"), 3) == 0  # none after: the last one


def test_the_snippet_is_the_matching_line_with_its_span() -> None:
    results = search(entries(), "needle")
    line, start, end = results.snippet(3)
    assert line == "the NEEDLE on line two"
    assert line[start:end] == "NEEDLE"
