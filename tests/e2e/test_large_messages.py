"""Large messages and floods of chunks (issue 15, item 5): shown in bounded pieces, cut on screen
past a cap with a marker and the message's end after it, kept whole in the state, and never in
the way of a quit.

Speed is measured by bench/bench_flood.py; these tests assert only what is shown and kept.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from support import shown_text, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.state import MessageEntry
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript import messages
from tui.widgets.transcript.messages import AgentMessage, PlainBlock

SCRIPT_AGENT = Path(__file__).with_name("script_agent.py")
UNIT = "lorem ipsum "


def script_app(tmp_path: Path, actions: list[dict[str, Any]]) -> DshApp:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"prompts": [actions]}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    return DshApp(AppConfig(command, tmp_path, log_dir=tmp_path / "logs"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def big_text(size: int) -> str:
    return (UNIT * (size // len(UNIT) + 1))[:size]


async def send(app: DshApp, pilot: Any) -> None:
    await wait_until(pilot, lambda: app.controller.session is not None)
    app.query_one(PromptArea).text = "go"
    await pilot.press("enter")


def reply_entry(app: DshApp) -> MessageEntry | None:
    entries = app.controller.conversation.entries
    last = entries[-1] if entries else None
    return last if isinstance(last, MessageEntry) and last.role == "agent" else None


async def test_a_message_over_the_cap_is_cut_on_screen_kept_whole_and_quit_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """5 MB in one chunk with the display cap lowered to 200,000 characters: the screen shows
    the first 200,000 and a marker with the rest's size, the state keeps all 5 MB, and Ctrl+Q
    in the middle of the flood that follows quits and reaps the agent."""
    cap, size = 200_000, 5_000_000
    monkeypatch.setattr(messages, "DISPLAY_MAX_CHARS", cap)
    flood = {"stream": {"count": 100_000, "text": "w{i} ", "pace": 0.01, "batch": 20}}
    app = script_app(tmp_path, [{"big": {"bytes": size}}, flood])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(AgentMessage)))
        reply = app.query_one(AgentMessage)
        await wait_until(pilot, lambda: reply.truncated)
        entry = reply_entry(app)
        assert entry is not None
        await wait_until(pilot, lambda: entry.chars > size)  # the flood goes on
        assert entry.text.startswith(big_text(size))
        # The head, then (after the marker) the end of what has come so far.
        await wait_until(pilot, lambda: "w1" in shown_text(reply)[cap:])  # the flood's words
        shown = shown_text(reply)
        assert shown.startswith(big_text(cap)) and shown[cap:] in entry.text
        assert len(shown) <= cap + messages.TAIL_CHARS
        assert len(reply.source) == messages.MARKDOWN_MAX_CHARS
        blocks = list(reply.query(PlainBlock))
        marker = [block for block in blocks if block.has_class("-truncated")]
        assert len(marker) == 1 and blocks[-2] is marker[0]
        assert "characters are not shown; its end follows" in str(marker[0].render())
        assert app.controller.turn_running
        session = app.controller.session
        assert session is not None
        pid = session.process.pid
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not alive(pid))
    assert not alive(pid)


async def test_quit_while_plain_pieces_are_being_added(tmp_path: Path) -> None:
    """A reply past the Markdown limit grows plain pieces under the default cap; a quit in the
    middle of that unmounts the message while it still streams, and must not fail."""
    flood = {"stream": {"count": 100_000, "text": "word{i} ", "pace": 0.005, "batch": 50}}
    app = script_app(tmp_path, [{"big": {"bytes": messages.MARKDOWN_MAX_CHARS + 10}}, flood])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PlainBlock)))
        await wait_until(pilot, lambda: len(app.query(PlainBlock)) > 1)
        session = app.controller.session
        assert session is not None
        pid = session.process.pid
        await app.action_quit()
    assert not alive(pid)


async def test_twenty_thousand_chunks_end_whole_in_state_and_on_screen(tmp_path: Path) -> None:
    """Every chunk of a 20,000-chunk reply (about 150,000 characters, past the Markdown limit)
    is in the state, and the widget shows all of it: Markdown first, then plain pieces."""
    count = 20_000
    expected = "".join(f"w{i} " for i in range(count))
    app = script_app(tmp_path, [{"stream": {"count": count, "text": "w{i} "}}])
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1, timeout=60)
        entry = reply_entry(app)
        assert entry is not None and entry.text == expected and entry.chars == len(expected)
        reply = app.query_one(AgentMessage)
        await wait_until(pilot, lambda: not reply.is_streaming)
        assert shown_text(reply) == expected
        assert not reply.truncated
        assert len(reply.source) == messages.MARKDOWN_MAX_CHARS
        pieces = list(reply.query(PlainBlock))
        assert pieces and f"w{count - 1} " in str(pieces[-1].render())
        await app.action_quit()
