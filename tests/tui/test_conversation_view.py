"""The transcript view: batched mounts and pruning keep the widget count bounded."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from acp.schema import AgentMessageChunk, TextContentBlock, ToolCallProgress, ToolCallStart
from textual.app import App, ComposeResult

from support import grow_deep_inside
from tui.state import Change, Conversation
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.transcript.conversation import MAX_LIVE, PRUNE_BATCH, ConversationView


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView(Path("/project"))


def calls(conversation: Conversation, indices: Iterable[int]) -> list[Change]:
    """The changes of a burst of new calls, applied to the view at once."""
    return [change for index in indices for change in conversation.apply(call(index))]


def call(index: int) -> ToolCallStart:
    return ToolCallStart(
        session_update="tool_call", tool_call_id=f"c{index}", title=f"Call {index}"
    )


async def test_old_entries_are_pruned_and_counted() -> None:
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        total = MAX_LIVE + 2 * PRUNE_BATCH + 1
        for index in range(total):
            update = ToolCallStart(
                session_update="tool_call", tool_call_id=f"c{index}", title=f"Call {index}"
            )
            view.apply(conversation.apply(update))
            if index % 25 == 0:
                await pilot.pause()
        await pilot.pause()
        cards = list(view.query(ToolCard))
        assert len(cards) <= MAX_LIVE + PRUNE_BATCH
        assert view.hidden_count + len(cards) == total
        assert cards[-1].entry.tool_call_id == f"c{total - 1}"
        assert f"{view.hidden_count} earlier entries are not shown" in str(
            view.query_one(".hidden-banner").render()
        )
        # Updates for a pruned card still reach the state without touching a widget.
        gone = conversation.tool_calls["c0"]
        assert all(card.entry is not gone for card in view.query(ToolCard))
        assert len(conversation.entries) == total


async def test_a_burst_larger_than_a_batch_is_pruned_in_full() -> None:
    """Many entries arriving between two refreshes must not leave more than a batch behind."""
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        total = 3 * MAX_LIVE
        for burst in range(3):
            view.apply(calls(conversation, range(burst * MAX_LIVE, (burst + 1) * MAX_LIVE)))
            await pilot.pause()
        await pilot.pause()
        cards = list(view.query(ToolCard))
        assert len(cards) <= MAX_LIVE + PRUNE_BATCH
        assert view.hidden_count + len(cards) == total


async def test_one_burst_over_the_limit_mounts_only_what_it_keeps() -> None:
    """Entries of one burst that the prune would remove at once are never mounted, yet count
    as hidden, and the banner brings them back in order with their latest state."""
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        mounted: list[str] = []
        original = ToolCard.on_mount

        def record(card: ToolCard) -> None:
            mounted.append(card.entry.tool_call_id)
            original(card)

        ToolCard.on_mount = record  # type: ignore[method-assign]
        try:
            total = 3 * MAX_LIVE
            changes = calls(conversation, range(total))
            done = ToolCallProgress(
                session_update="tool_call_update", tool_call_id="c0", status="completed"
            )
            changes += conversation.apply(done)  # an update for a card that never mounts
            view.apply(changes)
            await pilot.pause()
            cards = list(view.query(ToolCard))
            assert [card.entry.tool_call_id for card in cards] == [
                f"c{index}" for index in range(total - MAX_LIVE, total)
            ]
            assert view.hidden_count == total - MAX_LIVE
            assert sorted(mounted) == sorted(card.entry.tool_call_id for card in cards)
            assert f"{total - MAX_LIVE} earlier entries are not shown" in str(
                view.query_one(".hidden-banner").render()
            )
            while view.hidden_count:
                view.show_earlier()
                await pilot.pause()
            shown = [card.entry.tool_call_id for card in view.query(ToolCard)]
            assert shown == [f"c{index}" for index in range(total)]
            assert view.query(ToolCard).first().has_class("-completed")
        finally:
            ToolCard.on_mount = original  # type: ignore[method-assign]


async def test_the_view_follows_the_end_through_bursts() -> None:
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        for index in range(120):
            view.apply(conversation.apply(call(index)))
            if index % 25 == 0:
                await pilot.pause()
        await pilot.pause()
        await pilot.pause()
        assert view.max_scroll_y > 0
        assert view.scroll_y == view.max_scroll_y
        assert view.following


async def test_short_content_stays_at_the_top() -> None:
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.apply(conversation.apply(call(0)))
        await pilot.pause()
        await pilot.pause()
        assert view.scroll_y == 0
        assert view.query_one(ToolCard).region.y <= 2


async def test_the_banner_brings_earlier_entries_back_and_reading_back_stops_pruning() -> None:
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        total = MAX_LIVE + 2 * PRUNE_BATCH
        view.apply(calls(conversation, range(total)))
        await pilot.pause()
        view.apply(conversation.apply(call(total)))
        await pilot.pause()
        hidden = view.hidden_count
        assert hidden >= PRUNE_BATCH

        view.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert not view.following
        await pilot.click(".hidden-banner")
        await pilot.pause()
        assert view.hidden_count == hidden - PRUNE_BATCH
        cards = list(view.query(ToolCard))
        assert cards[0].entry.tool_call_id == f"c{hidden - PRUNE_BATCH}"
        assert [card.entry.tool_call_id for card in cards] == [
            f"c{index}" for index in range(hidden - PRUNE_BATCH, total + 1)
        ]
        # While the user reads back, new entries do not prune the page away.
        burst = range(total + 1, total + 1 + 2 * PRUNE_BATCH)
        view.apply(calls(conversation, burst))
        await pilot.pause()
        assert view.hidden_count == hidden - PRUNE_BATCH
        # Back at the end, the next entries prune again.
        view.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert view.following
        view.apply(conversation.apply(call(burst[-1] + 1)))
        await pilot.pause()
        assert len(list(view.query(ToolCard))) <= MAX_LIVE + PRUNE_BATCH


async def test_the_banner_comes_back_after_everything_was_shown() -> None:
    """Showing every hidden entry removes the banner; the next prune shows one again."""
    app = Host()
    conversation = Conversation()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        first = MAX_LIVE + PRUNE_BATCH
        view.apply(calls(conversation, range(first)))
        await pilot.pause()
        assert view.hidden_count == PRUNE_BATCH
        view.show_earlier()
        await pilot.pause()
        assert view.hidden_count == 0 and not view.query(".hidden-banner")
        view.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        more = range(first, first + 2 * PRUNE_BATCH)
        view.apply(calls(conversation, more))
        await pilot.pause()
        await pilot.pause()
        assert view.hidden_count > 0
        banner = view.query_one(".hidden-banner")
        assert f"{view.hidden_count} earlier entries are not shown" in str(banner.render())
        assert banner.region.height == 1


def chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


async def test_one_growing_reply_is_followed_to_its_last_line() -> None:
    """A reply that starts short and grows past the screen through appends alone (no new
    widget is mounted) is followed: its last line ends on screen."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(conversation.apply(chunk("start\n\n")))
        await pilot.pause()
        for index in range(60):
            view.apply(conversation.apply(chunk(f"paragraph {index}\n\n")))
            if index % 10 == 0:
                await pilot.pause()
        await pilot.pause(0.3)
        await pilot.pause()
        assert view.max_scroll_y > 0
        assert view.scroll_y == view.max_scroll_y
        assert view.following


async def test_scrolling_up_holds_the_view_and_jump_to_end_resumes_following() -> None:
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(calls(conversation, range(60)))
        await pilot.pause()
        await pilot.pause()
        view.scroll_page_up(animate=False)
        await pilot.pause()
        held = view.scroll_y
        assert not view.following
        view.apply(calls(conversation, range(60, 80)))
        await pilot.pause()
        await pilot.pause()
        assert view.scroll_y == held
        view.jump_to_end()
        view.apply(calls(conversation, range(80, 100)))
        await pilot.pause()
        await pilot.pause()
        assert view.following
        assert view.scroll_y == view.max_scroll_y


async def test_the_transcript_ticks_its_running_cards_itself() -> None:
    """The one spinner timer belongs to the transcript, so every host (the app, each side of
    the demo) gets turning spinners; with animations off nothing ticks."""
    for level, turns in (("full", True), ("none", False)):
        app = Host()
        app.animation_level = level
        conversation = Conversation()
        async with app.run_test() as pilot:
            view = app.query_one(ConversationView)
            view.apply(conversation.apply(call(1)))
            update = ToolCallProgress(
                session_update="tool_call_update", tool_call_id="c1", status="in_progress"
            )
            view.apply(conversation.apply(update))
            await pilot.pause(0.45)
            card = app.query_one(ToolCard)
            assert bool(card.spinner_frame) is turns, (level, card.spinner_frame)


async def test_an_entry_that_grew_deep_inside_is_measured_again() -> None:
    """A change two levels down in one entry and a change in a later entry, in one layout pass:
    the first entry must get its new height, not keep its old place (a reply drawn at 0 rows)."""
    app = Host()
    async with app.run_test(size=(40, 20)) as pilot:
        entry, later = await grow_deep_inside(pilot, app.query_one(ConversationView))
        assert entry.region.height == 4
        assert later.region.y == entry.region.bottom
