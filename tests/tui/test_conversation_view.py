"""The transcript view: batched mounts, and a window of widgets bounded by the screen."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from acp.schema import (
    AgentMessageChunk,
    ContentToolCallContent,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from support import grow_deep_inside
from tui.state import Change, Conversation
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.transcript.conversation import (
    MIN_MOUNTED,
    TRIM_SCREENS,
    ConversationView,
)
from tui.widgets.transcript.search_bar import CURRENT, HIT, SearchBar


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


def text_content(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def with_content(index: int, content: list[ContentToolCallContent]) -> ToolCallProgress:
    return ToolCallProgress(
        session_update="tool_call_update", tool_call_id=f"c{index}", content=content
    )


def card_ids(view: ConversationView) -> list[str]:
    return [card.entry.tool_call_id for card in view.query(ToolCard)]


def on_screen(view: ConversationView) -> list[ToolCard]:
    """The cards at least partly inside the viewport."""
    top, bottom = view.scroll_y, view.scroll_y + view.scrollable_content_region.height
    return [
        card
        for card in view.query(ToolCard)
        if card.virtual_region.bottom > top and card.virtual_region.y < bottom
    ]


async def settle(pilot: Pilot[None], view: ConversationView) -> None:
    """Until the window stops moving: no change waits for its layout pass."""

    def moving() -> bool:
        return view._settling

    for _ in range(50):
        await pilot.pause()
        if not moving():
            await pilot.pause()
            if not moving():
                return


# The most cards mounted at once on a 24-row screen: the window is a few screens of
# 4-row cards (KEEP_SCREENS each side, TRIM_SCREENS before trimming), never MIN_MOUNTED less.
BOUND = max(MIN_MOUNTED, (2 * TRIM_SCREENS + 1) * 24 // 4 + 2)


async def test_a_long_transcript_mounts_only_its_window() -> None:
    """1,000 calls, one by one and in bursts: the cards mounted stay bounded by the screen,
    the newest is on screen, and the scrollbar spans every entry's rows."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        for index in range(400):
            view.apply(conversation.apply(call(index)))
            if index % 25 == 0:
                await pilot.pause()
        view.apply(calls(conversation, range(400, 1000)))
        await settle(pilot, view)
        assert len(view.query(ToolCard)) <= BOUND
        assert view.following and view.scroll_y == view.max_scroll_y
        assert on_screen(view)[-1].entry.tool_call_id == "c999"
        rows = view.query(ToolCard).last().virtual_region_with_margin.height
        assert view.virtual_size.height == 1000 * rows
        # Updates for an unmounted card reach the state without touching a widget.
        gone = conversation.tool_calls["c0"]
        assert all(card.entry is not gone for card in view.query(ToolCard))
        assert len(conversation.entries) == 1000


async def test_one_burst_mounts_only_the_newest_entries() -> None:
    """A burst far bigger than the window mounts only what it keeps (no card is mounted to
    be removed in the same pass); the rest come back with their latest state."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        mounted: list[str] = []
        original = ToolCard.on_mount

        def record(card: ToolCard) -> None:
            mounted.append(card.entry.tool_call_id)
            original(card)

        ToolCard.on_mount = record  # type: ignore[method-assign]
        try:
            changes = calls(conversation, range(600))
            done = ToolCallProgress(
                session_update="tool_call_update", tool_call_id="c0", status="completed"
            )
            changes += conversation.apply(done)  # an update for a card that never mounts
            view.apply(changes)
            await settle(pilot, view)
            shown = card_ids(view)
            assert shown == [f"c{index}" for index in range(600 - len(shown), 600)]
            assert sorted(mounted) == sorted(shown)
            assert view.hidden_count == 600 - len(shown)
            view.scroll_home(animate=False, immediate=True)
            await settle(pilot, view)
            assert card_ids(view)[0] == "c0"
            assert view.query(ToolCard).first().has_class("-completed")
        finally:
            ToolCard.on_mount = original  # type: ignore[method-assign]


async def test_paging_to_the_top_and_back_shows_every_entry_in_order() -> None:
    """Page by page from the end to the top and back: every entry is shown, in order, the
    window stays bounded both ways, and at the end the view follows again."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(calls(conversation, range(250)))
        await settle(pilot, view)
        seen: list[str] = []

        def look() -> None:
            ids = card_ids(view)
            first = int(ids[0][1:])
            assert ids == [f"c{index}" for index in range(first, first + len(ids))]
            assert len(ids) <= BOUND
            for card in on_screen(view):
                if card.entry.tool_call_id not in seen:
                    seen.append(card.entry.tool_call_id)

        look()
        while view.scroll_y > 0:
            view.scroll_page_up(animate=False)
            await settle(pilot, view)
            look()
        assert not view.following and view.hidden_count == 0
        assert on_screen(view)[0].entry.tool_call_id == "c0"
        assert sorted(seen, key=lambda name: int(name[1:])) == [f"c{i}" for i in range(250)]
        seen.clear()
        look()
        while view.scroll_y < view.max_scroll_y:
            view.scroll_page_down(animate=False)
            await settle(pilot, view)
            look()
        assert seen == [f"c{i}" for i in range(250)]
        assert view.following
        view.apply(conversation.apply(call(250)))
        await settle(pilot, view)
        assert on_screen(view)[-1].entry.tool_call_id == "c250"


async def test_scrolling_moves_the_view_by_exactly_the_rows_scrolled() -> None:
    """Entries of many heights, scrolled up 7 rows at a time across window changes: what is
    shown moves down by exactly 7 rows each time, however wrong the spacer's guess was."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        changes: list[Change] = []
        for index in range(150):
            changes += conversation.apply(call(index))
            if index % 3 == 0:
                lines = "\n\n".join(f"line {index}.{n}" for n in range(index % 11))
                changes += conversation.apply(chunk(f"reply {index}\n\n{lines}"))
                changes += conversation.apply(call(10_000 + index))  # ends the reply
        view.apply(changes)
        await settle(pilot, view)
        steps = 0
        while view.scroll_y > 7 and steps < 60:  # 420 rows: several window changes
            steps += 1
            card = on_screen(view)[-1]
            before = card.virtual_region.y - view.scroll_y
            view.scroll_relative(y=-7, animate=False)
            await settle(pilot, view)
            assert card.parent is view
            assert card.virtual_region.y - view.scroll_y == before + 7


async def test_reading_back_holds_the_page_while_entries_arrive() -> None:
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(calls(conversation, range(500)))
        await settle(pilot, view)
        for _ in range(30):
            view.scroll_page_up(animate=False)
            await settle(pilot, view)
        held, shown = view.scroll_y, [card.entry for card in on_screen(view)]
        view.apply(calls(conversation, range(500, 800)))
        await settle(pilot, view)
        assert view.scroll_y == held and [card.entry for card in on_screen(view)] == shown
        assert len(view.query(ToolCard)) <= BOUND
        assert view.new_below == 300 and not view.following
        view.jump_to_end()
        await settle(pilot, view)
        assert view.following and view.scroll_y == view.max_scroll_y
        assert on_screen(view)[-1].entry.tool_call_id == "c799"
        assert len(view.query(ToolCard)) <= BOUND


async def test_reveal_moves_the_window_to_a_far_entry() -> None:
    """Search's `reveal`: an entry far above the window gets a widget, shown on screen."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(calls(conversation, range(1000)))
        await settle(pilot, view)
        far = conversation.tool_calls["c123"]
        assert view.widget_of(far) is None
        widget = view.reveal(far)
        assert isinstance(widget, ToolCard) and widget.entry is far
        await pilot.pause()
        view.show_entry(widget)
        await settle(pilot, view)
        assert far in [card.entry for card in on_screen(view)]
        assert len(view.query(ToolCard)) <= BOUND


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


async def test_search_marks_hits_the_window_mounts_later() -> None:
    """Search reveals its first match far above; the hits mounted later, as the window moves
    back to the end, are marked as hits too."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(calls(conversation, range(1000)))
        await settle(pilot, view)
        bar = SearchBar(view, lambda: conversation.entries)
        await app.mount(bar)
        bar.refresh_results("Call 99")
        await settle(pilot, view)
        first = conversation.tool_calls["c99"]
        assert first in [card.entry for card in on_screen(view)]
        assert view.widget_of(first).has_class(CURRENT)  # type: ignore[union-attr]
        view.jump_to_end()
        await settle(pilot, view)
        last = view.widget_of(conversation.tool_calls["c999"])
        assert last is not None and last.has_class(HIT) and not last.has_class(CURRENT)
        assert not view.widget_of(conversation.tool_calls["c989"]).has_class(HIT)  # type: ignore[union-attr]


async def test_a_scroll_onto_the_end_keeps_following_through_growth_and_shrinking() -> None:
    """Dragging the scrollbar to the end (a scroll_to that does not move the view) releases
    Textual's anchor without a word; entries that arrive after it, and a card at the end that
    grows and then shrinks while a new entry waits for its widget, are still followed."""
    app = Host()
    conversation = Conversation()
    tall = [text_content("\n".join(f"line {row}" for row in range(40)))]
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(calls(conversation, range(60)))
        await settle(pilot, view)
        view.scroll_to(y=view.max_scroll_y, animate=False, immediate=True)
        await pilot.pause()
        view.apply(calls(conversation, range(60, 70)))
        await settle(pilot, view)
        assert view.following and view.scroll_y == view.max_scroll_y
        view.apply(conversation.apply(with_content(69, tall)))
        await settle(pilot, view)
        shrunk = conversation.apply(with_content(69, [text_content("done")]))
        view.apply(shrunk + calls(conversation, [70]))
        await settle(pilot, view)
        assert view.following and view.new_below == 0
        assert view.scroll_y == view.max_scroll_y
        assert on_screen(view)[-1].entry.tool_call_id == "c70"


async def test_a_hidden_view_that_grew_past_the_screen_is_anchored_before_it_is_shown() -> None:
    """A tab's switch (tui/tabbed_app.py): what came while the view was hidden is judged
    from the state, before the frame that shows it, so that frame is at the end; a view whose
    content still fits is left at its top."""
    app = Host()
    conversation = Conversation()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        view.apply(conversation.apply(chunk("short")))
        await pilot.pause()
        view.display = False
        await pilot.pause()
        view.before_shown(24, 80)
        assert not view.is_anchored  # one line: nothing to follow yet
        view.apply(conversation.apply(chunk(" ".join(f"back{i}" for i in range(600)))))
        await pilot.pause()
        view.before_shown(24, 80)
        assert view.is_anchored
        view.display = True
        await pilot.pause(0.3)
        await pilot.pause()
        assert view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y
