"""Which agent `--agent VALUE` means: a named agent from the settings file, a registry id, or a
command line, in that order. Pure: no Textual, no SDK.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.catalogue.registry import Registry, best_launch, launches
from tui.user_config import UserConfig


@dataclass(frozen=True)
class AgentChoice:
    """The argv and environment to start, and what they came from."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    origin: str = "command line"  # "named agent", "registry", or "command line"
    label: str = ""
    mode: str | None = None
    model: str | None = None
    runnable: bool = True
    why: str = ""

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)


def choose_agent(
    value: str,
    config: UserConfig,
    registry: Registry,
    data_dir: Path,
    which: Callable[[str], str | None] = shutil.which,
) -> AgentChoice:
    """Raises ValueError for an empty command line, or a registry agent with no distribution."""
    named = config.agents.get(value)
    if named is not None:
        present = which(named.argv[0]) is not None or "/" in named.argv[0]
        why = "" if present else f"{named.argv[0]} not found on PATH"
        return AgentChoice(
            named.argv, named.env, "named agent", named.name, named.mode, named.model, present, why
        )
    agent = registry.get(value)
    if agent is not None:
        launch = best_launch(launches(agent, data_dir, which))
        if launch is None:
            raise ValueError(f"registry agent {value} has no distribution dsh-tui can run")
        label = f"{agent.name} {agent.version}"
        return AgentChoice(
            launch.argv, launch.env, "registry", label, runnable=launch.runnable, why=launch.why
        )
    argv = tuple(shlex.split(value))
    if not argv:
        raise ValueError("the agent command is empty")
    return AgentChoice(argv, label=argv[0])
