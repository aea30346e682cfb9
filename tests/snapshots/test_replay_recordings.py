"""The bundled recordings through the pytest plugin (tui/pytest_plugin.py), as an agent author
uses it: no agent runs, and the cards are the ones the live demo drew."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import holding
from tui.pytest_plugin import LIVE_WORKSPACE, PINNED_TIME, CardsFactory

RECORDINGS = Path(__file__).parents[2] / "tui" / "replay" / "recordings"


@pytest.mark.parametrize("name", ["demo-terminal-on", "demo-terminal-off"])
def test_bundled_recording(snap_compare: Any, dsh_tui_cards: CardsFactory, name: str) -> None:
    """Every card of the demo, the whole transcript."""
    dsh_tui_cards.size = (100, 230)
    cards = dsh_tui_cards.replay(RECORDINGS / f"{name}.jsonl")
    assert snap_compare(cards.app, terminal_size=cards.size, run_before=cards.run_before)


def test_readme_example(snap_compare: Any, dsh_tui_cards: CardsFactory) -> None:
    """docs/testing.md's example as an agent author copies it: the plugin's default size."""
    cards = dsh_tui_cards.replay(RECORDINGS / "demo-terminal-on.jsonl")
    assert snap_compare(cards.app, terminal_size=cards.size, run_before=cards.run_before)


def test_the_plugin_is_registered_by_its_entry_point(pytestconfig: pytest.Config) -> None:
    plugins = importlib.metadata.entry_points(group="pytest11")
    assert [p.value for p in plugins if p.name == "dsh_tui"] == ["tui.pytest_plugin"]
    assert pytestconfig.pluginmanager.has_plugin("dsh_tui")


def test_the_plugin_imports_no_textual() -> None:
    """Loaded into every pytest run of a project that has dsh-tui installed, it must cost
    nothing there: the client is imported only when the fixture is used."""
    code = (
        "import sys, tui.pytest_plugin\n"
        "print(sorted(m for m in sys.modules if m.startswith(('textual', 'acp', 'tui.app'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture
def live_workspace() -> Iterator[Path]:
    """The plugin's fixed LIVE_WORKSPACE, held by this test alone (see support.holding)."""
    with holding(LIVE_WORKSPACE) as workspace:
        yield workspace


async def test_live_cards(dsh_tui_cards: CardsFactory, live_workspace: Path) -> None:
    """`live` plays the prompts against a real agent process to their end."""
    from tui.widgets.cards.tool_card import ToolCard

    agent = f"{sys.executable} -m agent.cli --mode full-access"
    cards = dsh_tui_cards.live(agent, ["demo"], terminal=False)
    async with cards.app.run_test(size=cards.size) as pilot:
        await cards.run_before(pilot)
        assert (
            len(cards.app.query(ToolCard)) == len(cards.app.controller.conversation.tool_calls) > 5
        )
        assert cards.app.transcript.scroll_y == 0
        await cards.app.action_quit()


def test_stepping(snap_compare: Any, tmp_path: Path) -> None:
    """`dsh-tui replay --step`: four steps in (a thought, a reply, a tool call, a reply), the
    closed prompt and the footer say how to go on."""
    from support import wait_until
    from tui.pytest_plugin import settle
    from tui.replay.app import replay_app

    app = replay_app(
        RECORDINGS / "demo-terminal-on.jsonl", step=True, log_dir=tmp_path, **PINNED_TIME
    )

    async def run(pilot: Any) -> None:
        from tui.widgets.prompt.prompt import PromptArea

        await wait_until(pilot, lambda: app.query_one(PromptArea).disabled)
        await wait_until(pilot, lambda: app.controller.session is not None)
        # Each press plays until the next step starts: wait until the replay waits again.
        for _ in range(4):
            played = app.replay.agent.played
            await pilot.press("n")
            await wait_until(pilot, lambda played=played: app.replay.agent.played > played)
            await wait_until(pilot, lambda: app.replay.agent.waiting)
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run)
