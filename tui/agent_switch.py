"""The palette's "Switch agent…": the catalogue (tui/catalogue/rows.py) in a fuzzy picker, and a
new session on the chosen agent: the current one stopped, the chosen command started with its
environment. While a turn runs it asks first; an agent that cannot run here says why.
"""

from __future__ import annotations

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


Command = tuple[str, Callable[[], None], str]


def catalogue_commands(app: SessionApp, take: Callable[[AgentChoice, str], None]) -> list[Command]:
    """The catalogue as palette commands: a row that runs here calls `take(choice, title)`,
    one that cannot says why (the new tab's picker takes them too)."""
    rows = agent_rows(load(config_path()), live.current(cache_dir()), data_dir())
    # The palette reads titles and help as markup: a name from the file or the registry is not.
    return [(escape(row.title), _chooser(app, row, take), escape(row.note)) for row in rows]


def _chooser(
    app: SessionApp, row: AgentRow, take: Callable[[AgentChoice, str], None]
) -> Callable[[], None]:
    def picked() -> None:
        if row.choice is None:
            app.notify(f"Cannot run {row.title} here: {row.why}", severity="warning", markup=False)
        else:
            take(row.choice, row.title)

    return picked


def open_catalogue(app: SessionApp) -> None:
    commands = catalogue_commands(app, lambda choice, title: chosen(app, choice, title))
    app.search_commands(commands, placeholder="Switch to which agent?")


def chosen(app: SessionApp, choice: AgentChoice, title: str) -> None:
    if not app.controller.turn_running:
        app.run_worker(switch_to(app, choice), group="new-session", exclusive=True)
        return

    def answered(value: str | None) -> None:
        if value == "switch":
            app.run_worker(switch_to(app, choice), group="new-session", exclusive=True)

    options = [("switch", f"Stop the turn and switch to {title}"), ("stay", "Keep going")]
    app.push_screen(ChoiceScreen("A turn is running", options, None), answered)


async def switch_to(app: SessionApp, choice: AgentChoice) -> None:
    """Like `/new`, on another agent: the old one stopped first, the transcript cleared."""
    await app.stop_agent()
    app.config = app.config.with_agent(choice)
    app.reset_conversation()
    app.start_agent(None)
    app.notify(f"Switched to {choice.label or choice.command_line}.", markup=False)
