"""The app's configuration: what the CLI and the tests both build, one object for every switch.

Test switches live here rather than in module globals a test patches (a pane's clock and
whose durations it shows, the heap freeze), so a test states what it wants the way the CLI
does. Light: no Textual, no SDK.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tui.catalogue.choice import AgentChoice
from tui.launch import HANDSHAKE_TIMEOUT_S, AgentFailed, AgentProcess
from tui.user_config import McpServer

DEFAULT_AGENT = "dsh-agent"


@dataclass(frozen=True)
class TabSpec:
    """A tab `--tab AGENT[@DIR]` opens at start, beside the first."""

    choice: AgentChoice
    cwd: Path
    resume: str | None = None  # the session to load (the last window's, `--resume`)


@dataclass(frozen=True)
class AppConfig:
    agent_command: str = DEFAULT_AGENT
    cwd: Path = field(default_factory=Path.cwd)
    terminal: bool = True
    log_dir: Path | None = None
    theme: str = "textual-dark"
    allow_dirs: tuple[Path, ...] = ()
    resume: str | None = None  # None: new session; "": pick from the list; else a session id
    record: Path | None = None  # `--record FILE`: the wire as JSONL (tui/connection/recording.py)
    agent_env: tuple[tuple[str, str], ...] = ()  # a named or registry agent's own variables
    mcp_servers: tuple[McpServer, ...] = ()  # passed to the agent's sessions
    handshake_timeout: float = HANDSHAKE_TIMEOUT_S  # seconds for initialize and session/new
    notices: tuple[str, ...] = ()  # shown once the app is up (a settings file's problems)
    agent_mode: str | None = None  # a named agent's first mode and model (the settings file)
    agent_model: str | None = None
    # The theme and diff view kept between runs (tui/settings_store.py); None keeps nothing.
    settings_path: Path | None = None
    # Freeze the heap once the session is up (tui/heap.py). The CLI sets it; tests leave it
    # off, since a test process runs many apps and would keep every one of them.
    freeze_heap: bool = False
    # The clock terminal panes time their commands with; a snapshot test passes a fixed one
    # so a duration on screen does not depend on how fast the machine ran.
    clock: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)
    # Whether a pane shows the duration the agent measured (`dsh.duration_ms`) rather than its
    # own: a snapshot test turns it off with the fixed clock, since a real command's time
    # varies from run to run.
    agent_durations: bool = True
    # In a browser page (`dsh-tui serve`): keys the browser keeps get an Alt twin, and F1 says
    # so (tui/web_keys.py).
    web: bool = False
    # The agent the CLI started before importing the UI, or why it could not start
    # (tui/cli.py): taken by the first connection only; a retry starts a new one.
    started: AgentProcess | AgentFailed | None = field(default=None, compare=False, repr=False)
    # The other tabs to open at start (`--tab`, after the first): tui/tabbed_app.py.
    tabs: tuple[TabSpec, ...] = ()
    # Where the window's tabs are kept on quit for the next `--resume` (tui/tabs/window.py);
    # None keeps nothing (tests).
    window_path: Path | None = None

    def with_agent(self, choice: AgentChoice) -> AppConfig:
        """These settings with `choice`'s agent: its command, environment, mode and model."""
        return replace(
            self,
            agent_command=choice.command_line,
            agent_env=choice.env,
            agent_mode=choice.mode,
            agent_model=choice.model,
        )
