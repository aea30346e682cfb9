"""The end-of-run summary of failed snapshots names the rows that differ, from real SVGs."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_textual_snapshot import individualize_svg
from rich.console import Console
from rich.text import Text

from snapshot_rows import differing_rows, failed_snapshot_lines, svg_rows


def screen(*rows: Text | str) -> str:
    """An SVG as Rich exports a screen, with the random id pytest-textual-snapshot adds."""
    console = Console(record=True, width=40, force_terminal=True, color_system="truecolor")
    for row in rows:
        console.print(row)
    return individualize_svg(console.export_svg(title="t"))


def test_rows_read_back_with_their_columns() -> None:
    rows = svg_rows(screen("first row", Text.assemble("  a ", ("b", "bold red"), "  c & <d>")))
    assert [rows[0].text, rows[1].text] == ["first row", "  a b  c & <d>"]


def test_changed_text_names_the_row_and_both_texts() -> None:
    expected = screen("same", "exit 0 · 0.0 s", "same too")
    actual = screen("same", "exit 0 · 0.1 s", "same too")
    assert differing_rows(expected, actual) == [
        "  row   1 expected: 'exit 0 · 0.0 s'",
        "          actual:   'exit 0 · 0.1 s'",
    ]


def test_a_style_change_alone_is_styles_only() -> None:
    expected = screen("header", Text("status", style="green"))
    actual = screen("header", Text("status", style="red"))
    assert differing_rows(expected, actual) == ["  row   1 styles only: 'status'"]


def test_a_background_change_is_seen() -> None:
    expected = screen(Text("x", style="on blue"))
    actual = screen(Text("x", style="on green"))
    assert differing_rows(expected, actual) == ["  row   0 styles only: 'x'"]


def test_identical_screens_have_no_rows() -> None:
    assert differing_rows(screen("a", "b"), screen("a", "b")) == []


def test_many_rows_are_cut_short() -> None:
    expected = screen(*(f"row {n}" for n in range(10)))
    actual = screen(*(f"row {n}!" for n in range(10)))
    lines = differing_rows(expected, actual, shown=2)
    assert lines[-1] == "  ... and 8 more rows"
    assert len(lines) == 5


@dataclass
class Diff:
    snapshot: str | None
    actual: str
    path: str
    test_name: str
    snapshot_exists: bool


def test_the_summary_names_each_failed_snapshot() -> None:
    changed = Diff(screen("a"), screen("b"), "/x/tests/test_demo.py", "test_demo[on]", True)
    new = Diff(None, screen("a"), "/x/tests/test_new.py", "test_new", False)
    assert failed_snapshot_lines([changed, new]) == [
        "test_demo.py::test_demo[on]: rows that differ",
        "  row   0 expected: 'a'",
        "          actual:   'b'",
        "test_new.py::test_new: no snapshot on disk yet",
    ]
