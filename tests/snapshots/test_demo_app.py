"""`dsh-tui demo`: both sides complete, offline, and differ only where the capability says."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import holding, wait_until
from tui.demo import DemoApp, DemoSide
from tui.pytest_plugin import PINNED_TIME, settle_cards
from tui.widgets.cards.text import CardText
from tui.widgets.diff.panel import DiffPanel
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.conversation import ConversationView

DEMO_ROOT = Path("/tmp/dsh-snapshot-demo")


def console_texts(side: DemoSide) -> list[str]:
    return [
        item.content.text
        for entry in side.controller.conversation.tool_calls.values()
        for item in entry.content
        if getattr(item, "type", "") == "content" and getattr(item.content, "type", "") == "text"
    ]


async def test_demo_plays_both_sides(tmp_path: Path) -> None:
    app = DemoApp(root=tmp_path / "demo", log_dir=tmp_path / "logs")
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_until(pilot, lambda: all(side.turn_done for side in app.sides), timeout=60)
        await pilot.pause()
        left, right = app.sides
        assert left.terminal and not right.terminal
        assert left.query(TerminalPane) and not right.query(TerminalPane)
        assert left.query(DiffPanel) and right.query(DiffPanel)
        assert any(text.startswith("```console\n") for text in console_texts(right))
        assert not any(text.startswith("```console\n") for text in console_texts(left))
        assert set(left.controller.conversation.tool_calls) == set(
            right.controller.conversation.tool_calls
        )
        assert "terminal cards on" in str(left.query_one(".strip").render())
        assert "console text" in str(right.query_one(".strip").render())
        # At 55 columns a side wraps its strip's text: both strips grow alike, nothing is cut.
        heights = {side.strip.outer_size.height for side in app.sides}
        assert heights == {max(side.strip_height() for side in app.sides)} and heights != {2}
        # The pane's header keeps its room for the command: the workspace is not repeated.
        for pane in left.query(TerminalPane):
            assert "terminal-on" not in str(pane.query_one(".terminal-pane--status").render())
        # Long command output opens at its end on both sides.
        texts = list(right.query(CardText))
        assert texts and all(text.tail and not text.at_start for text in texts)
        # No prompt here: the closing words say where there is one.
        assert "`dsh-tui` to type" in str(app.query_one("#legend").render())
        await app.action_quit()


@pytest.fixture
def demo_root() -> Iterator[Path]:
    """DEMO_ROOT (its path is on screen), held by this test alone (see support.holding)."""
    with holding(DEMO_ROOT) as root:
        yield root


def test_demo_snapshot(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, demo_root: Path
) -> None:
    """Both sides after the scenario: panes on the left, console fallback on the right."""
    for side in ("terminal-on", "terminal-off"):
        for stale in (DEMO_ROOT / side).glob("*"):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale)  # the demo's own folder, dsh-demo/
            else:
                stale.unlink()
    app = DemoApp(root=DEMO_ROOT, log_dir=tmp_path, **PINNED_TIME)

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: all(side.turn_done for side in app.sides), timeout=60)
        for side in app.sides:
            await settle_cards(
                pilot, side.controller.conversation, side.query_one(ConversationView)
            )
        # Pin both sides to the top: the streamed text's final layout can differ by a line
        # between runs, which would shift an end-anchored view.
        for side in app.sides:
            side.query_one(ConversationView).scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(200, 140), run_before=run)
