"""The `@` completion menu above the prompt, at 80x24 in the host app of
tests/mention_harness.py (a fixed workspace tree under tests/fixtures)."""

from __future__ import annotations

from typing import Any

from mention_harness import MentionHost

from support import wait_until
from tui.widgets.prompt.mention_menu import MentionMenu

SIZE = (80, 24)


async def type_text(pilot: Any, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)


def test_matches_with_the_second_highlighted(snap_compare: Any) -> None:
    """The prompt holds `explain @app`; above it the menu lists `src/app.py` first, then the
    directory `src/application/` (bold blue, highlighted in reverse after one Down), then
    `docs/apps.md`, `src/widgets/app_bar.py`, `tests/check_app.py` and the rest, the typed
    letters underlined in each."""

    async def run_before(pilot: Any) -> None:
        menu = pilot.app.query_one(MentionMenu)
        menu.reindex()  # built ahead here; the app builds it at the first `@`
        await wait_until(pilot, lambda: not menu.is_indexing)
        await type_text(pilot, "explain @app")
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(MentionHost(), terminal_size=SIZE, run_before=run_before)


def test_indexing(snap_compare: Any) -> None:
    """The prompt holds `@src` while the workspace is still being indexed: the menu is one
    dim "indexing…" row."""

    async def run_before(pilot: Any) -> None:
        await type_text(pilot, "@src")
        await pilot.pause()

    assert snap_compare(MentionHost(hold_index=True), terminal_size=SIZE, run_before=run_before)
