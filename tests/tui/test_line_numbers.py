"""Diff line numbers that are right or absent: each numbering rule of `tui.diff.line_numbers`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import FileEditToolCallContent, ToolCallProgress, ToolCallStart
from textual.app import App, ComposeResult

from support import diff_rows
from tui.diff.diffing import DiffContent, build_diff
from tui.diff.line_numbers import (
    Anchoring,
    NoFiles,
    Phase,
    WorkspaceFiles,
    anchor_line,
    card_phase,
    diff_items,
    meta_lines,
)
from tui.diff.rows import GapRow, LineRow, RowLayout
from tui.fs import ConfinedFs
from tui.state import Conversation
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.diff.panel import DiffPanel
from tui.widgets.transcript.conversation import ConversationView

FORTY = "".join(f"line {n}\n" for n in range(1, 41))


def numbers(items: tuple[DiffContent, ...]) -> list[tuple[str, int | None, int | None, bool]]:
    rows = RowLayout(build_diff(items), split=False, expanded=frozenset()).rows()
    return [(r.kind, r.old_no, r.new_no, r.unknown) for r in rows if isinstance(r, LineRow)]


def anchored(
    tmp_path: Path,
    body: str | bytes,
    items: list[DiffContent],
    phase: Phase = "before",
    **kw: object,
) -> tuple[tuple[DiffContent, ...], WorkspaceFiles]:
    target = tmp_path / "f.py"
    if isinstance(body, bytes):
        target.write_bytes(body)
    else:
        target.write_text(body)
    files = WorkspaceFiles([tmp_path])
    locations = kw.get("locations", ())
    assert isinstance(locations, tuple)
    resolved = Anchoring(phase, files, locations).resolve(items)
    assert resolved is not None
    return resolved, files


# -- rule 1: _meta -----------------------------------------------------------------------------


def test_meta_start_lines_number_the_block() -> None:
    block = FileEditToolCallContent(
        type="diff",
        path="/p/f.py",
        old_text="a\nb",
        new_text="a\nB",
        field_meta={"dsh.line": {"old": 16, "new": 18}},
    )
    (item,) = diff_items([block])
    assert (item.old_line, item.new_line) == (16, 18)
    assert numbers((item,)) == [
        ("context", 16, 18, False),
        ("removed", 17, None, False),
        ("added", None, 19, False),
    ]


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        {"dsh.line": {"old": 0, "new": 1}},
        {"dsh.line": {"old": True, "new": 1}},
        {"dsh.line": {"old": 3}},
        {"dsh.line": [3, 3]},
        {"other": {"old": 3, "new": 3}},
    ],
)
def test_malformed_meta_is_no_position(meta: object) -> None:
    assert meta_lines(meta) is None


def test_meta_on_a_new_file_is_ignored_and_it_counts_from_one() -> None:
    block = FileEditToolCallContent(
        type="diff",
        path="/p/n.py",
        old_text=None,
        new_text="x\ny\n",
        field_meta={"dsh.line": {"old": 9, "new": 9}},
    )
    (item,) = diff_items([block])
    assert item.numbered and (item.old_line, item.new_line) == (None, None)
    assert numbers((item,)) == [("added", None, 1, False), ("added", None, 2, False)]


SEVEN = "".join(f"line {n}\n" for n in range(1, 7)) + "target = 1\n" + "tail\n"


@pytest.mark.parametrize("phase", ["before", "unsure"])
def test_meta_lines_the_file_at_hand_contradicts_give_no_numbers(
    tmp_path: Path, phase: Phase, caplog: pytest.LogCaptureFixture
) -> None:
    """`dsh.line` said line 1 for a snippet that is unique at line 7 on disk: the preview
    showed line 1. The file at hand wins: no numbers, and the disagreement in the log."""
    path = str(tmp_path / "f.py")
    item = DiffContent(path, "target = 1\n", "target = 2\n", 1, 1)
    with caplog.at_level("WARNING", logger="tui.diff.line_numbers"):
        (placed,), _ = anchored(tmp_path, SEVEN, [item], phase)
    assert placed.starts is None
    assert numbers((placed,)) == [("removed", None, None, True), ("added", None, None, True)]
    assert "disagree with the file, where the snippet is on line 7" in caplog.text


def test_meta_lines_the_file_confirms_or_cannot_place_are_kept(tmp_path: Path) -> None:
    path = str(tmp_path / "f.py")
    agreed = DiffContent(path, "target = 1\n", "target = 2\n", 7, 7)
    absent = DiffContent(path, "nowhere\n", "x\n", 3, 3)
    (placed,), _ = anchored(tmp_path, SEVEN, [agreed])
    assert (placed.old_line, placed.new_line) == (7, 7)
    (placed,), _ = anchored(tmp_path, SEVEN, [absent])
    assert (placed.old_line, placed.new_line) == (3, 3)
    # After the edit, `newText` is what the file holds: its line is the one compared.
    applied = SEVEN.replace("target = 1", "target = 2")
    (placed,), _ = anchored(
        tmp_path, applied, [DiffContent(path, "target = 1\n", "target = 2\n", 1, 1)], "after"
    )
    assert placed.starts is None


def test_history_and_replays_read_no_file(tmp_path: Path) -> None:
    """`NoFiles`: a loaded or replayed call keeps its `_meta` lines and reads nothing."""
    path = str(tmp_path / "f.py")
    (tmp_path / "f.py").write_text(SEVEN)
    items = [
        DiffContent(path, "target = 1\n", "target = 2\n", 1, 1),
        DiffContent(path, "tail\n", "TAIL\n"),
    ]
    resolved = Anchoring("before", NoFiles()).resolve(items, io=False)
    assert resolved is not None
    assert [(i.old_line, i.new_line) for i in resolved] == [(1, 1), (None, None)]


# -- rule 2: anchors on disk ---------------------------------------------------------------------


def test_pending_question_anchors_old_text(tmp_path: Path) -> None:
    """The `beta => BETA` edit of the issue: `beta` is line 2, not 1."""
    path = str(tmp_path / "f.py")
    (item,), _ = anchored(tmp_path, "alpha\nbeta\ngamma\n", [DiffContent(path, "beta", "BETA")])
    assert numbers((item,)) == [("removed", 2, None, False), ("added", None, 2, False)]


def test_completed_call_anchors_new_text(tmp_path: Path) -> None:
    path = str(tmp_path / "f.py")
    body = FORTY.replace("line 17\n", "LINE 17\n")
    item = DiffContent(path, "line 16\nline 17\n", "line 16\nLINE 17\n")
    (placed,), _ = anchored(tmp_path, body, [item], "after")
    assert (placed.old_line, placed.new_line) == (16, 16)
    assert ("added", None, 17, False) in numbers((placed,))


def test_a_snippet_found_twice_has_no_numbers(tmp_path: Path) -> None:
    path = str(tmp_path / "f.py")
    (item,), _ = anchored(tmp_path, "x = 1\ny = 2\nx = 1\n", [DiffContent(path, "x = 1", "x = 3")])
    assert not item.numbered
    assert numbers((item,)) == [("removed", None, None, True), ("added", None, None, True)]
    assert build_diff((item,)).files[0].unnumbered


def test_a_snippet_not_found_has_no_numbers(tmp_path: Path) -> None:
    path = str(tmp_path / "f.py")
    (item,), _ = anchored(tmp_path, FORTY, [DiffContent(path, "nowhere", "x")])
    assert item.starts is None


def test_crlf_file_with_an_lf_snippet(tmp_path: Path) -> None:
    path = str(tmp_path / "f.py")
    body = FORTY.replace("\n", "\r\n").encode()
    (item,), _ = anchored(tmp_path, body, [DiffContent(path, "line 9\nline 10", "nine\nten")])
    assert (item.old_line, item.new_line) == (9, 9)
    assert anchor_line("a\r\nb\r\n", "b\r\n") == 2  # a CRLF snippet matches as it is


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths `ConfinedFs.read_text` is asked for from now on."""
    asked: list[str] = []
    read_text = ConfinedFs.read_text

    def counted(fs: ConfinedFs, path: Any, *args: Any, **kwargs: Any) -> str:
        asked.append(str(path))
        return read_text(fs, path, *args, **kwargs)

    monkeypatch.setattr(ConfinedFs, "read_text", counted)
    return asked


def test_a_path_outside_the_workspace_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = count_reads(monkeypatch)
    inside = tmp_path / "work"
    inside.mkdir()
    secret = tmp_path / "secret.py"
    secret.write_text("alpha\nbeta\n")
    files = WorkspaceFiles([inside])
    link = inside / "link.py"
    link.symlink_to(secret)  # a symlink out of the workspace is outside too
    items = [DiffContent(str(secret), "beta", "BETA"), DiffContent(str(link), "beta", "BETA")]
    resolved = Anchoring("before", files).resolve(items)
    assert resolved is not None
    assert all(item.starts is None for item in resolved)
    assert reads == []


def test_a_relative_path_is_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    reads = count_reads(monkeypatch)
    (tmp_path / "f.py").write_text("alpha\nbeta\n")
    files = WorkspaceFiles([tmp_path])
    resolved = Anchoring("before", files).resolve([DiffContent("f.py", "beta", "B")])
    assert resolved is not None and resolved[0].starts is None and reads == []


def test_an_allow_dir_is_read(tmp_path: Path) -> None:
    work, extra = tmp_path / "work", tmp_path / "extra"
    work.mkdir()
    extra.mkdir()
    (extra / "g.py").write_text("a\nb\nc\n")
    files = WorkspaceFiles([work, extra])
    resolved = Anchoring("before", files).resolve([DiffContent(str(extra / "g.py"), "c", "C")])
    assert resolved is not None and resolved[0].starts == (3, 3)


def test_unsure_phase_trusts_old_text_only_while_new_text_is_absent(tmp_path: Path) -> None:
    """A running call may have applied its edit already: `oldText` then may point elsewhere."""
    path = str(tmp_path / "f.py")
    (before,), _ = anchored(
        tmp_path, "alpha\nbeta\n", [DiffContent(path, "beta", "BETA")], "unsure"
    )
    assert before.starts == (2, 2)
    applied = "alpha\nbeta\nbeta 2\n"  # `beta` -> `beta 2`, applied: `beta` still found once
    (after,), _ = anchored(tmp_path, applied, [DiffContent(path, "beta\n", "beta 2\n")], "unsure")
    assert after.starts is None


def test_the_file_is_read_once_per_card_phase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = count_reads(monkeypatch)
    path = str(tmp_path / "f.py")
    (tmp_path / "f.py").write_text(FORTY)
    files = WorkspaceFiles([tmp_path])
    anchoring = Anchoring("before", files)
    assert anchoring.resolve([DiffContent(path, "line 3", "x")], io=False) is None  # needs a read
    anchoring.resolve([DiffContent(path, "line 3", "x")])
    anchoring.resolve([DiffContent(path, "line 4", "y")])
    Anchoring("unsure", files).resolve([DiffContent(path, "line 5", "z")])
    assert reads == [path]
    assert anchoring.resolve([DiffContent(path, "line 6", "w")], io=False) is not None


def test_blocks_of_one_file_are_placed_and_shifted(tmp_path: Path) -> None:
    """Two blocks found after the edit: the lower one's old side moves back by the line the
    upper one added; they show in file order with the lines between counted."""
    path = str(tmp_path / "f.py")
    body = FORTY.replace("line 5\n", "line 5\nnew\n").replace("line 30\n", "LINE 30\n")
    items = [DiffContent(path, "line 30", "LINE 30"), DiffContent(path, "line 5", "line 5\nnew")]
    resolved, _ = anchored(tmp_path, body, items, "after")
    assert [item.starts for item in resolved] == [(30, 31), (5, 5)]
    rows = RowLayout(build_diff(resolved), split=False, expanded=frozenset()).rows()
    assert [r.between for r in rows if isinstance(r, GapRow)] == [24]  # lines 6-29
    assert [(r.old_no, r.new_no) for r in rows if isinstance(r, LineRow)] == [
        (5, 5),
        (None, 6),
        (30, None),
        (None, 31),
    ]


def test_one_block_that_cannot_be_placed_unplaces_its_neighbours(tmp_path: Path) -> None:
    path = str(tmp_path / "f.py")
    items = [DiffContent(path, "line 30", "X"), DiffContent(path, "dup", "Y")]
    resolved, _ = anchored(tmp_path, FORTY + "dup\ndup\n", items)
    assert [item.starts for item in resolved] == [None, None]


# -- rule 3: one location ------------------------------------------------------------------------


def test_a_single_location_numbers_a_single_block(tmp_path: Path) -> None:
    path = "/elsewhere/f.py"  # not readable: the location is all there is
    files = WorkspaceFiles([tmp_path])
    one = Anchoring("after", files, ((path, 12),)).resolve([DiffContent(path, "a", "b")])
    assert one is not None and one[0].starts == (12, 12)
    two_blocks = [DiffContent(path, "a", "b"), DiffContent(path, "c", "d")]
    resolved = Anchoring("after", files, ((path, 12),)).resolve(two_blocks)
    assert resolved is not None and [i.starts for i in resolved] == [None, None]
    two_locations = Anchoring("after", files, ((path, 12), (path, 20)))
    resolved = two_locations.resolve([DiffContent(path, "a", "b")])
    assert resolved is not None and resolved[0].starts is None
    other_path = Anchoring("after", files, (("/x.py", 3),)).resolve([DiffContent(path, "a", "b")])
    assert other_path is not None and other_path[0].starts is None


# -- rule 4 and the phase --------------------------------------------------------------------------


def test_without_any_rule_there_are_no_numbers() -> None:
    item = DiffContent("/p/f.py", "x\ny\n", "x\nz\n")
    assert numbers((item,)) == [
        ("context", None, None, True),
        ("removed", None, None, True),
        ("added", None, None, True),
    ]


def test_card_phase() -> None:
    assert card_phase("completed") == "after"
    assert card_phase("completed", True) == "after"
    assert card_phase("in_progress", True) == "before"
    assert card_phase("failed", True) == "before"
    assert card_phase("in_progress") == "unsure"
    assert card_phase("pending") == "unsure"


# -- the card: phases ------------------------------------------------------------------------------


class CardHost(App[None]):
    """A transcript in `cwd` fed one tool call, `t1`, through the conversation state."""

    def __init__(self, cwd: Path) -> None:
        super().__init__()
        self.cwd = cwd
        self.conversation = Conversation()

    def compose(self) -> ComposeResult:
        yield ConversationView(self.cwd)

    def apply(self, update: ToolCallStart | ToolCallProgress) -> None:
        self.query_one(ConversationView).apply(self.conversation.apply(update))


async def card_numbers(pilot: Any, app: CardHost) -> list[tuple[str, int | None, int | None]]:
    await pilot.pause()
    panel = app.query_one(ToolCard).query_one(DiffPanel)
    await panel.wait_ready()
    await pilot.pause()
    return [
        (r.kind, r.old_no, r.new_no)
        for r in diff_rows(panel)
        if isinstance(r, LineRow) and r.kind != "context"
    ]


async def test_a_card_places_its_snippet_again_when_the_call_completes(tmp_path: Path) -> None:
    """Running, `oldText` is found on line 2 (and `newText` nowhere); the agent then edits
    the file (adding a line above) and completes without resending content: the card now
    finds `newText`, on line 3."""
    target = tmp_path / "f.py"
    target.write_text("alpha\nbeta\ngamma\n")
    block = FileEditToolCallContent(
        type="diff", path=str(target), old_text="beta\n", new_text="BETA\n"
    )
    app = CardHost(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        app.apply(
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="t1",
                title="Edit f.py",
                kind="edit",
                status="in_progress",
                content=[block],
            )
        )
        assert await card_numbers(pilot, app) == [("removed", 2, None), ("added", None, 2)]
        target.write_text("zero\nalpha\nBETA\ngamma\n")
        app.apply(
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id="t1", status="completed"
            )
        )
        assert await card_numbers(pilot, app) == [("removed", 3, None), ("added", None, 3)]


async def test_a_permission_question_lets_the_card_trust_old_text(tmp_path: Path) -> None:
    """`newText` already occurs elsewhere, so a running card cannot tell whether the edit is
    applied and shows `?`; once a permission question is open the edit surely is not."""
    target = tmp_path / "f.py"
    target.write_text("x = 1\ny = 2\nx = 3\n")
    block = FileEditToolCallContent(
        type="diff", path=str(target), old_text="y = 2\n", new_text="x = 3\n"
    )
    app = CardHost(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        app.apply(
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="t1",
                title="Edit f.py",
                kind="edit",
                status="in_progress",
                content=[block],
            )
        )
        assert await card_numbers(pilot, app) == [("removed", None, None), ("added", None, None)]
        app.query_one(ToolCard).note_permission_asked()
        assert await card_numbers(pilot, app) == [("removed", 2, None), ("added", None, 2)]


async def test_a_permission_question_shows_no_numbers_the_file_contradicts(tmp_path: Path) -> None:
    """The card (whose placement the permission preview shares) with `dsh.line` 1 for a
    snippet at line 7 of the file: no numbers once the question is open."""
    target = tmp_path / "f.py"
    target.write_text(SEVEN)
    block = FileEditToolCallContent(
        type="diff",
        path=str(target),
        old_text="target = 1\n",
        new_text="target = 2\n",
        field_meta={"dsh.line": {"old": 1, "new": 1}},
    )
    app = CardHost(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        app.apply(
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="t1",
                title="Edit f.py",
                kind="edit",
                status="in_progress",
                content=[block],
            )
        )
        await pilot.pause()
        app.query_one(ToolCard).note_permission_asked()
        assert await card_numbers(pilot, app) == [("removed", None, None), ("added", None, None)]
