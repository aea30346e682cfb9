"""The review screen's key line offers only keys that do something there: `s` switches split
and unified, so a review of new files only (never shown split) does not offer it."""

from __future__ import annotations

from pathlib import Path

from tui.diffing import DiffContent
from tui.widgets.diff_review import DiffReviewScreen

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
