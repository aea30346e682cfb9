"""A real `ls --color=auto` run by the client's terminal manager on a pty, in its pane.

The command runs in tests/fixtures/coloured_ls/ (two directories, an executable, plain files)
with a fixed `LS_COLORS` and `LC_ALL=C`, on a pty as wide as the pane (72 columns), so `ls`
colours and lays out its columns as in a terminal. The pane's header times the run on a fixed
clock (0 to 1.25 s), since a real run's duration varies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from support import wait_until
from tui.terminal.source import SpecTerminal, TerminalFacts, TerminalFeed
from tui.terminal.terminals import TerminalManager
from tui.widgets.terminal.pane import TerminalPane

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "coloured_ls"
SIZE = (80, 14)
LS_COLORS = "di=01;34:ex=01;32:*.md=00;33"


class FixedClock:
    """A spec terminal whose header facts say it ran from 0 to 1.25 s."""

    def __init__(self, source: SpecTerminal) -> None:
        self.source = source

    @property
    def terminal_id(self) -> str:
        return self.source.terminal_id

    @property
    def output(self) -> TerminalFeed:
        return self.source.output

    def facts(self) -> TerminalFacts:
        facts = self.source.facts()
        end = facts.end and dataclasses.replace(facts.end, finished_at=1.25)
        return dataclasses.replace(facts, started_at=0.0, end=end)

    def watch(self, on_change: Callable[[], None]) -> Callable[[], None]:
        return self.source.watch(on_change)


class PaneApp(App[None]):
    CSS = "Screen { padding: 1 2; }"

    def on_load(self) -> None:
        self.theme = "textual-dark"

    def compose(self) -> ComposeResult:
        return iter(())


def test_coloured_ls(snap_compare: Any) -> None:
    """`❯ ls --color=auto`, `✓ exit 0 · 1.2 s`; on one row, `docs` and `src` in the theme's
    bold blue, `build.sh` in bold green, `README.md` in its yellow, the rest plain."""
    app = PaneApp()
    manager = TerminalManager(pty_size=(72, 20))

    async def run(pilot: Any) -> None:
        env = {"LS_COLORS": LS_COLORS, "LC_ALL": "C"}
        tid = await manager.create("ls", ["--color=auto"], env=env, cwd=FIXTURE)
        await manager.wait_for_exit(tid)
        assert "\x1b[01;34m" in manager.output(tid).output
        source = FixedClock(SpecTerminal(manager, tid))
        pane = TerminalPane(source, session_cwd=FIXTURE, clock=lambda: 0.0, started_at=0.0)
        await app.mount(pane)
        await pilot.pause()
        await wait_until(pilot, lambda: not pane.busy)
        await pilot.pause()
        await manager.close_all()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
