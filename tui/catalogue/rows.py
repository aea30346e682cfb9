"""The rows of the agent catalogue (the palette's "Switch agent…"): the settings file's named
agents, then the registry's, each with its version and whether it can run here. Every text
from the file or the registry is cleaned here. Pure: no Textual, no SDK.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.catalogue.choice import AgentChoice, choose_agent
from tui.catalogue.registry import Registry
from tui.sanitize import clean_line
from tui.user_config import UserConfig


@dataclass(frozen=True)
class AgentRow:
    """One agent to pick: `title` and `note` for the picker, and what choosing it starts
    (None when it cannot run here; `why` says why)."""

    title: str
    note: str
    choice: AgentChoice | None
    why: str = ""


def agent_rows(
    config: UserConfig,
    registry: Registry,
    data_dir: Path,
    which: Callable[[str], str | None] = shutil.which,
) -> list[AgentRow]:
    rows: list[AgentRow] = []
    for name in config.agents:
        choice = choose_agent(name, config, registry, data_dir, which)
        rows.append(_row(f"{name} (settings file)", choice.command_line, choice))
    for agent in registry.agents:
        title = f"{agent.name} {agent.version}"
        try:
            choice = choose_agent(agent.id, config, registry, data_dir, which)
        except ValueError as error:
            rows.append(_row(title, "", None, str(error)))
            continue
        rows.append(_row(title, f"registry: {agent.id}", choice))
    return rows


def _row(title: str, note: str, choice: AgentChoice | None, why: str = "") -> AgentRow:
    if choice is not None and not choice.runnable:
        why, choice = choice.why, None
    state = "runs here" if choice is not None else f"cannot run here: {why}"
    return AgentRow(
        clean_line(title),
        clean_line(f"{state} · {note}" if note else state),
        choice,
        clean_line(why),
    )
