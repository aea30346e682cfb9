"""What a replay promises whatever the recording holds: no file of this machine is read, no
recorded pause holds it for long, and the client's answers are matched by id, not by place.

The recordings are written here, line by line, as `dsh-tui --record` writes them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from replay_lines import SESSION, edit, line, session, write

from support import diff_rows, wait_until
from tui.diff.rows import LineRow
from tui.replay import agent as replay_agent
from tui.replay.agent import ReplayAgent
from tui.replay.app import replay_app
from tui.replay.pipes import AgentLines, ClientLines
from tui.replay.recording import Recording
from tui.state import NoticeEntry
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.diff.panel import DiffPanel


async def played_numbers(
    recording: Path, tmp_path: Path, speed: float = 0
) -> tuple[list[tuple[str, int | None, int | None]], list[str]]:
    """Play the recording to its end: the changed rows of the card's diff, and the notices."""
    app = replay_app(recording, speed=speed, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.replay.agent.finished, 60)
        await wait_until(pilot, lambda: not app.controller.turn_running, 30)
        await wait_until(pilot, lambda: len(app.query(ToolCard)) == 1, 30)
        panel = app.query_one(ToolCard).query_one(DiffPanel)
        await panel.wait_ready()
        await pilot.pause()
        rows = [
            (r.kind, r.old_no, r.new_no)
            for r in diff_rows(panel)
            if isinstance(r, LineRow) and r.kind != "context"
        ]
        conversation = app.controller.conversation
        shown = [e.text for e in conversation.entries if isinstance(e, NoticeEntry)]
        await app.action_quit()
    return rows, shown


# -- no file of this machine ------------------------------------------------------------------


async def test_a_replayed_diff_is_not_numbered_from_the_file_on_disk(tmp_path: Path) -> None:
    """A crafted recording in cwd "/" with a diff of a file that exists here: the replay used
    to read it to number the gutter (line 3). It reads nothing, so the block has no numbers."""
    target = tmp_path / "hello.py"
    target.write_text("x\ny\nB\n")  # `newText` unique on line 3 of today's file
    rows, shown = await played_numbers(write(tmp_path, session("/", [edit(0.1, target)])), tmp_path)
    assert rows == [("removed", None, None), ("added", None, None)]
    assert not [n for n in shown if n.startswith("replay:")]


async def test_a_replayed_diff_keeps_the_numbers_the_recording_carries(tmp_path: Path) -> None:
    """`_meta` lines are the recording's own: shown as recorded, whatever the disk says."""
    target = tmp_path / "hello.py"
    target.write_text("x\ny\nB\n")
    recorded = edit(0.1, target, {"dsh.line": {"old": 1, "new": 1}})
    rows, _ = await played_numbers(write(tmp_path, session("/", [recorded])), tmp_path)
    assert rows == [("removed", 1, None), ("added", None, 1)]


# -- no pause for ever --------------------------------------------------------------------------


async def test_a_huge_recorded_pause_is_shortened_with_a_notice(tmp_path: Path) -> None:
    """A gap of 1e12 s between two messages stalled the replay for ever, silently."""
    target = tmp_path / "hello.py"
    lines = session("/tmp", [edit(1e12, target)], end_t=1e12 + 0.1)
    rows, shown = await played_numbers(write(tmp_path, lines), tmp_path, speed=5)
    assert "replay: the recording pauses 1e+12 s here; shortened to 5 s" in shown
    assert len(rows) == 2


# -- answers by id ---------------------------------------------------------------------------------


class Notices:
    """The replay's driver, as far as these tests need one: the notices it is given."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def notice(self, text: str, level: Any = "info") -> None:
        self.said.append(text)


def agent_request(t: float, request_id: int, method: str, params: dict[str, Any]) -> str:
    return line("in", t, {"id": request_id, "method": method, "params": params})


def client_answer(t: float, request_id: int, result: dict[str, Any]) -> str:
    return line("out", t, {"id": request_id, "result": result})


@pytest.mark.parametrize("speed", [0, 4])
async def test_answers_out_of_their_recorded_order_are_matched_by_id(
    speed: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live, the user answered permission 11 before the client answered the read 12, which
    the recording has after request 13. Replayed, the read is answered at once, before the
    question: "the client sent an answer to id 12, which the recording does not have", and
    then a wait for that answer which had come already."""
    monkeypatch.setattr(replay_agent, "GIVE_UP_S", 1.0)  # a wrong wait fails soon
    question = {"sessionId": SESSION, "toolCall": {"toolCallId": "t1"}, "options": []}
    read = {"sessionId": SESSION, "path": "/w/a.txt"}
    allowed = {"outcome": {"outcome": "selected", "optionId": "allow"}}
    recording = Recording()
    for number, text in enumerate(
        [
            agent_request(0.0, 11, "session/request_permission", question),
            agent_request(0.01, 12, "fs/read_text_file", read),
            client_answer(0.02, 11, allowed),
            agent_request(0.03, 13, "fs/read_text_file", read),
            client_answer(0.04, 12, {"content": "a"}),
            client_answer(0.05, 13, {"content": "a"}),
        ],
        start=1,
    ):
        recording.add_line(number, text.encode() + b"\n")
    agent = ReplayAgent(recording, speed=speed)
    driver = Notices()
    agent.driver = driver  # type: ignore[assignment]
    reader, client = AgentLines(1 << 20), ClientLines()

    async def answer(request_id: int, result: dict[str, Any]) -> None:
        client.messages.put_nowait({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def the_client() -> None:
        assert b'"id":11' in await reader.readline()
        assert b'"id":12' in await reader.readline()
        await answer(12, {"content": "a"})  # the read first: no user in the way
        await answer(11, allowed)
        assert b'"id":13' in await reader.readline()
        await answer(13, {"content": "a"})
        async with asyncio.timeout(30):
            while not agent.finished:
                await asyncio.sleep(0.01)
        client.close()

    async with asyncio.timeout(60):
        await asyncio.gather(agent.run(reader, client), the_client())
    await asyncio.sleep(0)  # the notices are handed on at the next loop turn
    assert driver.said == []
