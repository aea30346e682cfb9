"""The palette's "Switch agent…": the catalogue (tui/catalogue/rows.py) in a fuzzy picker, and a
new session on the chosen agent: the current one stopped, the chosen command started with its
environment. While a turn runs it asks first; an agent that cannot run here says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.markup import escape

from tui.catalogue import live
from tui.catalogue.choice import AgentChoice
from tui.catalogue.rows import AgentRow, agent_rows
from tui.settings_cli import cache_dir, data_dir
from tui.user_config import config_path, load
from tui.widgets.choice import ChoiceScreen

if TYPE_CHECKING:
    from tui.session_app import SessionApp


def open_catalogue(app: SessionApp) -> None:
    rows = agent_rows(load(config_path()), live.current(cache_dir()), data_dir())
    # The palette reads titles and help as markup: a name from the file or the registry is not.
    commands = [(escape(row.title), _chooser(app, row), escape(row.note)) for row in rows]
    app.search_commands(commands, placeholder="Switch to which agent?")


def _chooser(app: SessionApp, row: AgentRow) -> Callable[[], None]:
    return lambda: chosen(app, row)


def chosen(app: SessionApp, row: AgentRow) -> None:
    choice = row.choice
    if choice is None:
        app.notify(f"Cannot run {row.title} here: {row.why}", severity="warning", markup=False)
        return
    if not app.controller.turn_running:
        app.run_worker(switch_to(app, choice), group="new-session", exclusive=True)
        return

    def answered(value: str | None) -> None:
        if value == "switch":
            app.run_worker(switch_to(app, choice), group="new-session", exclusive=True)

    options = [("switch", f"Stop the turn and switch to {row.title}"), ("stay", "Keep going")]
    app.push_screen(ChoiceScreen("A turn is running", options, None), answered)


async def switch_to(app: SessionApp, choice: AgentChoice) -> None:
    """Like `/new`, on another agent: the old one stopped first, the transcript cleared."""
    await app.stop_agent()
    app.config = dataclasses.replace(
        app.config,
        agent_command=choice.command_line,
        agent_env=choice.env,
        agent_mode=choice.mode,
        agent_model=choice.model,
    )
    app.reset_conversation()
    app.start_agent(None)
    app.notify(f"Switched to {choice.label or choice.command_line}.", markup=False)
