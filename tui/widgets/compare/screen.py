"""`dsh-tui compare` and `dsh-tui demo`: the sides, the shared prompt box, the keys."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Input, Static
from textual.worker import WorkerCancelled, WorkerFailed

from tui.compare.setup import CompareSetup
from tui.config import AppConfig
from tui.widgets import paging
from tui.widgets.compare.keys import CompareHelp
from tui.widgets.compare.side import CompareSide, StripsChanged
from tui.widgets.inspector import panel as inspector

MIN_SIDE_COLUMNS = 38
"""Below this a side's cards are cramped: the screen offers to stack the sides (F2)."""


class CompareApp(App[None]):
    TITLE = "dsh-tui compare"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        # The footer shows what fits at 80 columns; F1 lists every key.
        Binding("tab", "focus_side(1)", "Side", priority=True),
        Binding("shift+tab", "focus_side(-1)", "Side", show=False, priority=True),
        Binding("pageup", "page(-1)", "Scroll", key_display="PgUp/PgDn", priority=True),
        Binding("pagedown", "page(1)", "Scroll", show=False, priority=True),
        Binding("ctrl+end", "side_end", "End", show=False, priority=True),
        Binding("f1", "help", "Keys"),
        Binding("f2", "stack", "Stack", show=False),
        Binding("f5", "restart", "Restart"),
        Binding("f12", "inspector", "Traffic", show=False),
        # q is not a priority binding: it types in the prompt box and the inspector's filter.
        Binding("q", "quit", "Quit", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    CSS = """
    #legend { height: auto; padding: 0 1; background: $panel; text-style: bold; }
    #sides { height: 1fr; }
    #sides.-stacked { layout: vertical; }
    #prompt { height: 3; }
    """

    def __init__(
        self,
        setup: CompareSetup,
        theme: str = "textual-dark",
        clock: Callable[[], float] = time.monotonic,
        agent_durations: bool = True,
    ) -> None:
        super().__init__()
        self.setup = setup
        self.theme = theme
        self.marked = 0  # the side the scroll keys move, marked ▶
        # The switches panes read (their clock, whose durations they show), as the app's own
        # configuration carries them.
        self.config = AppConfig(
            cwd=setup.workspaces.root,
            log_dir=setup.log_dir,
            theme=theme,
            clock=clock,
            agent_durations=agent_durations,
        )

    def compose(self) -> ComposeResult:
        yield Static(self.setup.legend, id="legend")
        with Horizontal(id="sides"):
            yield from self.new_sides()
        if self.setup.prompt_box:
            yield Input(placeholder="a prompt for every side · enter sends", id="prompt")
        yield Footer()

    def new_sides(self) -> list[CompareSide]:
        setup = self.setup
        return [
            CompareSide(
                side,
                workspace,
                log_dir=setup.log_dir,
                first_prompt=setup.first_prompt,
                stay_connected=setup.stay_connected,
                pace=setup.pace,
                clock=self.config.clock,
                turn_ended=self.side_turn_ended,
            )
            for side, workspace in zip(setup.sides, setup.workspaces.copies, strict=True)
        ]

    def on_mount(self) -> None:
        self.mark(0)
        columns = self.size.width // max(len(self.setup.sides), 1)
        if columns < MIN_SIDE_COLUMNS:
            self.notify(
                f"{self.size.width} columns are too few for {len(self.setup.sides)} sides side "
                "by side: F2 stacks them",
                timeout=10,
            )
        if self.setup.prompt_box:
            self.query_one("#prompt", Input).focus()
        else:
            self.sides[0].focus()

    @property
    def sides(self) -> list[CompareSide]:
        return list(self.query(CompareSide))

    def mark(self, index: int) -> None:
        self.marked = index
        for number, side in enumerate(self.sides):
            side.mark(number == index)

    # -- the sides' news ------------------------------------------------------------

    def on_strips_changed(self, _: StripsChanged) -> None:
        self.align_strips()

    def align_strips(self) -> None:
        """Every strip as tall as the tallest needs: their text fits, and the transcripts
        still start on the same row."""
        sides = self.sides
        height = max((side.strip_height() for side in sides), default=2)
        for side in sides:
            if side.strip.styles.height is None or side.strip.outer_size.height != height:
                side.strip.styles.height = height

    def side_turn_ended(self) -> None:
        finished = self.setup.finished
        if finished is not None and all(side.turn_done for side in self.sides):
            self.query_one("#legend", Static).update(finished)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        for side in self.sides:
            side.send(text)
        event.input.value = ""

    # -- keys -----------------------------------------------------------------------

    SIDE_ACTIONS = frozenset({"focus_side", "page", "side_end"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The side keys are the sides' only on the sides' own screen, and not while the
        traffic inspector has the focus: there Tab and PageUp are its own."""
        if action not in self.SIDE_ACTIONS:
            return True
        if self.screen is not self.screen_stack[0]:
            return False
        pane = inspector.pane_of(self.screen)
        focused = self.focused
        return not (pane is not None and focused is not None and pane in focused.ancestors)

    def focus_stops(self) -> list[CompareSide | Input]:
        stops: list[CompareSide | Input] = list(self.sides)
        stops += list(self.query("#prompt").results(Input))
        return stops

    def action_focus_side(self, step: int) -> None:
        """Tab / Shift+Tab: the next side, then the prompt box, round again."""
        stops = self.focus_stops()
        focused = self.focused
        current = next(
            (n for n, stop in enumerate(stops) if focused is not None and stop is focused),
            -1 if step > 0 else 0,
        )
        target = stops[(current + step) % len(stops)]
        target.focus()
        if isinstance(target, CompareSide):
            self.mark(self.sides.index(target))

    def action_page(self, direction: int) -> None:
        view = self.sides[self.marked].view
        paging.page(view, direction)

    def action_side_end(self) -> None:
        self.sides[self.marked].view.jump_to_end()

    def action_help(self) -> None:
        if not isinstance(self.screen, CompareHelp):
            self.push_screen(CompareHelp())

    def action_stack(self) -> None:
        """F2: the sides one above the other (a screen too narrow for columns), or back."""
        self.query_one("#sides").toggle_class("-stacked")

    async def action_restart(self) -> None:
        """F5: every side from the start, in a fresh copy of the workspace."""
        await self.stop_sides()
        holder = self.query_one("#sides")
        await holder.remove_children()
        for index in range(len(self.setup.sides)):
            self.setup.workspaces.refresh(index)
        finished = self.setup.finished
        if finished is not None:
            self.query_one("#legend", Static).update(self.setup.legend)
        await holder.mount_all(self.new_sides())
        self.mark(self.marked)

    def action_inspector(self) -> None:
        """F12: every side's wire in one pane (`s` switches), beside the sides."""
        sources = [
            inspector.TrafficSource(side.title, side.controller.traffic, side.view)
            for side in self.sides
        ]
        inspector.toggle(self.screen, sources, self.query_one("#sides"))

    def on_click(self, event: events.Click) -> None:
        inspector.follow_click(self.screen, event)
        side = (
            next(
                (
                    node
                    for node in event.widget.ancestors_with_self
                    if isinstance(node, CompareSide)
                ),
                None,
            )
            if event.widget is not None
            else None
        )
        if side is not None:
            self.mark(self.sides.index(side))

    async def action_quit(self) -> None:
        await self.stop_sides()
        self.exit()

    async def on_unmount(self) -> None:
        await self.stop_sides()
        self.setup.workspaces.remove()

    async def stop_sides(self) -> None:
        """Let each side close its connection and reap its agent before the loop ends."""
        for worker in [w for w in self.workers if w.group == "compare"]:
            if not worker.is_finished and not worker.is_cancelled:
                worker.cancel()
            # Cancelled or failed, it has ended either way; wait() lets its cleanup finish.
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
