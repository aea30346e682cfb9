"""`dsh-tui demo`: the bundled case of `dsh-tui compare` (tui/widgets/compare/).

Two sides, each its own dsh-agent (offline, full-access, in its own scratch workspace) playing
the bundled demo. The left side advertises every capability, the right one all but the
terminal, so the same commands arrive as live terminal panes on one side and as the agent's
console fallback on the other.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tui.compare.capability_set import parse_side
from tui.compare.setup import CompareSetup, SideSetup
from tui.compare.workspaces import SideWorkspaces
from tui.widgets.compare.screen import CompareApp
from tui.widgets.compare.side import CompareSide

RECORDINGS = Path(__file__).parent / "replay" / "recordings"  # what `demo --replay` plays
# Found on PATH, else beside the running interpreter, as dsh-tui finds its default agent.
DEMO_AGENT = "dsh-agent --mode full-access"
# One line at 80 columns.
LEGEND = "dsh-tui demo · left: terminal capability on · right: off (console fallback)"
# The demo has no prompt: once both sides are done, the legend says where there is one.
FINISHED = "dsh-tui demo · done · F5 plays it again · q quits · `dsh-tui` to type yourself"
SIDES = (
    ("terminal-on", "all", "terminal on"),
    ("terminal-off", "no-terminal", "terminal off → console fallback"),
)

DemoSide = CompareSide


def demo_setup(
    root: Path | None = None,
    log_dir: Path | None = None,
    replay: bool = False,
    pace: float = 0.0,
) -> CompareSetup:
    """Both sides' workspaces under `root` (a fresh temporary one, removed on quit, if None)."""
    owned = root is None
    base = Path(tempfile.mkdtemp(prefix="dsh-demo-")) if root is None else root
    copies = [base / name for name, _, _ in SIDES]
    for copy in copies:
        copy.mkdir(parents=True, exist_ok=True)
    sides = tuple(
        SideSetup(
            DEMO_AGENT,
            parse_side(spec),
            title,
            replay=RECORDINGS / f"demo-{name}.jsonl" if replay else None,
        )
        for name, spec, title in SIDES
    )
    return CompareSetup(
        sides,
        SideWorkspaces(base, copies, None, owned=owned),
        LEGEND,
        finished=FINISHED,
        first_prompt="demo",
        prompt_box=False,
        stay_connected=False,  # one turn, then each connection closes and its agent is reaped
        pace=pace,
        log_dir=log_dir,
    )


class DemoApp(CompareApp):
    TITLE = "dsh-tui demo"

    def __init__(
        self,
        root: Path | None = None,
        log_dir: Path | None = None,
        theme: str = "textual-dark",
        clock: Callable[[], float] = time.monotonic,
        replay: bool = False,
        agent_durations: bool = True,
        pace: float = 0.0,
    ) -> None:
        super().__init__(
            demo_setup(root, log_dir, replay, pace),
            theme=theme,
            clock=clock,
            agent_durations=agent_durations,
        )
