"""A terminal pane's status and its words, without a widget (tui/terminal/status.py)."""

from __future__ import annotations

import pytest

from tui.glyphs import ASCII_GLYPHS, UNICODE_GLYPHS
from tui.state import ToolCallEntry
from tui.terminal.source import TerminalEnd
from tui.terminal.status import RUNNING, PaneStatus, card_status, exited, status_words


def words(status: PaneStatus, frame: int = 0) -> str:
    return status_words(status, UNICODE_GLYPHS, frame)[0]


def card(status: str = "in_progress", **fields: object) -> ToolCallEntry:
    return ToolCallEntry("t1", status=status, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("end", "said", "style"),
    [
        (TerminalEnd(0), "✓ exit 0", "$text-success bold"),
        (TerminalEnd(3), "✕ exit 3", "$text-error bold"),
        (TerminalEnd(None, "SIGTERM"), "✕ killed by SIGTERM", "$text-error bold"),
        (TerminalEnd(None, "9"), "✕ killed by SIGKILL", "$text-error bold"),
        (TerminalEnd(None, "SIGKILL", 60), "✕ timed out after 60 s", "$text-error bold"),
        (TerminalEnd(None, "SIGKILL", 2.5), "✕ timed out after 2.5 s", "$text-error bold"),
        (TerminalEnd(None), "■ exited", "$text-muted"),
    ],
)
def test_an_exit_says_how(end: TerminalEnd, said: str, style: str) -> None:
    assert status_words(exited(end), UNICODE_GLYPHS) == (said, style)


def test_only_a_clean_exit_is_not_failed() -> None:
    assert [exited(TerminalEnd(code)).failed for code in (0, 1, None)] == [False, True, False]
    assert exited(TerminalEnd(None, "SIGINT")).failed
    assert not RUNNING.failed


def test_running_turns_the_spinner_with_the_frame() -> None:
    assert [words(RUNNING, frame) for frame in (0, 3, 10)] == [
        "⠋ running",
        "⠸ running",
        "⠋ running",
    ]
    assert status_words(RUNNING, ASCII_GLYPHS, 1) == ("/ running", "$text-warning")


def test_an_open_question_is_waiting_not_running() -> None:
    status = card_status(RUNNING, card(permission="asked"), had_output=False)
    assert (words(status), status.running) == ("awaiting approval", False)
    answered = card_status(status, card(permission="allowed"), had_output=False)
    assert (words(answered), answered.running) == ("⠋ running", True)


@pytest.mark.parametrize(
    ("status", "said"),
    [
        ("failed", "⊘ stopped"),
        ("cancelled", "⊘ cancelled"),
        ("unfinished", "⊘ left unfinished"),
        ("completed", "⊘ ended"),
    ],
)
def test_a_card_that_ends_without_an_exit_settles(status: str, said: str) -> None:
    assert words(card_status(RUNNING, card(status), had_output=False)) == said


def test_a_command_that_never_started_is_not_run() -> None:
    asked = card_status(RUNNING, card(permission="asked"), had_output=False)
    assert words(card_status(asked, card("cancelled", permission="asked"), had_output=True)) == (
        "not run"
    )
    rejected = card("failed", permission="rejected")
    assert words(card_status(RUNNING, rejected, had_output=False)) == "not run"
    assert words(card_status(RUNNING, rejected, had_output=True)) == "⊘ stopped"
    never = card("cancelled", never_ran=True)
    assert words(card_status(RUNNING, never, had_output=False)) == "not run"


def test_an_ended_status_stays_until_an_exit() -> None:
    stopped = card_status(RUNNING, card("failed"), had_output=False)
    assert card_status(stopped, card("completed"), had_output=False) is stopped
    done = exited(TerminalEnd(0))
    assert card_status(done, card("failed"), had_output=False) is done


@pytest.mark.parametrize(("code", "signal"), [(3, None), (None, "9"), (None, "SIGTERM")])
def test_the_card_and_its_pane_say_a_failure_alike(code: int | None, signal: str | None) -> None:
    """The tool card's header states a failed exit in the words of its pane's header."""
    from tui.terminal.source import TerminalState
    from tui.widgets.cards.header import exit_failure

    terminal = TerminalState("term-1", exit_code=code, signal=signal, exited=True)
    assert exit_failure(card("completed", terminal=terminal)) == words(
        exited(TerminalEnd(code, signal))
    )


def test_a_clean_exit_is_no_failure_on_the_card() -> None:
    from tui.terminal.source import TerminalState
    from tui.widgets.cards.header import exit_failure

    terminal = TerminalState("term-1", exit_code=0, exited=True)
    assert exit_failure(card("completed", terminal=terminal)) is None
