"""The glyphs of terminal panes and tool cards, in one table, with their ASCII fallbacks."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ASCII_GLYPHS", "SPINNER", "UNICODE_GLYPHS", "TerminalGlyphs"]

# The running spinner of cards and panes alike; both advance it on the transcript's one tick.
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


@dataclass(frozen=True)
class TerminalGlyphs:
    """What a pane's header and info line draw: `❯ cmd`, `✓ exit 0`, `✕ exit 1`, `⠋ running`."""

    prompt: str = "❯"
    ok: str = "✓"
    fail: str = "✕"
    done: str = "■"
    info: str = "▮"
    sep: str = "·"
    spinner: str = SPINNER


UNICODE_GLYPHS = TerminalGlyphs()
ASCII_GLYPHS = TerminalGlyphs(">", "ok", "x", "#", "#", "-", "|/-\\")
