"""A bash card's status and clock tell the truth (issue 13, items 1-4).

A display terminal is fed the way dsh-agent feeds it: a `tool_call` with `_meta.terminal_info`,
live `_meta.terminal_output` chunks, then a final update with the status, the tail of the
model text (closing marker lines included) and `_meta.terminal_exit`. The panes read a clock
the test moves by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    TerminalToolCallContent,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)
from textual.app import App, ComposeResult

from support import wait_until
from tui.config import AppConfig
from tui.state import Change, Conversation
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.terminal.header import status_content
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.conversation import ConversationView

OPTIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Host(App[None]):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.config = AppConfig(clock=clock)  # as the CLI builds it, with a clock to move
        self.conversation = Conversation()

    def compose(self) -> ComposeResult:
        yield ConversationView(Path("/project"))

    def apply(self, changes: list[Change]) -> None:
        self.query_one(ConversationView).apply(changes)

    def start(self, command: str) -> None:
        self.apply(
            self.conversation.apply(
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id="t1",
                    title=command,
                    kind="execute",
                    status="in_progress",
                    content=[TerminalToolCallContent(type="terminal", terminal_id="t1")],
                    field_meta={"terminal_info": {"terminal_id": "t1", "cwd": "/project/src"}},
                )
            )
        )

    def update(self, **fields: Any) -> None:
        self.apply(
            self.conversation.apply(
                ToolCallProgress(session_update="tool_call_update", tool_call_id="t1", **fields)
            )
        )

    def output(self, data: str) -> None:
        self.update(field_meta={"terminal_output": {"terminal_id": "t1", "data": data}})

    def ask(self) -> None:
        call = ToolCallUpdate(tool_call_id="t1")
        self.apply(self.conversation.asked_call(call))

    def answer(self, option: str | None) -> None:
        outcome: AllowedOutcome | DeniedOutcome = (
            DeniedOutcome(outcome="cancelled")
            if option is None
            else AllowedOutcome(outcome="selected", option_id=option)
        )
        response = RequestPermissionResponse(outcome=outcome)
        self.apply(self.conversation.permission_answered("t1", OPTIONS, response))

    @property
    def card(self) -> ToolCard:
        return self.query_one(ToolCard)

    @property
    def pane(self) -> TerminalPane:
        return self.query_one(TerminalPane)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def header(card: ToolCard) -> str:
    from tui.widgets.cards.tool_card import header_text

    return header_text(card.entry, Path("/project")).plain


async def test_a_rejected_command_is_not_run_and_has_no_clock(clock: Clock) -> None:
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("rm -rf build")
        app.ask()
        await pilot.pause()
        assert status_content(app.pane).plain == "src · awaiting approval"
        assert "awaiting approval" in header(app.card)
        clock.now += 150
        app.answer("reject")
        app.update(status="failed")
        await pilot.pause()
        clock.now += 60
        assert status_content(app.pane).plain == "src · not run"
        assert not app.pane.running
        assert "✕ failed" in header(app.card)


async def test_a_cancelled_command_stops_its_clock_when_the_card_fails(clock: Clock) -> None:
    """`$ sleep 30` then Esc: `Error: command aborted`, and the pane stops at 9.3 s."""
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("sleep 30")
        await pilot.pause()
        clock.now += 9.3
        app.update(status="failed")
        await pilot.pause()
        assert status_content(app.pane).plain == "src · ⊘ stopped · 9.3 s"
        clock.now += 120
        assert status_content(app.pane).plain == "src · ⊘ stopped · 9.3 s"


async def test_the_end_of_the_turn_settles_a_running_pane(clock: Clock) -> None:
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("sleep 30")
        await pilot.pause()
        clock.now += 2
        app.apply(app.conversation.settle_unfinished("cancelled"))
        await pilot.pause()
        clock.now += 30
        assert status_content(app.pane).plain == "src · ⊘ cancelled · 2.0 s"


async def test_a_dismissed_question_with_the_turn_ending_is_not_run(clock: Clock) -> None:
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("make")
        app.ask()
        await pilot.pause()
        clock.now += 5
        app.answer(None)
        app.apply(app.conversation.settle_unfinished("cancelled"))
        await pilot.pause()
        assert status_content(app.pane).plain == "src · not run"


async def test_the_duration_counts_from_the_answer_not_from_the_card(clock: Clock) -> None:
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("make")
        app.ask()
        await pilot.pause()
        clock.now += 2.8  # the question is open: no clock
        assert "running" not in status_content(app.pane).plain
        app.answer("allow")
        await pilot.pause()
        assert "running" in header(app.card)
        clock.now += 1.5
        app.update(
            status="completed",
            field_meta={
                "terminal_output": {"terminal_id": "t1", "data": "built\n"},
                "terminal_exit": {"terminal_id": "t1", "exit_code": 0},
            },
        )
        await pilot.pause()
        assert status_content(app.pane).plain == "src · ✓ exit 0 · 1.5 s"


async def test_a_failed_exit_wins_over_completed_and_markers_are_not_repeated(
    clock: Clock,
) -> None:
    """`$ false`: the header says `✕ exit 1` (the agent's `completed` dim beside it), the border
    is the failure colour, and the pane shows its own `(no output)`, not the agent's text."""
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("false")
        await pilot.pause()
        app.update(
            status="completed",
            field_meta={
                "terminal_output": {"terminal_id": "t1", "data": "(no output)\n[exit code: 1]"},
                "terminal_exit": {"terminal_id": "t1", "exit_code": 1},
            },
        )
        await pilot.pause()
        assert header(app.card).endswith("✕ exit 1 · agent: completed")
        assert "✓" not in header(app.card)
        assert app.card.has_class("-failed") and not app.card.has_class("-completed")
        await wait_until(pilot, lambda: not app.pane.busy)
        assert app.pane.view.plain_lines() == []
        assert "✕ exit 1" in status_content(app.pane).plain


async def test_output_keeps_its_last_line_and_drops_only_the_marker(clock: Clock) -> None:
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("grep -q x f || exit 3")
        await pilot.pause()
        app.output("no x here\n")
        app.update(
            status="completed",
            field_meta={
                "terminal_output": {"terminal_id": "t1", "data": "[exit code: 3]"},
                "terminal_exit": {"terminal_id": "t1", "exit_code": 3},
            },
        )
        await pilot.pause()
        await wait_until(pilot, lambda: not app.pane.busy)
        assert app.pane.view.plain_lines() == ["no x here"]


async def test_the_agent_truncation_is_said_once_in_the_info_line(clock: Clock) -> None:
    """`seq 1 100000`: no `[output truncated; ...]` line in the output; the info line says the
    agent gave the model only the tail, beside the one size figure."""
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("seq 1 100000")
        await pilot.pause()
        app.output("".join(f"{i}\n" for i in range(1, 100_001)))
        app.update(
            status="completed",
            field_meta={
                "terminal_output": {
                    "terminal_id": "t1",
                    "data": "[output truncated; kept the last 64000 bytes of stdout]",
                },
                "terminal_exit": {"terminal_id": "t1", "exit_code": 0},
            },
        )
        await pilot.pause()
        await wait_until(pilot, lambda: not app.pane.busy)
        await pilot.pause()
        assert app.pane.view.plain_lines()[-1] == "100000"
        info = str(app.pane.query_one(".terminal-pane--info").render())
        assert info == (
            "▮ 100,000 lines · 575 KB · the agent gave the model only the last 62 KB of stdout"
        )
        assert "[output truncated" not in "\n".join(app.pane.view.plain_lines())


@pytest.mark.parametrize("replayed", [False, True])
async def test_the_agents_measured_duration_is_shown_live_and_replayed(
    clock: Clock, replayed: bool
) -> None:
    """Live, the update comes 5.6 s after the card; replayed, at once. Both say 5.5 s, the
    duration the agent measured and logged (`_meta["dsh.duration_ms"]`)."""
    app = Host(clock)
    async with app.run_test() as pilot:
        app.start("make")
        await pilot.pause()
        clock.now += 0.0 if replayed else 5.6
        app.update(
            status="completed",
            field_meta={
                "terminal_output": {"terminal_id": "t1", "data": "built\n"},
                "terminal_exit": {"terminal_id": "t1", "exit_code": 0},
                "dsh.duration_ms": 5500,
            },
        )
        await pilot.pause()
        assert status_content(app.pane).plain == "src · ✓ exit 0 · 5.5 s"
