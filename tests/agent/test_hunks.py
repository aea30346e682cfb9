"""Hunk computation: 3 lines of context, touching hunks merge, and large files stay cheap."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.jsonvalue import JsonValue
from agent.tools.hunks import (
    DIFF_CONTEXT,
    applied_hunks,
    compute_hunks,
    diffs_from_meta,
    diffs_to_meta,
    hunks_to_meta,
    locations_from_meta,
    snippet_line,
    split_lines,
)
from agent.views import FileDiff, FileLocation


def numbered(n: int) -> list[str]:
    return [f"line {i}" for i in range(1, n + 1)]


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_context_is_three() -> None:
    assert DIFF_CONTEXT == 3


def test_one_line_change_gives_one_hunk_with_three_lines_of_context() -> None:
    before = numbered(20)
    after = before.copy()
    after[9] = "CHANGED"
    [hunk] = compute_hunks("f.txt", text(before), text(after))
    assert hunk.path == "f.txt"
    assert hunk.old_text == "\n".join(before[6:13])  # 3 + 1 + 3 = 7 lines
    assert hunk.new_text == "\n".join([*before[6:9], "CHANGED", *before[10:13]])


def test_the_fs_edit_snapshot_hunk() -> None:
    before = "mode=DEBUG\nlevel=info\n"
    after = "mode=RELEASE\nlevel=info\n"
    assert compute_hunks("config.txt", before, after) == [
        FileDiff("config.txt", "mode=DEBUG\nlevel=info", "mode=RELEASE\nlevel=info", 1, 1)
    ]


def test_scattered_changes_give_one_diff_per_hunk() -> None:
    before = numbered(100)
    after = [line.upper() if line in {"line 10", "line 50", "line 90"} else line for line in before]
    hunks = compute_hunks("f", text(before), text(after))
    assert len(hunks) == 3
    assert [h.new_text.count("LINE") for h in hunks] == [1, 1, 1]
    assert [(h.old_line, h.new_line) for h in hunks] == [(7, 7), (47, 47), (87, 87)]


def test_start_lines_follow_the_lines_added_above() -> None:
    """The second hunk starts later in the new file by the three lines inserted above it."""
    before = numbered(40)
    after = [*before[:5], "x", "y", "z", *before[5:30], "CHANGED", *before[31:]]
    hunks = applied_hunks("f", text(before), text(after))
    assert [(d.old_line, d.new_line, changed) for d, changed in hunks] == [
        (3, 3, 6),
        (28, 31, 34),
    ]
    for diff, _ in hunks:
        assert diff.old_line is not None and diff.new_line is not None
        old_at = text(before).split("\n")[diff.old_line - 1]
        new_at = text(after).split("\n")[diff.new_line - 1]
        assert (diff.old_text or "").split("\n")[0] == old_at
        assert diff.new_text.split("\n")[0] == new_at


def test_a_deletion_at_the_end_points_at_the_last_line_left() -> None:
    [(diff, changed)] = applied_hunks("f", text(numbered(10)), text(numbered(8)))
    assert (diff.old_line, diff.new_line, changed) == (6, 6, 8)
    [(gone, line)] = applied_hunks("f", "a\n", "")
    assert (gone.old_line, gone.new_line, line) == (1, 1, 1)


def test_an_insertion_into_empty_content_is_a_whole_file_without_start_lines() -> None:
    [(diff, changed)] = applied_hunks("f", "", "a\n")
    assert (diff.old_text, diff.old_line, diff.new_line, changed) == (None, None, None, 1)


@pytest.mark.parametrize(
    ("text_", "snippet", "line"),
    [
        ("alpha\nbeta\ngamma\n", "beta", 2),
        ("alpha\nbeta\ngamma\n", "ta\ngam", 2),  # starts mid-line: the line it starts on
        ("alpha\nbeta\ngamma\n", "alpha", 1),
        ("beta\nbeta\n", "beta", None),  # twice: no anchor
        ("alpha\n", "omega", None),
        ("alpha\n", "", None),
        ("one\r\ntwo\r\nthree\r\n", "two\nthree", 2),  # an LF snippet in a CRLF file
        ("one\r\ntwo\r\nthree\r\n", "three", 3),
    ],
)
def test_snippet_line(text_: str, snippet: str, line: int | None) -> None:
    assert snippet_line(text_, snippet) == line


@pytest.mark.parametrize(("gap", "count"), [(5, 1), (6, 1), (7, 2), (12, 2)])
def test_hunks_merge_when_their_context_windows_touch(gap: int, count: int) -> None:
    before = numbered(60)
    after = before.copy()
    after[20] = "A"
    after[20 + gap + 1] = "B"  # `gap` unchanged lines between the two changes
    assert len(compute_hunks("f", text(before), text(after))) == count


def test_identical_texts_give_no_hunks() -> None:
    assert compute_hunks("f", "same\n", "same\n") == []
    assert compute_hunks("f", "", "") == []


def test_insertion_into_empty_content_has_no_old_text() -> None:
    assert compute_hunks("f", "", "a\nb\n") == [FileDiff("f", None, "a\nb")]


def test_whole_deletion_has_empty_new_text() -> None:
    assert compute_hunks("f", "a\nb\n", "") == [FileDiff("f", "a\nb", "", 1, 1)]


def test_a_missing_final_newline_leaves_no_marker() -> None:
    [hunk] = compute_hunks("f", "a\nb", "a\nc")
    assert hunk == FileDiff("f", "a\nb", "a\nc", 1, 1)
    assert "No newline" not in (hunk.old_text or "") + hunk.new_text
    [added] = compute_hunks("f", "a\nb", "a\nb\n")
    assert "\\" not in added.new_text


def test_split_lines_splits_on_newline_only() -> None:
    assert split_lines("a\r\nb\x0cc\u2028d\ne") == ["a\r\n", "b\x0cc\u2028d\n", "e"]
    assert split_lines("") == []
    assert split_lines("x\n") == ["x\n"]


# --- large files: the algorithm must not go quadratic on repeated lines ----------------------


def code_like(n: int) -> list[str]:
    """Lines like a source file: mostly unique, with many repeated `}` and blank lines."""
    return [
        "}" if i % 5 == 0 else "" if i % 7 == 0 else f"    x{i} = foo(bar[{i}])" for i in range(n)
    ]


def test_replace_all_on_a_10000_line_file() -> None:
    before = code_like(10_000)
    after = [line.replace("foo", "baz") for line in before]
    hunks = compute_hunks("big.py", text(before), text(after))
    assert hunks  # every 5th line is unchanged, so it all merges into few large hunks
    assert sum(h.new_text.count("baz") for h in hunks) == sum("foo" in line for line in before)


def test_scattered_edits_on_a_10000_line_file() -> None:
    before = code_like(10_000)
    after = [f"changed {i}" if i % 50 == 1 else line for i, line in enumerate(before)]
    hunks = compute_hunks("big.py", text(before), text(after))
    assert len(hunks) == 200
    assert all(h.new_text.count("changed") == 1 for h in hunks)


def test_many_repeated_lines_with_sparse_edits() -> None:
    before = ["}"] * 10_000
    after = before.copy()
    for i in range(0, 10_000, 37):
        after[i] = "x"
    hunks = compute_hunks("braces", text(before), text(after))
    assert sum(h.new_text.count("x") for h in hunks) == len(range(0, 10_000, 37))


def test_unrelated_10000_line_files() -> None:
    before = [str(i % 97) for i in range(10_000)]
    after = [str(i % 89) for i in range(10_000)]
    hunks = compute_hunks("f", text(before), text(after))
    assert hunks


# --- hunks cover the changes (the edit script itself: tests/common/test_linediff.py) ---------


lines = st.lists(st.sampled_from(["a", "b", "c", "}", "", "x"]), max_size=40)


@settings(max_examples=200, deadline=None)
@given(old=lines, new=lines)
def test_hunks_cover_every_change(old: list[str], new: list[str]) -> None:
    before, after = text(old) if old else "", text(new) if new else ""
    hunks = compute_hunks("f", before, after)
    assert (hunks == []) == (before == after)
    for hunk in hunks:
        assert (hunk.old_text or "") in before.removesuffix("\n")
        assert hunk.new_text in after.removesuffix("\n")


# --- the meta channel ------------------------------------------------------------------------


def test_meta_round_trip() -> None:
    diffs = [FileDiff("a", None, "x"), FileDiff("b", "old", "new")]
    meta = diffs_to_meta(diffs)
    assert meta == {
        "diffs": [
            {"path": "a", "oldText": None, "newText": "x"},
            {"path": "b", "oldText": "old", "newText": "new"},
        ]
    }
    assert diffs_from_meta(meta) == tuple(diffs)
    assert locations_from_meta(meta) == ()


def test_meta_round_trip_with_lines() -> None:
    hunks = [(FileDiff("b", "old\nctx", "new\nctx", 17, 18), 18), (FileDiff("a", None, "x"), 1)]
    meta = hunks_to_meta(hunks)
    assert meta == {
        "diffs": [
            {
                "path": "b",
                "oldText": "old\nctx",
                "newText": "new\nctx",
                "oldLine": 17,
                "newLine": 18,
                "line": 18,
            },
            {"path": "a", "oldText": None, "newText": "x", "line": 1},
        ]
    }
    assert diffs_from_meta(meta) == tuple(d for d, _ in hunks)
    assert locations_from_meta(meta) == (FileLocation("b", 18), FileLocation("a", 1))


@pytest.mark.parametrize(
    "item",
    [
        {"oldLine": 0, "newLine": 1},
        {"oldLine": True, "newLine": 1},
        {"oldLine": "3", "newLine": 3},
        {"oldLine": 3},
        {"line": -1},
        {"line": 2.5},
    ],
)
def test_malformed_lines_are_dropped_not_fatal(item: dict[str, JsonValue]) -> None:
    meta: JsonValue = {"diffs": [{"path": "a", "oldText": "o", "newText": "n", **item}]}
    assert diffs_from_meta(meta) == (FileDiff("a", "o", "n"),)
    assert locations_from_meta(meta) == ()


@pytest.mark.parametrize(
    "meta",
    [
        None,
        "diffs",
        [],
        {},
        {"diffs": []},
        {"diffs": "x"},
        {"diffs": [1]},
        {"diffs": [{"path": "a"}]},
        {"diffs": [{"path": 1, "oldText": None, "newText": "x"}]},
        {"diffs": [{"path": "a", "oldText": 3, "newText": "x"}]},
        {"diffs": [{"path": "a", "oldText": None, "newText": None}]},
        {"diffs": [{"path": "a", "oldText": None, "newText": "x"}, "junk"]},
    ],
)
def test_malformed_meta_is_rejected_without_raising(meta: JsonValue) -> None:
    assert diffs_from_meta(meta) is None
