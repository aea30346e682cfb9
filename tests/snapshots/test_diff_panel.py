"""The diff panel and the review screen: snapshots of each case, then behaviour tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PermissionOption
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from agent.tools.hunks import compute_hunks
from support import diff_on_screen, diff_rows, screen_lines
from tui.diff.diffing import DiffContent
from tui.diff.line_numbers import Anchoring, WorkspaceFiles
from tui.diff.rows import SplitRow
from tui.permissions import assign_keys
from tui.pytest_plugin import diff_drawn
from tui.widgets.diff import panel as diff_panel_module
from tui.widgets.diff.panel import ASCII_GLYPHS, DiffPanel
from tui.widgets.diff.review import DiffReviewScreen

CWD = Path("/project")

HELLO_OLD = """\
import sys


def main() -> int:
    print('hi')
    return 3


sys.exit(main())
"""
HELLO_NEW = HELLO_OLD.replace("print('hi')", "print('hello, world')")


def whole(path: str, old: str | None, new: str) -> DiffContent:
    """A diff of two whole texts, so numbered from line 1 on both sides (a snippet whose
    place is unknown would show `?`: see the numbering tests)."""
    return DiffContent(path, old, new, None if old is None else 1, None if old is None else 1)


def module(n: int = 60) -> list[str]:
    """A small Python module with enough unchanged lines between edits to fold."""
    out = ['"""Inventory helpers."""', "", "from dataclasses import dataclass", ""]
    k = 0
    while len(out) < n:
        k += 1
        out += [
            "@dataclass",
            f"class Item{k}:",
            f'    """Item number {k}."""',
            "    name: str",
            f"    count: int = {k}",
            "",
        ]
    return out[:n]


def joined(lines: Iterable[str], eol: str = "\n") -> str:
    return "".join(line + eol for line in lines)


MODULE_OLD = module()
MODULE_NEW = list(MODULE_OLD)
MODULE_NEW[8] = "    count: int = 100  # restocked"
MODULE_NEW[31:33] = ["    name: str", "    price: float = 0.0", "    count: int = 5"]
MODULE_NEW[49] = '    """Item number eight, renamed."""'


class DiffHost(App[None]):
    """Panels in a scrolling column, as in the conversation; nothing focused unless asked."""

    AUTO_FOCUS = None
    CSS = "VerticalScroll { padding: 0 1; } VerticalScroll > DiffPanel { margin-bottom: 1; }"

    def __init__(self, *panels: DiffPanel, theme: str = "textual-dark") -> None:
        super().__init__()
        self.panels = panels
        self.theme_name = theme

    def on_load(self) -> None:
        self.theme = self.theme_name

    def compose(self) -> ComposeResult:
        yield VerticalScroll(*self.panels)


async def settle(pilot: Any) -> None:
    """Diffs built, first paint done, and any block highlighted after it in colour."""
    for panel in pilot.app.query(DiffPanel):
        await diff_on_screen(pilot, panel)
    for panel in pilot.app.query(DiffPanel):
        await diff_drawn(pilot, panel)
    await pilot.pause()


def snap(
    snap_compare: Any, *panels: DiffPanel, size: tuple[int, int] = (100, 24), **kw: Any
) -> bool:
    theme = kw.pop("theme", "textual-dark")
    run_before = kw.pop("run_before", settle)
    return bool(
        snap_compare(
            DiffHost(*panels, theme=theme), terminal_size=size, run_before=run_before, **kw
        )
    )


# -- snapshots -------------------------------------------------------------------------------


def test_new_file(snap_compare: Any) -> None:
    """Header `src/inventory.py  new file  +60 −0`; green `+` gutters but no green code
    background (a preview); Python colours; the panel stops at 14 rows with a scrollbar."""
    panel = DiffPanel(
        [whole("/project/src/inventory.py", None, joined(MODULE_OLD))], CWD, max_height=14
    )
    assert snap(snap_compare, panel)


def test_one_hunk_edit(snap_compare: Any) -> None:
    """`hello.py +1 −1`: line 5 removed (red) and added (green) with `hi` / `hello, world`
    highlighted more strongly; numbers for both sides; context lines plain."""
    panel = DiffPanel([whole("/project/hello.py", HELLO_OLD, HELLO_NEW)], CWD)
    assert snap(snap_compare, panel)


def test_multi_hunk_edit(snap_compare: Any) -> None:
    """Three changes in a 60-line file: each with 3 lines of context, and `⋯ N unchanged
    lines` rows for the runs between them, before the first and after the last."""
    panel = DiffPanel([whole("/project/inventory.py", joined(MODULE_OLD), joined(MODULE_NEW))], CWD)
    assert snap(snap_compare, panel, size=(100, 40))


def test_replace_all_sites(snap_compare: Any) -> None:
    """A `replace_all` result: the agent sends one item per hunk with its start lines; they
    show as one file (`+5 −5`) in file order, numbered where they are (`old_name` on lines 4,
    12, 20, 28, 36), with a `⋯ 2 unchanged lines not shown` row between hunks."""
    before = joined(
        line
        for k in range(1, 6)
        for line in (
            f"def step_{k}(data):",
            f'    """Step {k} of the pipeline."""',
            "    checked = validate(data)",
            f"    result = old_name(checked, {k})",
            "    log(result)",
            "    return result",
            "",
            "",
        )
    )
    after = before.replace("old_name", "new_name")
    hunks = compute_hunks("/project/pipeline.py", before, after)
    assert len(hunks) == 5
    items = [DiffContent(h.path, h.old_text, h.new_text, h.old_line, h.new_line) for h in hunks]
    panel = DiffPanel(items, CWD)
    assert snap(snap_compare, panel, size=(100, 44))


def test_split_view(snap_compare: Any) -> None:
    """150 columns: auto picks the split view. Old on the left, new on the right, the edited
    lines side by side; the inserted `price` line faces a hatched filler."""
    panel = DiffPanel([whole("/project/inventory.py", joined(MODULE_OLD), joined(MODULE_NEW))], CWD)
    assert snap(snap_compare, panel, size=(150, 40))


def test_unified_view_after_toggle(snap_compare: Any) -> None:
    """The same change at 150 columns after pressing `s`: unified, header says `unified`
    and is in the focus colour."""

    async def toggle(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.query_one(DiffPanel).focus()
        await pilot.press("s")
        await settle(pilot)

    panel = DiffPanel([whole("/project/inventory.py", joined(MODULE_OLD), joined(MODULE_NEW))], CWD)
    assert snap(snap_compare, panel, size=(150, 40), run_before=toggle)


def test_long_lines(snap_compare: Any) -> None:
    """Long lines scroll horizontally (scrolled 30 columns here): the gutters stay put, a `›`
    marks lines that go on, and a horizontal scrollbar shows under the panel."""
    old = "ROWS = [" + ", ".join(f'"r{i}"' for i in range(60)) + "]\nx = 1\n"
    new = "ROWS = [" + ", ".join(f'"r{i}"' for i in range(61)) + "]\nx = 2\n"

    async def scroll(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.query_one(DiffPanel).scroll_to(x=30, animate=False)
        await settle(pilot)

    panel = DiffPanel([whole("/project/rows.py", old, new)], CWD)
    assert snap(snap_compare, panel, run_before=scroll)


def test_unknown_language(snap_compare: Any) -> None:
    """An unknown extension with prose: plain text, no syntax colours, diff colours only."""
    old = "Shopping\n- milk\n- bread\n- eggs\nCall Bob about the thing.\n"
    new = "Shopping\n- oat milk\n- bread\n- eggs\n- coffee\nCall Bob about the thing.\n"
    panel = DiffPanel([whole("/project/notes.unknownext", old, new)], CWD)
    assert snap(snap_compare, panel)


def test_crlf_text(snap_compare: Any) -> None:
    """CRLF on both sides: a `CRLF` note in the header, no `␍` on any line, one changed line."""
    panel = DiffPanel(
        [
            whole(
                "/project/hello.py",
                HELLO_OLD.replace("\n", "\r\n"),
                HELLO_NEW.replace("\n", "\r\n"),
            )
        ],
        CWD,
    )
    assert snap(snap_compare, panel)


def test_deletion_to_empty(snap_compare: Any) -> None:
    """New text empty: every line removed (red), `+0 −9`, no `new file` badge."""
    panel = DiffPanel([whole("/project/hello.py", HELLO_OLD, "")], CWD)
    assert snap(snap_compare, panel)


def test_control_characters(snap_compare: Any) -> None:
    """ESC, BEL, NUL, C1, a bidi override and an undecodable byte all show as visible
    symbols in the error colour (`␛ ␇ ␀ �`); nothing reaches the terminal raw."""
    old = "title = 'plain'\nbell = ''\n"
    new = (
        "title = '\x1b]0;pwned\x07'\n"
        "bell = '\x07\x00\x9b31m'\n"
        "bad = '\udcff'\n"
        "owner = 'admin\u202e // trusted'\n"
        "tab\t= 1\n"
    )
    panel = DiffPanel([whole("/project/ctl.py", old, new)], CWD)
    assert snap(snap_compare, panel)


def test_light_theme(snap_compare: Any) -> None:
    """The multi-hunk edit on textual-light: tints, word highlights and syntax colours all
    readable on the light background."""
    panel = DiffPanel([whole("/project/inventory.py", joined(MODULE_OLD), joined(MODULE_NEW))], CWD)
    assert snap(snap_compare, panel, size=(100, 40), theme="textual-light")


OPTIONS = [
    PermissionOption(option_id="once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow edit", kind="allow_always"),
    PermissionOption(option_id="no", name="Reject", kind="reject_once"),
]


def test_review_screen(snap_compare: Any) -> None:
    """The full-screen review: title bar, the diff focused (first fold shows its expand
    hint), and the key line with every option the agent gave, allow always included:
    `a Allow once  A Always allow edit  r Reject  esc back · …` on one line."""

    async def open_review(pilot: Any) -> None:
        screen = DiffReviewScreen(
            [whole("/project/inventory.py", joined(MODULE_OLD), joined(MODULE_NEW))],
            CWD,
            "Permission · ✎ Edit inventory.py",
            options=assign_keys(OPTIONS),
        )
        await pilot.app.push_screen(screen)
        await settle(pilot)

    assert snap(snap_compare, size=(100, 30), run_before=open_review)


# A mid-file edit of a 40-line module: `return total` on line 18 becomes `return total * 2`.
MID_LINES = [f"# line {n}" for n in range(1, 41)]
MID_LINES[12:20] = [
    "def total_of(items):",
    '    """Sum the counts."""',
    "    total = 0",
    "    for item in items:",
    "        total += item.count",
    "    return total",
    "",
    "",
]
MID_OLD = "\n".join(MID_LINES[14:21])  # the hunk: 3 lines of context on each side of line 18
MID_NEW = MID_OLD.replace("return total", "return total * 2")
MID_FILE = joined(MID_LINES)


def test_mid_file_edit_numbered_by_meta(snap_compare: Any) -> None:
    """A hunk that carries `_meta["dsh.line"]` (dsh-agent): numbered 15-21 on both sides,
    `return total` removed and added on line 18, no note in the header."""
    panel = DiffPanel([DiffContent("/project/totals.py", MID_OLD, MID_NEW, 15, 15)], CWD)
    assert snap(snap_compare, panel, size=(100, 12))


def test_mid_file_edit_numbered_by_anchoring(snap_compare: Any, snapshot_workspace: Path) -> None:
    """A foreign agent's `old_string`/`new_string` snippet with no position, pending: its
    `oldText` is found once in the file on disk, so the rows read 18 (`- return total`,
    `+ return total * 2`), the line it really is on."""
    path = snapshot_workspace / "totals.py"
    path.write_text(MID_FILE)
    anchoring = Anchoring("before", WorkspaceFiles([snapshot_workspace]))
    item = DiffContent(str(path), "    return total", "    return total * 2")
    panel = DiffPanel([item], snapshot_workspace, anchoring=anchoring)
    assert snap(snap_compare, panel, size=(100, 12))


def test_mid_file_edit_unknown(snap_compare: Any) -> None:
    """The same hunk where nothing tells its place (a file outside the workspace): the
    gutter shows `?` instead of numbers and the header says `line numbers unknown`; never
    a count from 1."""
    item = DiffContent("/elsewhere/totals.py", MID_OLD, MID_NEW)
    anchoring = Anchoring("before", WorkspaceFiles([CWD]))
    panel = DiffPanel([item], CWD, anchoring=anchoring)
    assert snap(snap_compare, panel, size=(100, 12))


# -- behaviour -------------------------------------------------------------------------------


def edit_panel(**kw: Any) -> DiffPanel:
    return DiffPanel(
        [whole("/project/inventory.py", joined(MODULE_OLD), joined(MODULE_NEW))], CWD, **kw
    )


def fold_rows(panel: DiffPanel) -> list[int]:
    """Where the folds are on screen (`⋯ 12 unchanged lines`)."""
    return [y for y, line in enumerate(screen_lines(panel)) if "unchanged line" in line]


async def test_enter_and_click_expand_folds() -> None:
    panel = edit_panel()
    app = DiffHost(panel)
    async with app.run_test(size=(100, 60)) as pilot:
        await diff_on_screen(pilot, panel)
        before = panel.virtual_size.height
        assert len(fold_rows(panel)) == 4
        assert panel.model is not None and panel.model.fold_count == 4
        panel.focus()
        await pilot.press("enter")  # expands the first fold on screen
        assert len(fold_rows(panel)) == 3
        assert panel.virtual_size.height > before
        await pilot.click(DiffPanel, offset=(10, fold_rows(panel)[0]))
        assert len(fold_rows(panel)) == 2
        await pilot.press("e")
        assert fold_rows(panel) == []
        # Header, every new line, and the removed lines: nothing is hidden any more.
        assert panel.virtual_size.height == 1 + len(MODULE_NEW) + panel.model.removed


async def test_auto_split_by_width_and_s_toggles() -> None:
    wide = edit_panel()
    async with DiffHost(wide).run_test(size=(150, 40)) as pilot:
        await diff_on_screen(pilot, wide)
        assert wide.is_split and any(isinstance(r, SplitRow) for r in diff_rows(wide))
        wide.focus()
        await pilot.press("s")
        assert not wide.is_split and wide.view == "unified"
        await pilot.press("s")
        assert wide.is_split and wide.view == "split"
    narrow = edit_panel()
    async with DiffHost(narrow).run_test(size=(100, 40)) as pilot:
        await narrow.wait_ready()
        assert not narrow.is_split


async def test_a_new_file_is_never_split() -> None:
    """No old side, no split: half the width would be hatching, at any width and after `s`;
    a panel with a new file beside an edit stays unified in "auto" too."""
    new_file = DiffPanel([whole("/project/src/inventory.py", None, joined(MODULE_OLD))], CWD)
    async with DiffHost(new_file).run_test(size=(200, 40)) as pilot:
        await diff_on_screen(pilot, new_file)
        assert not new_file.can_split and not new_file.is_split
        assert not any(isinstance(r, SplitRow) for r in diff_rows(new_file))
        new_file.focus()
        await pilot.press("s")
        assert not new_file.is_split
        assert not any(isinstance(r, SplitRow) for r in diff_rows(new_file))
    mixed = DiffPanel(
        [
            whole("/project/hello.py", HELLO_OLD, HELLO_NEW),
            whole("/project/src/inventory.py", None, joined(MODULE_OLD)),
        ],
        CWD,
    )
    async with DiffHost(mixed).run_test(size=(200, 40)) as pilot:
        await diff_on_screen(pilot, mixed)
        assert mixed.can_split and not mixed.is_split
        mixed.focus()
        await pilot.press("s")
        assert mixed.is_split  # asked for: the edited file splits


async def test_n_and_p_jump_between_changes() -> None:
    panel = edit_panel(max_height=8)
    async with DiffHost(panel).run_test(size=(100, 30)) as pilot:
        await diff_on_screen(pilot, panel)
        panel.focus()
        await pilot.press("n")
        first = panel.scroll_y
        assert first > 0
        await pilot.press("n")
        assert panel.scroll_y > first
        await pilot.press("p")
        assert panel.scroll_y == first


async def test_set_items_reuses_the_model_and_ignores_repeats() -> None:
    items = [whole("/project/hello.py", HELLO_OLD, HELLO_NEW)]
    panel = DiffPanel(items, CWD)
    async with DiffHost(panel).run_test() as pilot:
        await panel.wait_ready()
        model = panel.model
        # A tool_call_update resends equal content in new string objects: nothing to do.
        panel.set_items([whole("/project/hello.py", "".join(HELLO_OLD), "".join(HELLO_NEW))])
        assert panel.model is model
        other = [whole("/project/hello.py", HELLO_OLD, HELLO_NEW + "# more\n")]
        panel.set_items(other)
        await diff_on_screen(pilot, panel)
        assert panel.model is not model and panel.model is not None
        assert panel.model.added == 2
        panel.set_items(items)  # seen before: applied at once from the cache
        assert panel.model is model
        # A new card for the same content shares the model too (and its highlighting).
        again = DiffPanel(list(items), CWD)
        assert again.model is model


async def test_no_raw_control_character_is_rendered() -> None:
    new = "a = '\x1b]52;c;ZXZpbA==\x07\x1b[2J'\nb = '\x9b\x85\u202e\udcff\x00'\n"
    panel = DiffPanel([whole("/project/x.py", None, new)], CWD)
    async with DiffHost(panel).run_test() as pilot:
        await diff_on_screen(pilot, panel)
        rendered = "".join(panel.render_line(y).text for y in range(panel.virtual_size.height))
        assert "pwn" not in rendered
        bad = [
            c
            for c in rendered
            if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF
        ]
        assert bad == []
        assert "\u241b]52;c;ZXZpbA==\u2407" in rendered  # visible, not executed


async def test_a_failed_build_shows_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(diff_panel_module, "build_model", broken)
    panel = DiffPanel([whole("/project/never.py", "a\n", "b\n")], CWD)
    async with DiffHost(panel).run_test() as pilot:
        await diff_on_screen(pilot, panel)
        assert panel.model is None
        assert "diff unavailable" in panel.render_line(0).text


@pytest.mark.parametrize(
    ("key", "expected"), [("a", "once"), ("A", "always"), ("r", "no"), ("escape", None)]
)
async def test_review_screen_dismisses_with_the_chosen_option(
    key: str, expected: str | None
) -> None:
    """Every option the agent offered is one key away, allow always included."""
    results: list[str | None] = []
    app = DiffHost()
    async with app.run_test() as pilot:
        screen = DiffReviewScreen(
            [whole("/project/hello.py", HELLO_OLD, HELLO_NEW)],
            CWD,
            "Edit",
            options=assign_keys(OPTIONS),
        )
        await app.push_screen(screen, results.append)
        await diff_on_screen(pilot, screen.panel)
        await pilot.press(key)
        await pilot.pause()
        assert results == [expected]
        assert app.screen is not screen


async def test_header_stays_on_top_while_scrolling() -> None:
    panel = edit_panel(max_height=8)
    async with DiffHost(panel).run_test(size=(100, 30)) as pilot:
        await diff_on_screen(pilot, panel)
        panel.scroll_to(y=10, animate=False)
        await pilot.pause()
        assert panel.scroll_y == 10
        assert panel.render_line(0).text.startswith(" inventory.py  +3 \u22122")
        assert panel.render_line(1).text.split()[:2] == ["30", "30"]  # row 11, under the fold


async def test_theme_change_recolours_cached_lines() -> None:
    panel = DiffPanel([whole("/project/hello.py", HELLO_OLD, HELLO_NEW)], CWD)
    app = DiffHost(panel)
    async with app.run_test() as pilot:
        await diff_on_screen(pilot, panel)
        dark = list(panel.render_line(5))
        app.theme = "textual-light"
        await pilot.pause()
        light = list(panel.render_line(5))
        assert [s.text for s in dark] == [s.text for s in light]
        assert [s.style for s in dark] != [s.style for s in light]


async def test_ascii_glyphs_leave_no_unicode_chrome() -> None:
    """Header minus sign, folds, divider, filler and scroll markers all have ASCII forms."""
    panel = edit_panel(glyphs=ASCII_GLYPHS, max_height=12)
    async with DiffHost(panel).run_test(size=(150, 40)) as pilot:
        await diff_on_screen(pilot, panel)
        assert panel.is_split
        top = "".join(panel.render_line(n).text for n in range(12))
        panel.scroll_to(x=20, y=10, animate=False)
        await pilot.pause()
        scrolled = "".join(panel.render_line(n).text for n in range(12))
        assert "... 5 unchanged lines" in top and "+3 -2" in top
        assert top.isascii() and scrolled.isascii()


async def test_very_long_lines_render_the_visible_slice() -> None:
    """A 2,000-character line is cut to what is on screen, at the scrolled offset."""
    line = "a" * 1000 + "MARK" + "b" * 1000
    panel = DiffPanel([whole("/project/min.js", None, line + "\n")], CWD)
    async with DiffHost(panel).run_test(size=(100, 10)) as pilot:
        await diff_on_screen(pilot, panel)
        panel.scroll_to(x=998, animate=False)
        await pilot.pause()
        text = panel.render_line(1).text
        gutter = 2 * 1 + 4
        assert text[gutter] == "\u2039" and text.endswith("\u203a")
        assert text[gutter + 1 : gutter + 7] == "aMARKb"
        assert len(text) == panel.size.width


async def test_far_rows_show_plain_then_coloured_from_the_lexing_thread() -> None:
    code = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(400))
    panel = DiffPanel([whole("/project/big.py", None, code)], CWD, max_height=10)
    async with DiffHost(panel).run_test() as pilot:
        await diff_on_screen(pilot, panel)
        panel.scroll_to(y=700, animate=False)
        plain = panel.render_line(3)  # block not lexed yet: drawn at once, uncoloured
        await diff_drawn(pilot, panel)
        await pilot.pause()
        coloured = panel.render_line(3)
        assert plain.text == coloured.text
        colours = [{s.style.color for s in strip if s.text.strip()} for strip in (plain, coloured)]
        assert len(colours[1]) > len(colours[0])
