"""What a compare screen runs: its sides and its words, built by the CLI and the demo alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tui.compare.capability_set import CapabilitySet
from tui.compare.workspaces import SideWorkspaces


@dataclass(frozen=True)
class SideSetup:
    """One side: the agent's command line and variables, what the client advertises, and
    where it works; or a recording that stands in for the agent (`demo --replay`)."""

    agent: str
    capabilities: CapabilitySet
    title: str
    env: tuple[tuple[str, str], ...] = ()
    record: Path | None = None
    replay: Path | None = None


@dataclass(frozen=True)
class CompareSetup:
    sides: tuple[SideSetup, ...]
    workspaces: SideWorkspaces
    legend: str
    # The legend once every side's first turn is over (the demo, which has no prompt box).
    finished: str | None = None
    first_prompt: str | None = None  # sent to every side as it connects
    prompt_box: bool = True
    stay_connected: bool = True  # False: each side's agent is reaped after its queued turns
    pace: float = 0.0  # seconds between tool calls on screen (tui/compare/pacing.py)
    log_dir: Path | None = None
