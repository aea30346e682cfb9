"""The terminal pane as it looks: exit badges, a running spinner, truncation, colours, CR.

Each case is one pane in a small host app at 80x14, with a fixed session cwd (/project), a fixed
clock (the command starts at t=0 and ends at t=1.25 s) and the spinner frozen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from support import end_display, wait_until
from tui.terminal.source import TerminalFeed, TerminalState
from tui.terminal.status import PaneStatus
from tui.widgets.terminal.pane import TerminalPane

SIZE = (80, 14)
SESSION = Path("/project")


class PaneApp(App[None]):
    CSS = "Screen { padding: 1 2; }"

    def __init__(self, pane: TerminalPane) -> None:
        super().__init__()
        self.pane = pane

    def on_load(self) -> None:
        self.theme = "textual-dark"

    def compose(self) -> ComposeResult:
        yield self.pane


def make_pane(
    command: str, *, cwd: str = "/project", max_chars: int | None = None, **kwargs: Any
) -> TerminalPane:
    """A pane following a display terminal, as a card shows an agent's command."""
    output = TerminalFeed() if max_chars is None else TerminalFeed(max_chars)
    return TerminalPane(
        TerminalState("term-1", cwd=cwd, output=output),
        command=command,
        session_cwd=SESSION,
        clock=lambda: 0.0,
        started_at=0.0,
        **kwargs,
    )


def feed(pane: TerminalPane, data: str) -> None:
    pane.source.output.append(data)


def snap(snap_compare: Any, pane: TerminalPane) -> bool:
    async def settle(pilot: Any) -> None:
        await wait_until(pilot, lambda: not pane.busy)
        await pilot.pause()

    return bool(snap_compare(PaneApp(pane), terminal_size=SIZE, run_before=settle))


def test_exit_0(snap_compare: Any) -> None:
    """`❯ python3 hello.py`, `✓ exit 0 · 1.2 s` in green (no cwd: it is the session's)."""
    pane = make_pane("python3 hello.py")
    feed(pane, "hello, world\n")
    end_display(pane, 0, duration_s=1.25)
    assert snap(snap_compare, pane)


def test_exit_3(snap_compare: Any) -> None:
    """`✕ exit 3` in the error colour, the cwd relative to the session (`scripts`)."""
    pane = make_pane("python3 check.py", cwd="/project/scripts")
    feed(pane, "checking...\nerror: 2 files differ\n")
    end_display(pane, 3, duration_s=1.25)
    assert snap(snap_compare, pane)


def test_killed_by_sigterm(snap_compare: Any) -> None:
    """`✕ killed by SIGTERM` in the error colour; the output so far stays."""
    pane = make_pane("sleep 600 && echo never")
    feed(pane, "waiting for the server\n")
    end_display(pane, None, "SIGTERM", duration_s=1.25)
    assert snap(snap_compare, pane)


def test_timeout(snap_compare: Any) -> None:
    """`✕ timed out after 60 s`, whatever the exit status of the kill was."""
    pane = make_pane("npm run dev")
    feed(pane, "> dev\n> vite\n\n  VITE ready in 312 ms\n")
    end_display(pane, None, "SIGKILL", 60, duration_s=60.0)
    assert snap(snap_compare, pane)


def test_running_with_frozen_spinner(snap_compare: Any) -> None:
    """A running command: `⠋ running · 0.0 s` in the warning colour, a partial last line."""
    pane = make_pane("pytest -q", cwd="/project/tests")
    feed(pane, "....F...\n...")
    assert snap(snap_compare, pane)


def test_truncated_output(snap_compare: Any) -> None:
    """Only the tail is kept (a 2,000-character limit): 6 rows with a scrollbar at the bottom,
    and `▮ 300 lines · 3 KB · truncated` under them."""
    pane = make_pane("seq -f 'line %03g' 300", max_rows=6, max_chars=2_000)
    feed(pane, "".join(f"line {i:03d}\n" for i in range(1, 301)))
    end_display(pane, 0, duration_s=1.25)
    assert snap(snap_compare, pane)


def test_ansi_colours(snap_compare: Any) -> None:
    """Bold blue, green, underlined red, 256-colour orange, true-colour violet, reverse video;
    the title-setting OSC and the alternate-screen switch leave no trace."""
    pane = make_pane("ls --color=always")
    feed(
        pane,
        "\x1b]0;EVIL TITLE\x07\x1b[?1049h"
        "\x1b[1;34msrc\x1b[0m  \x1b[32mrun.sh\x1b[0m  \x1b[4;31mbroken-link\x1b[0m\n"
        "\x1b[38;5;208morange\x1b[0m  \x1b[38;2;170;120;255mviolet\x1b[0m  \x1b[7mreverse\x1b[0m\n"
        "\x1b[1mbold \x1b[3mitalic\x1b[0m \x1b[2mdim\x1b[0m \x1b[9mstrike\x1b[0m\n",
    )
    end_display(pane, 0, duration_s=1.25)
    assert snap(snap_compare, pane)


def test_progress_bar_with_cr(snap_compare: Any) -> None:
    """Each `\\r` redraws the line: only the final states remain, `[####] 100%` and `done`."""
    pane = make_pane("./download.sh")
    for percent in range(0, 101, 10):
        bar = "#" * (percent // 5)
        feed(pane, f"\rdownloading [{bar:<20}] {percent:3d}%")
    feed(pane, "\n\x1b[32mdone\x1b[0m\nunpacking [##        ]  20%\runpacking [####")
    assert snap(snap_compare, pane)


def test_awaiting_approval(snap_compare: Any) -> None:
    """A permission question is open: `awaiting approval`, no spinner and no duration."""
    pane = make_pane("rm -rf build")
    pane.set_status(PaneStatus("awaiting"))
    assert snap(snap_compare, pane)


def test_rejected_is_not_run(snap_compare: Any) -> None:
    """The command was rejected, so it never started: `not run`, no clock."""
    pane = make_pane("rm -rf build")
    pane.set_status(PaneStatus("awaiting"))
    pane.set_status(PaneStatus("not_run", "stopped"))
    assert snap(snap_compare, pane)


def test_stopped_without_exit_status(snap_compare: Any) -> None:
    """`sleep 30` then Esc: the card failed, the pane's clock stopped, `⊘ stopped · 0.0 s`."""
    pane = make_pane("sleep 30")
    pane.set_status(PaneStatus("settled", "stopped"))
    assert snap(snap_compare, pane)


def test_agent_truncation_in_the_info_line(snap_compare: Any) -> None:
    """The agent gave the model only the tail of stdout: said once, in the info line, beside
    the one size figure; the output shows no `[output truncated; ...]` line."""
    pane = make_pane("seq 1 400", max_rows=6)
    feed(pane, "".join(f"{i}\n" for i in range(1, 401)))
    display = pane.source
    assert isinstance(display, TerminalState)
    display.agent_kept = (640, "stdout")  # read off the agent's `[output truncated; ...]` line
    end_display(pane, 0, duration_s=1.25)
    assert snap(snap_compare, pane)
