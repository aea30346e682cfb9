"""The shared line diff: always a correct edit script, and a small one where lines repeat."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_common.linediff import MAX_EDIT_DISTANCE, Opcode, line_opcodes


def apply(old: list[str], new: list[str], ops: list[Opcode]) -> list[str]:
    out: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        out.extend(new[j1:j2])
        i, j = i2, j2
    assert (i, j) == (len(old), len(new))
    return out


def changed(ops: list[Opcode]) -> int:
    """Lines removed plus lines added."""
    return sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in ops if tag != "equal")


lines = st.lists(st.sampled_from(["a", "b", "c", "}", "", "x"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(old=lines, new=lines)
def test_opcodes_rebuild_the_new_text(old: list[str], new: list[str]) -> None:
    assert apply(old, new, line_opcodes(old, new)) == new


def test_identical_and_empty_inputs() -> None:
    assert line_opcodes([], []) == []
    assert line_opcodes(["a"], ["a"]) == [("equal", 0, 1, 0, 1)]
    assert line_opcodes([], ["a", "b"]) == [("insert", 0, 0, 0, 2)]
    assert line_opcodes(["a", "b"], []) == [("delete", 0, 2, 0, 0)]


def test_insertions_into_repeated_lines_stay_minimal() -> None:
    """No line is unique here, so anchoring finds nothing: Myers still finds the 104 inserts.

    This is the case that keeps the algorithm here rather than the `patiencediff` package,
    which reports such a stretch as one replacement of the whole file.
    """
    old = ["    if x:", "        pass", "    }", "", "    return None"] * 2000
    new = list(old)
    for k in range(0, 10_000, 97):
        new.insert(k, "    log()")
    ops = line_opcodes(old, new)
    assert apply(old, new, ops) == new
    assert changed(ops) == len(range(0, 10_000, 97))
    assert all(tag in ("equal", "insert") for tag, *_ in ops)


def test_an_anchorless_stretch_beyond_the_edit_bound_is_one_replacement() -> None:
    """Bounded Myers: past `MAX_EDIT_DISTANCE` edits, the stretch is replaced whole."""
    old = [str(i % 7) for i in range(3 * MAX_EDIT_DISTANCE)]
    new = [str(i % 5) for i in range(3 * MAX_EDIT_DISTANCE)]
    ops = line_opcodes(old, new)
    assert apply(old, new, ops) == new
    assert [tag for tag, *_ in ops if tag != "equal"] == ["replace"]
