"""A card or a pane without a name says what it is, never the agent's handle for it: a card
with no title shows its kind (or "tool call"), a pane with no command shows `command`."""

from __future__ import annotations

from pathlib import Path

from tui.state import ToolCallEntry
from tui.widgets.cards.header import header_text


def title_line(entry: ToolCallEntry) -> str:
    return header_text(entry, Path("/project")).plain.splitlines()[0]


def test_an_untitled_card_shows_its_kind_not_its_id() -> None:
    shown = title_line(ToolCallEntry("call_7", kind="execute"))
    assert shown.startswith("❯ execute  ") and "call_7" not in shown


def test_an_untitled_card_of_no_known_kind_is_a_tool_call() -> None:
    for kind in ("other", "not-a-kind"):
        shown = title_line(ToolCallEntry("call_7", kind=kind))
        assert shown.startswith("• tool call  ") and "call_7" not in shown


def test_a_title_still_wins() -> None:
    assert title_line(ToolCallEntry("call_7", title="make", kind="execute")).startswith("❯ make  ")
