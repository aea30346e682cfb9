"""The app's tabs: several sessions in one window (tui/tab_host.py), their keys and bar.

Ctrl+T opens a tab (which agent, which directory), Ctrl+W closes one (asking first while a turn
runs), Ctrl+PgUp/PgDn and Alt+1…9 switch, Ctrl+G jumps to the question that has waited
longest in any tab. `DshApp` (tui/app.py) starts and stops each pane's agent; this class keeps
which pane is shown and what the bar says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.markup import escape

from tui.keys import alt_digit
from tui.session.events import PermissionAsked, SessionEvent
from tui.session_app import SessionApp
from tui.session_pane import SessionPane
from tui.tab_host import Tab, TabHost
from tui.tabs import window
from tui.tabs.priority import ShownFirst
from tui.widgets.choice import ChoiceScreen
from tui.widgets.directory import DirectoryScreen
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.tab_bar import TabBar

if TYPE_CHECKING:
    from tui.catalogue.choice import AgentChoice
    from tui.config import AppConfig

MAX_TABS = 9 * 4  # Alt+1…9 reach the first nine; the bar scrolls past its width
TAB_KEYS = frozenset(key for n in range(1, 10) for key in alt_digit(n).split(","))


class TabbedApp(SessionApp):
    tab_host: TabHost
    shown_first: ShownFirst

    # -- what the implementation provides ------------------------------------------------

    def start_pane(self, pane: SessionPane, resume: str | None) -> None:
        raise NotImplementedError

    async def stop_pane(self, pane: SessionPane) -> None:
        raise NotImplementedError

    def new_tab_pane(self, config: AppConfig) -> SessionPane:
        raise NotImplementedError

    # -- the bar -------------------------------------------------------------------------

    @property
    def tab_bar(self) -> TabBar | None:
        """The bar, or None once the app has begun to close: a pane's last events (its turn's
        end, say) can still arrive after the screen's widgets are gone."""
        for bar in self.query("#tabs").results(TabBar):
            return bar
        return None

    def refresh_tabs(self) -> None:
        host, bar = self.tab_host, self.tab_bar
        if bar is None:
            return
        bar.show_tabs([tab.info() for tab in host.tabs], host.active)
        # Alt+1…9 are the tabs' while there are several, text (£, ™…) while there is one.
        yielded = TAB_KEYS if len(host.tabs) > 1 else frozenset()
        for tab in host.tabs:
            for prompt in tab.pane.query(PromptArea):
                prompt.yielded_keys = yielded

    def follow_tab_event(self, pane: SessionPane, event: SessionEvent) -> None:
        """A pane's event, for its tab: the bar, and a notice for a question out of sight."""
        tab = self.tab_host.follow(pane, event)
        if tab is None:
            return
        self.refresh_tabs()
        if isinstance(event, PermissionAsked) and tab is not self.tab_host.shown:
            number = self.tab_host.index_of(pane) + 1
            self.notify(
                f"Tab {number} ({tab.title}) asks: {event.request.tool_call.title or 'a tool call'}"
                " · ctrl+g answers",
                title="A question is waiting",
                severity="warning",
                timeout=8,
            )

    async def in_sight(self, pane: SessionPane, what: str) -> None:
        """Return once `pane` is the shown tab. A background tab's whole-screen question (a
        login, the session picker) would otherwise open over the tab the user is looking at,
        as if that tab asked: it waits, its label marked and a notification naming it."""
        shown = self.tab_host.wait_for_sight(pane)
        if shown is None:
            return
        self.refresh_tabs()
        self.refresh_bindings()  # the footer's Ctrl+G
        tab = self.tab_host.tab_of(pane)
        if tab is not None:
            number = self.tab_host.index_of(pane) + 1
            self.notify(
                f"Tab {number} ({tab.title}) asks: {what} · ctrl+g answers",
                title="A question is waiting",
                severity="warning",
                timeout=8,
                markup=False,
            )
        await shown.wait()

    # -- opening, showing and closing tabs ------------------------------------------------

    async def open_tab(self, config: AppConfig, *, show: bool = True) -> SessionPane | None:
        if len(self.tab_host.tabs) >= MAX_TABS:
            self.notify(f"At most {MAX_TABS} tabs.", severity="warning")
            return None
        pane = self.new_tab_pane(config)
        pane.display = False
        tab = self.tab_host.add(pane)
        await self.mount(pane)
        self.start_pane(pane, config.resume)
        if show:
            self.show_tab(self.tab_host.tabs.index(tab))
        else:
            self.refresh_tabs()
        return pane

    def show_tab(self, index: int) -> None:
        host = self.tab_host
        if not 0 <= index < len(host.tabs):
            return
        shown = host.tabs[index].pane
        if not shown.display:  # its first frame shows its end, if it follows the end
            shown.transcript.before_shown(self.size.height, self.size.width)
        for position, tab in enumerate(host.tabs):
            tab.pane.display = position == index
        tab = host.show(index)
        self.pane = tab.pane
        self.shown_first.shown = tab.pane
        self.refresh_tabs()
        self.focus_pane(tab)
        self.refresh_bindings()

    def focus_pane(self, tab: Tab) -> None:
        """The keyboard to the shown tab's prompt. A question waiting there is shown without
        focus, as every question is: Tab gives it the keys, so typing on never answers it."""
        self.screen.set_focus(tab.pane.query_one(PromptArea))

    def config_for(
        self, choice: AgentChoice | None, directory: Path, resume: str | None = None
    ) -> AppConfig:
        """A new tab's settings: this tab's, with the chosen agent and directory (and the
        session to load, restoring the last window)."""
        base = dataclasses.replace(
            self.config, cwd=directory, resume=resume, started=None, notices=(), record=None
        )
        return base if choice is None else base.with_agent(choice)

    def keep_window(self) -> None:
        """The tabs for the next `--resume` (tui/tabs/window.py), when quitting."""
        path = self.config.window_path
        if path is None:
            return
        window.save(
            path,
            [
                window.SavedTab(
                    tab.pane.config.agent_command,
                    tab.pane.config.cwd,
                    tab.pane.controller.retry_resume(),
                    tab.pane.config.agent_env,
                )
                for tab in self.tab_host.tabs
            ],
        )

    async def close_tab(self, pane: SessionPane) -> None:
        """Stop the tab's agent (every process of it reaped), then take the tab away."""
        host = self.tab_host
        if len(host.tabs) < 2 or host.tab_of(pane) is None:
            return
        shown = host.shown.pane is pane
        await self.stop_pane(pane)
        host.remove(pane)
        if shown:  # another tab is the app's before this one's widgets go
            self.show_tab(host.active)
        else:
            self.refresh_tabs()
        await pane.remove()

    # -- the keys ------------------------------------------------------------------------

    def action_new_tab(self) -> None:
        from tui.agent_switch import catalogue_commands  # the catalogue: not for start-up

        this = (
            "This tab's agent",
            lambda: self._ask_directory(None),
            escape(self.config.agent_command),
        )
        others = catalogue_commands(self, lambda choice, _title: self._ask_directory(choice))
        self.search_commands([this, *others], placeholder="New tab: which agent?")

    def _ask_directory(self, choice: AgentChoice | None) -> None:
        def answered(directory: Path | None) -> None:
            if directory is not None:
                self.run_worker(self.open_tab(self.config_for(choice, directory)), group="tabs")

        self.push_screen(DirectoryScreen("New tab: which directory?", self.config.cwd), answered)

    async def action_close_tab(self) -> None:
        pane = self.pane
        if not pane.controller.turn_running:
            await self.close_tab(pane)
            return

        def answered(value: str | None) -> None:
            if value == "close":
                self.run_worker(self.close_tab(pane), group="tabs")

        options = [("close", "Stop the turn and close the tab"), ("stay", "Keep it open")]
        self.push_screen(ChoiceScreen("A turn is running in this tab", options, None), answered)

    async def fork_into_tab(self) -> None:
        """The shown session forked (session/fork) and opened in a new tab, whose own agent
        process loads the fork: each tab owns its process, and closing it reaps that one."""
        pane = self.pane
        config = self.config_for(None, pane.config.cwd)  # this tab's, whatever is shown next
        forked = await pane.controller.fork()
        if forked is None:
            return
        opened = await self.open_tab(dataclasses.replace(config, resume=forked))
        if opened is not None:
            number = self.tab_host.index_of(opened) + 1
            self.notify(f"Forked into tab {number}.", markup=False)

    def action_step_tab(self, step: int) -> None:
        host = self.tab_host
        self.show_tab((host.active + step) % len(host.tabs))

    def action_goto_tab(self, number: int) -> None:
        self.show_tab(number - 1)

    def action_jump_waiting(self) -> None:
        """Ctrl+G: the tab whose question has waited longest (Tab gives it the keys)."""
        index = self.tab_host.oldest_waiting()
        if index is None:
            self.notify("No question is waiting.")
            return
        self.clear_notifications()  # the notice that sent the user here is answered
        self.show_tab(index)

    def tab_commands(self) -> Iterator[SystemCommand]:
        """The palette's tab entries: each tab, then opening and closing one."""
        for index, tab in enumerate(self.tab_host.tabs):
            yield SystemCommand(
                escape(f"Tab {index + 1}: {tab.title}"),
                f"{tab.state.value} · alt+{index + 1}" if index < 9 else tab.state.value,
                partial(self.show_tab, index),
            )
        yield SystemCommand(
            "New tab…",
            "Another session: which agent, which directory (Ctrl+T)",
            self.action_new_tab,
        )
        if self.pane.controller.fork_refusal() is None:
            yield SystemCommand(
                "Fork into a new tab",
                "This conversation so far, in a new session of its own (session/fork)",
                lambda: self.run_worker(self.fork_into_tab(), group="tabs"),
            )
        if len(self.tab_host.tabs) > 1:
            yield SystemCommand(
                "Close tab",
                "This tab's session and its agent (Ctrl+W)",
                lambda: self.run_worker(self.action_close_tab(), group="tabs"),
            )

    def check_tab_action(self, action: str) -> bool | None:
        """None when `action` is not a tab key; else whether it does something now."""
        many = len(self.tab_host.tabs) > 1
        if action in ("close_tab", "step_tab", "goto_tab"):
            return many
        if action == "jump_waiting":
            return self.tab_host.oldest_waiting() is not None
        if action == "new_tab":
            return True
        return None
