"""dsh-tui drawing dsh-agent's MCP calls: a recording of the real agent calling a real stdio
MCP server (tests/fixtures/mcp/make_recording.py), replayed through the pytest plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.pytest_plugin import CardsFactory

RECORDING = Path(__file__).parents[1] / "fixtures" / "mcp" / "mcp-call.jsonl"


def test_mcp_call_cards(snap_compare: Any, dsh_tui_cards: CardsFactory) -> None:
    """`server · tool` titles, the read kind, a text result, an image and an embedded
    resource, and an error result as a failed card."""
    cards = dsh_tui_cards.replay(RECORDING)
    assert snap_compare(cards.app, terminal_size=cards.size, run_before=cards.run_before)
