"""A finished turn is history: the calls it left running are settled as the agent's leaving
them unfinished, and an agent that names one of its ids again gets a new card in the turn
that is on, with a note, never a change to the old card."""

from __future__ import annotations

from pathlib import Path

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from tui.state import Conversation, NoticeEntry, ToolCallEntry
from tui.widgets.cards.header import header_text

REJECT = [PermissionOption(option_id="no", name="Reject", kind="reject_once")]


def start(call_id: str, title: str, status: str = "in_progress") -> ToolCallStart:
    return ToolCallStart(
        session_update="tool_call", tool_call_id=call_id, title=title, status=status
    )


def cards(conversation: Conversation) -> list[ToolCallEntry]:
    return [entry for entry in conversation.entries if isinstance(entry, ToolCallEntry)]


def notes(conversation: Conversation) -> list[str]:
    return [entry.text for entry in conversation.entries if isinstance(entry, NoticeEntry)]


def test_a_call_left_running_at_the_end_of_a_turn_says_the_agent_left_it() -> None:
    conversation = Conversation()
    conversation.add_prompt("go")
    conversation.apply(start("c1", "slow thing"))
    conversation.apply(start("c2", "quick thing", status="completed"))
    changes = conversation.settle_unfinished("unfinished")
    first, second = cards(conversation)
    assert [c.entry for c in changes] == [first]  # type: ignore[union-attr]
    assert (first.status, second.status) == ("unfinished", "completed")
    assert "left unfinished by the agent" in header_text(first, Path("/")).plain


def test_the_users_running_command_is_not_settled_with_the_agents_calls() -> None:
    conversation = Conversation()
    entry, _ = conversation.add_user_shell("sleep 30", "user-1")
    conversation.settle_unfinished("unfinished")
    assert entry.status == "in_progress"


def test_an_id_of_an_earlier_turn_gets_a_new_card_and_the_old_one_is_kept() -> None:
    conversation = Conversation()
    conversation.add_prompt("one")
    conversation.apply(start("pending", "first", status="completed"))
    conversation.end_turn()
    conversation.add_prompt("two")
    conversation.apply(
        ToolCallProgress(session_update="tool_call_update", tool_call_id="pending", title="second")
    )
    conversation.apply(
        ToolCallProgress(session_update="tool_call_update", tool_call_id="pending", status="failed")
    )
    old, new = cards(conversation)
    assert (old.title, old.status) == ("first", "completed")
    assert (new.title, new.status) == ("second", "failed")
    assert notes(conversation) == [
        "the agent reused the id 'pending' of a call of an earlier turn: shown as a new card"
    ]


def test_a_permission_id_reused_in_the_next_turn_never_touches_the_first_card() -> None:
    """The fixed permission id `pending` of one foreign agent: turn 1's card keeps its answer
    and its body."""
    conversation = Conversation()
    conversation.add_prompt("one")
    first_call = ToolCallUpdate(tool_call_id="pending", title="write a.txt", status="pending")
    conversation.asked_call(first_call)
    rejected = RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="no"))
    conversation.permission_answered("pending", REJECT, rejected)
    conversation.end_turn()
    conversation.settle_unfinished("cancelled")  # a later settle finds nothing open in turn 1
    conversation.add_prompt("two")
    conversation.asked_call(ToolCallUpdate(tool_call_id="pending", title="write b.txt"))
    old, new = cards(conversation)
    assert (old.title, old.status, old.permission) == ("write a.txt", "rejected", "rejected")
    assert (new.title, new.permission) == ("write b.txt", "asked")
    assert conversation.tool_calls["pending"] is new
    assert len(notes(conversation)) == 1


def test_the_user_s_own_card_id_is_never_the_agents_to_change() -> None:
    conversation = Conversation()
    entry, _ = conversation.add_user_shell("echo hi", "user-1")
    conversation.apply(start(entry.tool_call_id, "spoofed", status="failed"))
    assert (entry.title, entry.status) == ("! echo hi", "in_progress")
    assert "a command you ran" in notes(conversation)[0]
