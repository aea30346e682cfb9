"""Every symbol the transcript draws, in one table, with the ASCII fallback beside it.

Terminal panes and tool cards read the prompt, status and spinner glyphs; the diff panel reads
its fold, gutter and scroll marks; the plan reads its status marks. One table means a terminal
without good Unicode fonts swaps them all at once.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ASCII_GLYPHS", "SPINNER", "STATUS_GLYPHS", "UNICODE_GLYPHS", "Glyphs"]

# The running spinner of cards and panes alike; both advance it on the transcript's one tick.
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

# A plan entry's status: its mark and the mark's colour.
STATUS_GLYPHS = {
    "completed": ("✓", "green"),
    "in_progress": ("●", "yellow"),
    "pending": ("○", "dim"),
}


@dataclass(frozen=True, slots=True)
class Glyphs:
    """A pane's header and info line (`❯ cmd`, `✓ exit 0`, `✕ exit 1`, `⠋ running`) and the
    diff panel's folds (`⋯`), gutter, split filler, gaps and scroll marks."""

    prompt: str = "❯"
    ok: str = "✓"
    fail: str = "✕"
    done: str = "■"
    info: str = "▮"
    sep: str = "·"
    spinner: str = SPINNER
    fold: str = "\u22ef"
    minus: str = "\u2212"
    divider: str = "\u2502"
    filler: str = "\u2571"
    gap: str = "\u2504"
    more_left: str = "\u2039"
    more_right: str = "\u203a"
    dot: str = "\u00b7"


UNICODE_GLYPHS = Glyphs()
# In field order: the pane's seven, then the diff panel's eight.
ASCII_GLYPHS = Glyphs(
    ">", "ok", "x", "#", "#", "-", "|/-\\", "...", "-", "|", "/", "-", "<", ">", "-"
)
