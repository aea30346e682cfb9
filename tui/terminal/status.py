"""A terminal pane's status: one frozen value, computed from its card and its source, and the
words the pane's header shows for it (`⠋ running`, `✕ exit 1`, `⊘ stopped`, `not run`).

The pane keeps only the value; everything here is pure, so the words are tested without a
widget.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from tui.glyphs import Glyphs
from tui.terminal.labels import signal_name

if TYPE_CHECKING:
    from tui.state import ToolCallEntry
    from tui.terminal.source import TerminalEnd

__all__ = [
    "RUNNING",
    "SETTLED_WORDS",
    "PaneStatus",
    "Phase",
    "card_status",
    "exited",
    "failure_words",
    "status_words",
]

# Settled panes (no exit status): the word for how their card ended.
SETTLED_WORDS = {
    "failed": "stopped",
    "cancelled": "cancelled",
    "rejected": "not run",
    "unfinished": "left unfinished",
}

Phase = Literal["running", "awaiting", "not_run", "settled", "exited"]


@dataclass(frozen=True, slots=True)
class PaneStatus:
    """Where the pane's command is: running, awaiting approval, ended with its card (`settled`
    with the card's word, or `not_run`), or exited with a status."""

    phase: Phase = "running"
    settled: str | None = None  # the card's word, when it ended without an exit status
    exit_code: int | None = None
    signal: str | None = None  # a name, `SIGTERM`
    timed_out_after_s: float | None = None

    @property
    def exited(self) -> bool:
        return self.phase == "exited"

    @property
    def ended(self) -> bool:
        """Exited or settled: the status no longer follows the card."""
        return self.phase in ("exited", "settled", "not_run")

    @property
    def running(self) -> bool:
        """Whether the clock runs."""
        return self.phase == "running"

    @property
    def failed(self) -> bool:
        return self.exited and (
            self.timed_out_after_s is not None
            or self.signal is not None
            or (self.exit_code is not None and self.exit_code != 0)
        )


RUNNING = PaneStatus()


def exited(end: TerminalEnd) -> PaneStatus:
    """The status of a command that ended as `end` says: an exit always wins."""
    signal = signal_name(end.signal) if end.signal else None
    return PaneStatus("exited", None, end.exit_code, signal, end.timed_out_after_s)


def card_status(previous: PaneStatus, entry: ToolCallEntry, *, had_output: bool) -> PaneStatus:
    """The status after the card changed: waiting while its permission question is open, and
    ended the moment the card ends (`not run` when the command never started). An ended status
    stays as it is; only an exit (`exited`) replaces a settled one."""
    if previous.ended:
        return previous
    if entry.status in ("pending", "in_progress"):
        return replace(previous, phase="awaiting" if entry.permission == "asked" else "running")
    ran = not entry.never_ran and "rejected" not in (entry.permission, entry.status)
    not_run = previous.phase == "awaiting" or (not ran and not had_output)
    word = SETTLED_WORDS.get(entry.status, "ended")
    return PaneStatus("not_run" if not_run else "settled", word)


def status_words(status: PaneStatus, glyphs: Glyphs, frame: int = 0) -> tuple[str, str]:
    """The header's words for the status and their style, e.g. (`✕ exit 1`, `$text-error
    bold`); `frame` picks the running spinner's glyph."""
    match status.phase:
        case "awaiting":
            return "awaiting approval", "$text-warning"
        case "not_run":
            return "not run", "$text-muted"
        case "settled":
            return f"⊘ {status.settled}", "$text-warning"
        case "running":
            spinner = glyphs.spinner
            return f"{spinner[frame % len(spinner)]} running", "$text-warning"
    if status.timed_out_after_s is not None:
        limit = status.timed_out_after_s
        shown = f"{limit:g}" if limit < 10 else f"{round(limit)}"
        return f"{glyphs.fail} timed out after {shown} s", "$text-error bold"
    if (failure := failure_words(status.exit_code, status.signal)) is not None:
        return f"{glyphs.fail} {failure}", "$text-error bold"
    if status.exit_code == 0:
        return f"{glyphs.ok} exit 0", "$text-success bold"
    return f"{glyphs.done} exited", "$text-muted"


def failure_words(exit_code: int | None, signal: str | None) -> str | None:
    """`killed by SIGTERM`, `exit 1`, or None for a clean (or unknown) exit: the words a pane's
    header and its tool card's header both give a failed command."""
    if signal is not None:
        return f"killed by {signal_name(signal)}"
    if exit_code:
        return f"exit {exit_code}"
    return None
