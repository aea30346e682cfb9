"""The review screen's key line offers only keys that do something there: `s` switches split
and unified, so a review of new files only (never shown split) does not offer it."""

from __future__ import annotations

from pathlib import Path

from tui.diff.diffing import DiffContent
from tui.widgets.diff.review import DiffReviewScreen

CWD = Path("/project")


def keys(items: list[DiffContent]) -> str:
    return DiffReviewScreen(items, CWD, "Review").keys_hint().plain


def test_a_review_of_new_files_only_does_not_offer_split() -> None:
    shown = keys(
        [DiffContent("/project/a.py", None, "x\n"), DiffContent("/project/b.py", None, "y\n")]
    )
    assert "split" not in shown
    assert shown == "esc back · n/p change · e expand"


def test_a_review_with_an_edit_offers_split() -> None:
    edited = DiffContent("/project/a.py", "x\n", "y\n", 1, 1)
    assert "s split/unified" in keys([DiffContent("/project/b.py", None, "y\n"), edited])


async def test_the_key_line_is_one_row_at_80_columns() -> None:
    from acp.schema import PermissionOption
    from textual.app import App

    from tui.permissions import assign_keys
    from tui.widgets.diff.review import ReviewKeys

    options = [
        PermissionOption(option_id="once", name="Allow once", kind="allow_once"),
        PermissionOption(
            option_id="always", name="Always allow write in this session", kind="allow_always"
        ),
        PermissionOption(option_id="no", name="Reject", kind="reject_once"),
    ]
    screen = DiffReviewScreen(
        [DiffContent("/project/a.py", None, "x\n")], CWD, "Review", options=assign_keys(options)
    )
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        line = screen.query_one(ReviewKeys)
        assert line.outer_size.height == 1
        assert str(line.render()) == (
            "a allow  A always  r reject  esc back · n/p change · e expand"
        )
    wide = App[None]()
    async with wide.run_test(size=(140, 24)) as pilot:
        screen = DiffReviewScreen(
            [DiffContent("/project/a.py", None, "x\n")], CWD, "Review", options=assign_keys(options)
        )
        await wide.push_screen(screen)
        await pilot.pause()
        assert "A Always allow write in this session" in str(screen.query_one(ReviewKeys).render())
