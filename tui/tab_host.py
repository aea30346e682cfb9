"""The tabs of one window: which sessions there are, which one is shown, and what each is doing.

Each tab is a `SessionPane` with its own agent, connection and transcript; only the shown one is
displayed, so a background tab keeps its state (the transcript's entries, the questions) up to
date without its widgets being laid out or painted. The host follows each pane's events
(`SessionPane.Event`) to keep the tab bar true: a question waiting in a background tab marks it
and is notified, naming the tab; a turn that ends there marks it "finished while you were away"
until it is shown.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

from tui.sanitize import clean_line
from tui.session.events import (
    Connected,
    Connecting,
    Failed,
    PermissionAsked,
    PermissionClosed,
    SessionEvent,
    TurnEnded,
    TurnStarted,
)
from tui.session_pane import SessionPane
from tui.tabs.marks import TabInfo, TabState


@dataclass
class Tab:
    pane: SessionPane
    agent: str
    state: TabState = TabState.CONNECTING
    waiting_since: float | None = None  # when its oldest open question was asked
    running: bool = False
    # Set once the tab is shown: a whole-screen question (a login, the session picker) of a
    # tab out of sight waits for it, rather than opening over the tab the user looks at.
    in_sight: asyncio.Event | None = None

    @property
    def directory(self) -> str:
        """The directory's name, as one safe line (a name can hold any character)."""
        return clean_line(self.pane.config.cwd.name or str(self.pane.config.cwd))

    def info(self) -> TabInfo:
        return TabInfo(self.agent, self.directory, self.state)

    @property
    def title(self) -> str:
        return f"{self.agent} · {self.directory}"


def agent_label(command_line: str) -> str:
    """A tab's agent before the agent names itself: the program's name."""
    words = command_line.split()
    return (clean_line(Path(words[0]).name) if words else "") or "agent"


@dataclass
class TabHost:
    tabs: list[Tab] = field(default_factory=list)
    active: int = 0

    @property
    def shown(self) -> Tab:
        return self.tabs[self.active]

    def add(self, pane: SessionPane) -> Tab:
        tab = Tab(pane, agent_label(pane.config.agent_command))
        self.tabs.append(tab)
        return tab

    def remove(self, pane: SessionPane) -> None:
        index = self.index_of(pane)
        del self.tabs[index]
        if self.active > index or self.active >= len(self.tabs):
            self.active = max(0, self.active - 1)

    def index_of(self, pane: SessionPane) -> int:
        return next(i for i, tab in enumerate(self.tabs) if tab.pane is pane)

    def tab_of(self, pane: SessionPane) -> Tab | None:
        return next((tab for tab in self.tabs if tab.pane is pane), None)

    def show(self, index: int) -> Tab:
        """Make tab `index` the shown one; what it finished while away is seen now."""
        self.active = index
        tab = self.shown
        if tab.state is TabState.FINISHED:
            tab.state = TabState.IDLE
        if tab.in_sight is not None:
            tab.in_sight.set()  # its question opens now, on its own tab
            tab.in_sight = None
            tab.waiting_since = None
            tab.state = TabState.CONNECTING  # logins and the picker come before the session
        return tab

    def wait_for_sight(self, pane: SessionPane) -> asyncio.Event | None:
        """For a whole-screen question of `pane`: None when its tab is shown (ask now), else
        the event its showing sets; meanwhile the tab is marked waiting, for Ctrl+G too."""
        tab = self.tab_of(pane)
        if tab is None or tab is self.shown:
            return None
        if tab.in_sight is None:
            tab.in_sight = asyncio.Event()
            tab.waiting_since = time.monotonic()
            tab.state = TabState.WAITING
        return tab.in_sight

    def follow(self, pane: SessionPane, event: SessionEvent) -> Tab | None:
        """Update the pane's tab from one of its events; the tab, if it changed."""
        tab = self.tab_of(pane)
        if tab is None:
            return None
        background = tab is not self.shown
        match event:
            case Connecting():
                tab.state = TabState.CONNECTING
            case Connected(session=session):
                agent = session.init.agent_info
                if agent is not None and agent.name:
                    tab.agent = clean_line(agent.name)
                tab.state = TabState.RUNNING if tab.running else TabState.IDLE
            case TurnStarted():
                tab.running = True
                if tab.state is not TabState.WAITING:
                    tab.state = TabState.RUNNING
            case TurnEnded():
                tab.running = False
                if tab.waiting_since is None:
                    tab.state = TabState.FINISHED if background else TabState.IDLE
            case PermissionAsked():
                if tab.waiting_since is None:
                    tab.waiting_since = time.monotonic()
                tab.state = TabState.WAITING
            case PermissionClosed(following=following):
                if following is None:
                    tab.waiting_since = None
                    tab.state = TabState.RUNNING if tab.running else TabState.IDLE
            case Failed():
                tab.running = False
                tab.waiting_since = None
                tab.state = TabState.FAILED
            case _:
                return None
        return tab

    def oldest_waiting(self) -> int | None:
        """The tab out of sight whose question has waited longest, if one waits there (the
        shown tab's question is on screen already)."""
        waiting = [
            (tab.waiting_since, i)
            for i, tab in enumerate(self.tabs)
            if tab.waiting_since is not None and tab is not self.shown
        ]
        return min(waiting)[1] if waiting else None

    def running_elsewhere(self) -> list[Tab]:
        """The tabs other than the shown one with a turn running."""
        return [tab for tab in self.tabs if tab.running and tab is not self.shown]
