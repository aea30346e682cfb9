"""The diff model outside Textual: line diff, folding, grouping, CRLF, safe text, intraline."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.tools.hunks import compute_hunks
from tui.diff.diffing import CONTEXT, MIN_FOLD, DiffContent, build_diff
from tui.diff.doc import Doc, resolve_language
from tui.diff.intraline import intraline, pair_lines
from tui.diff.model import ChangedLines
from tui.diff.rows import FileHeaderRow, FoldRow, GapRow, LineRow, Row, RowLayout, SplitRow
from tui.diff.text import (
    MAX_LINE_CHARS,
    TAB_SIZE,
    display_line,
    prepare_text,
    relative_path,
    split_text,
)


def whole(path: str, old: str | None, new: str) -> DiffContent:
    """A diff of two whole texts, so numbered from line 1 on both sides (a snippet whose
    place is unknown would show `?`: see the numbering tests)."""
    return DiffContent(path, old, new, None if old is None else 1, None if old is None else 1)


def lines(n: int, prefix: str = "line") -> list[str]:
    return [f"{prefix} {i}" for i in range(1, n + 1)]


def text(rows: list[str]) -> str:
    return "".join(row + "\n" for row in rows)


def unified(items: list[DiffContent], expand_all: bool = False) -> list[Row]:
    model = build_diff(items)
    expanded = frozenset(range(model.fold_count)) if expand_all else frozenset()
    return RowLayout(model, split=False, expanded=expanded).rows()


def line_rows(rows: list[Row]) -> list[tuple[str, int | None, int | None, str]]:
    return [(r.kind, r.old_no, r.new_no, r.text) for r in rows if isinstance(r, LineRow)]


# -- text preparation ------------------------------------------------------------------------


def test_split_text_drops_the_cr_of_crlf_and_reports_the_style() -> None:
    assert split_text("a\r\nb\r\n") == (["a", "b"], "CRLF")
    assert split_text("a\nb\n") == (["a", "b"], "LF")
    assert split_text("a\r\nb\n") == (["a", "b"], "mixed")
    assert split_text("a\r\nb") == (["a", "b"], "CRLF")
    assert split_text("one line") == (["one line"], "")
    assert split_text("") == ([], "")
    # A CR that does not end a line is content, shown as a symbol by display_line.
    assert split_text("a\rb\n") == (["a\rb"], "LF")


def test_display_line_shows_controls_as_symbols_and_never_emits_them() -> None:
    shown = display_line("x\x1b[31m\x07\x00\x7f\x9b\r")
    assert shown == "x\u241b[31m\u2407\u2400\u2421\ufffd\u240d"
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in shown)


def test_display_line_neutralizes_bidi_overrides_and_lone_surrogates() -> None:
    shown = display_line("admin\u202e\u2066 ok \udcff")
    assert shown == "admin\ufffd\ufffd ok \ufffd"
    shown.encode("utf-8")  # a lone surrogate would raise here, and in the terminal driver


def test_display_line_expands_tabs_to_tab_stops() -> None:
    assert display_line("\tx") == " " * TAB_SIZE + "x"
    assert display_line("ab\tx") == "ab" + " " * (TAB_SIZE - 2) + "x"
    assert display_line("clean line") == "clean line"


def test_display_line_cuts_very_long_lines() -> None:
    shown = display_line("x" * (MAX_LINE_CHARS + 10))
    assert shown.startswith("x" * MAX_LINE_CHARS)
    assert shown.endswith("(+10 chars)")


def test_prepare_text_fast_path_keeps_lines_and_measures_width() -> None:
    raw, display, eol, widest = prepare_text("ab\nabcd\n")
    assert raw == display == ["ab", "abcd"]
    assert (eol, widest) == ("LF", 4)
    raw, display, eol, widest = prepare_text("a\tb\r\n\u6f22\u5b57\r\n")
    assert raw == ["a\tb", "\u6f22\u5b57"]
    assert display == ["a   b", "\u6f22\u5b57"]
    assert (eol, widest) == ("CRLF", 5)


def test_relative_path_is_relative_inside_the_cwd_and_one_safe_line() -> None:
    cwd = Path("/project")
    assert relative_path("/project/src/a.py", cwd) == "src/a.py"
    assert relative_path("/elsewhere/a.py", cwd) == "/elsewhere/a.py"
    assert relative_path("/project/evil\x1b]0;x\x07\n.py", cwd) == "evil .py"


# -- line diff -------------------------------------------------------------------------------


def test_new_file_is_all_added_with_new_line_numbers() -> None:
    model = build_diff([whole("/p/new.py", None, "a = 1\nb = 2\n")])
    (file,) = model.files
    assert (file.new_file, file.added, file.removed) == (True, 2, 0)
    rows = unified([whole("/p/new.py", None, "a = 1\nb = 2\n")])
    assert isinstance(rows[0], FileHeaderRow)
    assert line_rows(rows) == [("added", None, 1, "a = 1"), ("added", None, 2, "b = 2")]


def test_deletion_to_empty_removes_every_line() -> None:
    items = [whole("/p/a.txt", "one\ntwo\nthree\n", "")]
    (file,) = build_diff(items).files
    assert (file.new_file, file.added, file.removed) == (False, 0, 3)
    assert [r[0] for r in line_rows(unified(items))] == ["removed"] * 3


def test_one_hunk_edit_numbers_both_sides() -> None:
    old = ["import sys", "", "print('hi')", "sys.exit(3)"]
    new = ["import sys", "", "print('hello, world')", "sys.exit(3)"]
    rows = line_rows(unified([whole("/p/hello.py", text(old), text(new))]))
    assert rows == [
        ("context", 1, 1, "import sys"),
        ("context", 2, 2, ""),
        ("removed", 3, None, "print('hi')"),
        ("added", None, 3, "print('hello, world')"),
        ("context", 4, 4, "sys.exit(3)"),
    ]


def test_insertion_shifts_new_numbers_only() -> None:
    old = lines(4)
    new = [*old[:2], "inserted", *old[2:]]
    rows = line_rows(unified([whole("/p/a.txt", text(old), text(new))]))
    assert ("added", None, 3, "inserted") in rows
    assert ("context", 3, 4, "line 3") in rows
    assert ("context", 4, 5, "line 4") in rows


def test_identical_texts_show_one_fold_and_no_counts() -> None:
    body = text(lines(30))
    model = build_diff([whole("/p/a.txt", body, body)])
    assert (model.added, model.removed) == (0, 0)
    rows = unified([whole("/p/a.txt", body, body)])
    assert [type(r) for r in rows] == [FileHeaderRow, FoldRow]


def test_repetitive_ten_thousand_line_input_diffs_and_lays_out() -> None:
    """`}` and blank lines repeat thousands of times: the quadratic case for difflib."""
    old = ["}", "", "{"] * 3400
    new = list(old)
    for k in range(0, len(new), 25):
        new[k] = "} // end"
    model = build_diff([whole("/p/big.js", text(old), text(new))])
    layout = RowLayout(model, split=True, expanded=frozenset())
    assert model.added == model.removed == len(range(0, len(new), 25))
    assert layout.height > 0
    assert isinstance(layout.row(layout.height - 1), SplitRow | FoldRow)


# -- folding ---------------------------------------------------------------------------------


def test_long_unchanged_runs_fold_keeping_context_around_changes() -> None:
    old = lines(40)
    new = list(old)
    new[4] = "changed 5"
    new[34] = "changed 35"
    rows = unified([whole("/p/a.txt", text(old), text(new))])
    folds = [r for r in rows if isinstance(r, FoldRow)]
    # Lines 9..31 are hidden between the changes; the 2 lines after the last context stay.
    assert [f.fold.equal.count for f in folds] == [35 - 5 - 2 * CONTEXT - 1]
    context_numbers = [r[1] for r in line_rows(rows) if r[0] == "context"]
    assert context_numbers[:4] == [1, 2, 3, 4]  # leading run too short to fold
    assert 6 in context_numbers and 8 in context_numbers and 9 not in context_numbers


def test_leading_and_trailing_runs_fold_too() -> None:
    old = lines(60)
    new = list(old)
    new[30] = "changed"
    rows = unified([whole("/p/a.txt", text(old), text(new))])
    assert isinstance(rows[1], FoldRow) and rows[1].fold.equal.count == 30 - CONTEXT
    assert isinstance(rows[-1], FoldRow) and rows[-1].fold.equal.count == 29 - CONTEXT


def test_short_runs_are_not_folded() -> None:
    old = lines(2 + 2 * CONTEXT + MIN_FOLD - 1)  # hides MIN_FOLD - 1 lines at most
    new = list(old)
    new[0] = "first changed"
    new[-1] = "last changed"
    rows = unified([whole("/p/a.txt", text(old), text(new))])
    assert not any(isinstance(r, FoldRow) for r in rows)


def test_expanding_a_fold_shows_its_lines_in_place() -> None:
    old = lines(40)
    new = list(old)
    new[20] = "changed"
    folded = unified([whole("/p/a.txt", text(old), text(new))])
    expanded = unified([whole("/p/a.txt", text(old), text(new))], expand_all=True)
    assert sum(isinstance(r, FoldRow) for r in folded) == 2
    assert not any(isinstance(r, FoldRow) for r in expanded)
    assert [r[1] for r in line_rows(expanded) if r[0] == "context"] == [
        n for n in range(1, 41) if n != 21
    ]


def test_change_starts_point_at_change_rows() -> None:
    old = lines(40)
    new = list(old)
    new[5] = "a"
    new[30] = "b"
    layout = RowLayout(
        build_diff([whole("/p/a.txt", text(old), text(new))]), split=False, expanded=frozenset()
    )
    starts = layout.change_starts
    assert len(starts) == 2
    assert all(getattr(layout.row(y), "kind", None) == "removed" for y in starts)


# -- grouping --------------------------------------------------------------------------------


def test_items_sharing_a_path_form_one_file_in_order() -> None:
    items = [  # snippets whose places are unknown: arrival order, a plain gap between
        DiffContent("/p/a.py", "x = 1\n", "x = 2\n"),
        DiffContent("/p/b.py", "y = 1\n", "y = 2\n"),
        DiffContent("/p/a.py", "z = 1\n", "z = 2\n"),
    ]
    model = build_diff(items)
    assert [f.path for f in model.files] == ["/p/a.py", "/p/b.py"]
    assert (model.files[0].added, model.files[0].removed) == (2, 2)
    rows = RowLayout(model, split=False, expanded=frozenset()).rows()
    kinds = [type(r).__name__ for r in rows]
    assert kinds == [
        "FileHeaderRow",
        "LineRow",
        "LineRow",
        "GapRow",
        "LineRow",
        "LineRow",
        "FileHeaderRow",
        "LineRow",
        "LineRow",
    ]
    assert [r[3] for r in line_rows(rows)] == ["x = 1", "x = 2", "z = 1", "z = 2", "y = 1", "y = 2"]


def test_replace_all_hunks_from_the_agent_read_as_one_file() -> None:
    before = text([f"value = old_name({i})" if i % 10 == 0 else f"pad {i}" for i in range(50)])
    after = before.replace("old_name", "new_name")
    hunks = compute_hunks("/p/m.py", before, after)
    assert len(hunks) == 5
    items = [DiffContent(h.path, h.old_text, h.new_text, h.old_line, h.new_line) for h in hunks]
    model = build_diff(items[::-1])  # in any order: shown in file order
    (file,) = model.files
    assert (file.added, file.removed, file.new_file) == (5, 5, False)
    rows = RowLayout(model, split=False, expanded=frozenset()).rows()
    assert [r.between for r in rows if isinstance(r, GapRow)] == [3, 3, 3, 3]
    numbers = [r.new_no for r in rows if isinstance(r, LineRow) and r.kind == "added"]
    assert numbers == [1, 11, 21, 31, 41]
    changed = [r for r in rows if isinstance(r, LineRow) and r.kind != "context"]
    assert all(r.changes for r in changed)  # old_name/new_name highlighted in each


def test_eol_note_only_when_it_matters() -> None:
    lf = "a\nb\n"
    crlf = "a\r\nb\r\n"
    assert build_diff([whole("/p/x", lf, "a\nc\n")]).files[0].eol_note == ""
    assert build_diff([whole("/p/x", crlf, "a\r\nc\r\n")]).files[0].eol_note == "CRLF"
    assert build_diff([whole("/p/x", crlf, lf)]).files[0].eol_note == "CRLF \u2192 LF"
    assert build_diff([whole("/p/x", lf, crlf)]).files[0].eol_note == "LF \u2192 CRLF"


def test_crlf_text_diffs_like_lf_text() -> None:
    old = ["alpha", "beta", "gamma"]
    new = ["alpha", "BETA", "gamma"]
    crlf = line_rows(
        unified([whole("/p/w.txt", "\r\n".join(old) + "\r\n", "\r\n".join(new) + "\r\n")])
    )
    assert crlf == line_rows(unified([whole("/p/w.txt", text(old), text(new))]))
    assert not any("\r" in row[3] for row in crlf)


def test_only_the_line_ending_changed_shows_no_line_changes() -> None:
    items = [whole("/p/w.txt", "a\r\nb\r\n", "a\nb\n")]
    model = build_diff(items)
    assert (model.added, model.removed) == (0, 0)
    assert model.files[0].eol_note == "CRLF \u2192 LF"


def test_changes_hidden_by_display_still_count() -> None:
    """Two different controls both show as U+FFFD, and a change past the display cut is
    invisible: the diff compares raw text, so neither line reads as unchanged."""
    model = build_diff([whole("/p/a", "x\x85\n", "x\x9b\n")])
    assert (model.added, model.removed) == (1, 1)
    long_old = "y" * (MAX_LINE_CHARS + 5) + "a\n"
    long_new = "y" * (MAX_LINE_CHARS + 5) + "b\n"
    assert build_diff([whole("/p/b", long_old, long_new)]).removed == 1


# -- split view ------------------------------------------------------------------------------


def test_split_rows_pair_old_and_new_lines() -> None:
    old = ["keep", "x = compute(a)", "keep 2"]
    new = ["keep", "x = compute(a, b)", "added line", "keep 2"]
    rows = RowLayout(
        build_diff([whole("/p/a.py", text(old), text(new))]), split=True, expanded=frozenset()
    ).rows()
    pairs = [
        (r.left and (r.left.kind, r.left.old_no), r.right and (r.right.kind, r.right.new_no))
        for r in rows
        if isinstance(r, SplitRow)
    ]
    assert pairs == [
        (("context", 1), ("context", 1)),
        (("removed", 2), ("added", 2)),
        (None, ("added", 3)),
        (("context", 3), ("context", 4)),
    ]


def test_unequal_replacements_pair_by_similarity() -> None:
    doc_old = Doc(["def f(a):", "    return a"])
    doc_new = Doc(["# new comment", "def f(a, b):", "    return a + b"])
    pairs = pair_lines(doc_old.lines, doc_new.lines)
    assert pairs == ((0, 1), (1, 2))
    change = ChangedLines(doc_old, doc_new, 0, 2, 0, 3, pairs)
    assert change.split_rows() == ((None, 0), (0, 1), (1, 2))
    assert change.changes_of(True, 0) == ()  # unpaired: plain added line
    assert change.changes_of(True, 1) != ()


# -- intraline -------------------------------------------------------------------------------


def test_intraline_marks_changed_words() -> None:
    assert intraline("print('hi')", "print('hello, world')") == (((7, 9),), ((7, 19),))
    assert intraline("x10 = 10", "x10 = 11") == (((6, 8),), ((6, 8),))


def test_intraline_never_splits_an_identifier() -> None:
    found = intraline("foo_bar = 1", "foo_baz = 1")
    assert found == (((0, 7),), ((0, 7),))


def test_intraline_declines_lines_that_are_simply_different() -> None:
    assert intraline("return compute(a)", "raise ValueError('no')") is None
    assert intraline("same", "same") is None


def test_intraline_joins_changes_separated_by_whitespace() -> None:
    found = intraline("value = alpha beta + 1", "value = gamma delta + 1")
    assert found == (((8, 18),), ((8, 19),))


def test_intraline_on_long_lines_is_linear_prefix_suffix() -> None:
    old = "a, " * 600 + "end"
    new = "a, " * 600 + "END"
    found = intraline(old, new)
    assert found == (((1800, 1803),), ((1800, 1803),))


def test_intraline_whitespace_only_change() -> None:
    assert intraline("x = 1", "x  = 1") == ((), ((2, 3),))


# -- language and highlighting ---------------------------------------------------------------


def test_language_from_file_name_then_content_then_text() -> None:
    assert resolve_language("/p/a.py", "") == "python"
    assert resolve_language("/p/styles.tcss", "") == "scss"
    assert resolve_language("/p/tool", "#!/usr/bin/env python3\nprint(1)\n") == "python"
    assert resolve_language("/p/run", "#!/bin/sh\necho hi\n") == "bash"
    assert resolve_language("/p/notes.unknownext", "Buy milk.\nCall Bob.\n") == "text"
    assert resolve_language("/p/empty.unknownext", "") == "text"


def test_doc_spans_highlight_any_block_and_skip_plain_text() -> None:
    code = [f"x{i} = {i}" for i in range(100)] + ["def late():", "    return None"]
    doc = Doc(code, "python")
    keyword = [t for s, e, t in doc.spans(100) if code[100][s:e] == "def"]
    assert keyword and keyword[0][0] == "Keyword"
    assert Doc(["def f(): pass"], "text").spans(0) == ()


def test_doc_spans_cover_only_their_line() -> None:
    code = ['s = """one', "two", 'three"""', "y = 1"]
    doc = Doc(code, "python")
    for index, line in enumerate(code):
        assert all(0 <= s < e <= len(line) for s, e, _ in doc.spans(index))


# -- a property: the rows are the texts ------------------------------------------------------

_line = st.sampled_from(["a", "b", "c", "}", "", "x = 1", "\tind", "d\r"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_line, max_size=40), st.lists(_line, max_size=40), st.booleans())
def test_rows_reproduce_both_texts(old: list[str], new: list[str], split: bool) -> None:
    """With folds expanded, the old side of the rows is the old text and the new side the
    new text, in order, numbered 1..n: nothing is lost, duplicated or reordered."""
    model = build_diff([whole("/p/f.txt", text(old), text(new))])
    layout = RowLayout(model, split=split, expanded=frozenset(range(model.fold_count)))
    old_side: list[tuple[int, str]] = []
    new_side: list[tuple[int, str]] = []
    for row in layout.rows():
        if isinstance(row, SplitRow):
            if row.left is not None:
                assert row.left.kind != "added" and row.left.old_no is not None
                old_side.append((row.left.old_no, row.left.text))
            if row.right is not None:
                assert row.right.kind != "removed" and row.right.new_no is not None
                new_side.append((row.right.new_no, row.right.text))
        elif isinstance(row, LineRow):
            if row.kind != "added":
                assert row.old_no is not None
                old_side.append((row.old_no, row.text))
            if row.kind != "removed":
                assert row.new_no is not None
                new_side.append((row.new_no, row.text))
    expected_old = [display_line(t) for t in split_text(text(old))[0]]
    expected_new = [display_line(t) for t in split_text(text(new))[0]]
    assert old_side == list(enumerate(expected_old, 1))
    assert new_side == list(enumerate(expected_new, 1))
    assert model.added == sum(len(_added(r)) for r in layout.rows())


def _added(row: Row) -> list[LineRow]:
    cells = [row.left, row.right] if isinstance(row, SplitRow) else [row]
    return [c for c in cells if isinstance(c, LineRow) and c.kind == "added"]


def test_empty_new_file_is_just_a_header() -> None:
    model = build_diff([whole("/p/empty.py", None, "")])
    (file,) = model.files
    assert (file.new_file, file.added, file.removed) == (True, 0, 0)
    assert [type(r) for r in RowLayout(model, split=True, expanded=frozenset()).rows()] == [
        FileHeaderRow
    ]
