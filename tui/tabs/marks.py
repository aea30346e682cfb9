"""A tab's state and its label, fitted to the bar's width: pure, so the bar's wording and
shrinking are tested without an app.

A label is `N mark agent · dir`: its number (Alt+N), a mark for what the session is doing, the
agent's name and the directory's. The marks differ in shape, not only colour, so they read the
same on a monochrome terminal: a question waiting is `?`, the one mark that asks for the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rich.text import Text

from tui.glyphs import SPINNER


class TabState(Enum):
    CONNECTING = "connecting"
    IDLE = "idle"
    RUNNING = "running"
    WAITING = "awaiting permission"
    FINISHED = "finished while you were away"
    FAILED = "failed"


MARKS = {
    TabState.CONNECTING: "…",
    TabState.IDLE: "·",
    TabState.WAITING: "?",
    TabState.FINISHED: "✓",
    TabState.FAILED: "✕",
}
STYLES = {
    TabState.CONNECTING: "dim",
    TabState.IDLE: "",
    TabState.RUNNING: "cyan",
    TabState.WAITING: "bold black on yellow",
    TabState.FINISHED: "green",
    TabState.FAILED: "bold red",
}
# A label never shrinks below its number, mark and this many cells of name.
MIN_NAME = 3
SEPARATOR = " │ "


@dataclass(frozen=True)
class TabInfo:
    agent: str
    directory: str
    state: TabState


def mark(state: TabState, frame: int = 0) -> str:
    if state is TabState.RUNNING:
        return SPINNER[frame % len(SPINNER)]
    return MARKS[state]


def shorten(text: str, cells: int) -> str:
    """`text` in at most `cells` cells, an ellipsis marking a cut."""
    if len(text) <= cells:
        return text
    return text[: max(0, cells - 1)] + "…" if cells > 0 else ""


def name_of(info: TabInfo, cells: int) -> str:
    """`agent · dir` in `cells`: the directory shrinks first, then the agent."""
    full = f"{info.agent} · {info.directory}"
    if len(full) <= cells:
        return full
    agent_cells = min(len(info.agent), max(MIN_NAME, cells // 2))
    rest = cells - agent_cells - 3
    if rest >= MIN_NAME:
        return f"{shorten(info.agent, agent_cells)} · {shorten(info.directory, rest)}"
    return shorten(info.agent, cells)


def label(index: int, info: TabInfo, cells: int, frame: int = 0) -> str:
    """Tab `index` (0-based; shown from 1) in at most `cells` cells."""
    head = f"{index + 1} {mark(info.state, frame)} "
    return head + name_of(info, max(MIN_NAME, cells - len(head)))


def shown_range(count: int, active: int, fits: int) -> range:
    """Which tabs the bar shows when only `fits` of `count` fit: a run holding the active."""
    fits = max(1, min(count, fits))
    start = min(max(0, active - fits // 2), count - fits)
    return range(start, start + fits)


def _layout(tabs: list[TabInfo], active: int, width: int) -> tuple[range, int, str, str]:
    """The tabs shown, each label's cells, and the counts of those left out each side."""
    smallest = len("9 ? ") + MIN_NAME
    counts_room = len("‹ 99 ") + len(" 99 ›")
    fits = len(tabs)
    while fits > 1 and fits * (smallest + len(SEPARATOR)) > width - (
        counts_room if fits < len(tabs) else 0
    ):
        fits -= 1
    shown = shown_range(len(tabs), active, fits)
    before, after = shown.start, len(tabs) - shown.stop
    left = f"‹ {before} " if before else ""
    right = f" {after} ›" if after else ""
    room = width - len(left) - len(right) - len(SEPARATOR) * (len(shown) - 1)
    return shown, max(smallest, room // len(shown)), left, right


def bar_text(tabs: list[TabInfo], active: int, width: int, frame: int = 0) -> Text:
    """The whole bar in `width` cells: every label at an equal share, shrunk to fit; past the
    width, a run of tabs around the active one, with counts of those left out each side."""
    text = Text(no_wrap=True, overflow="crop")
    if not tabs:
        return text
    shown, share, left, right = _layout(tabs, active, width)
    text.append(left, style="dim")
    for position, index in enumerate(shown):
        if position:
            text.append(SEPARATOR, style="dim")
        info = tabs[index]
        words = label(index, info, share, frame)
        style = "reverse bold" if index == active else ""
        head = f"{index + 1} "
        text.append(head, style=style)
        text.append(mark(info.state, frame), style=f"{style} {STYLES[info.state]}".strip())
        text.append(words[len(head) + 1 :], style=style)
    text.append(right, style="dim")
    text.truncate(width)
    return text


def label_spans(tabs: list[TabInfo], active: int, width: int) -> list[tuple[int, int, int]]:
    """(start, end, tab index) of each label on the bar, for a click."""
    if not tabs:
        return []
    shown, share, left, _right = _layout(tabs, active, width)
    spans, x = [], len(left)
    for position, index in enumerate(shown):
        if position:
            x += len(SEPARATOR)
        cells = len(label(index, tabs[index], share))
        spans.append((x, x + cells, index))
        x += cells
    return spans
