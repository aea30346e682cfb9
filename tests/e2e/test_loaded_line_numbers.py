"""A diff from a loaded session's history is numbered only from what the wire carries.

`session/load` replays calls made when the files were different: finding their snippets in
today's file numbered a foreign agent's `--resume` 3, 4 and 5 where live had shown 1, 2 and 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted import script_app

from support import diff_rows, wait_until
from tui.app import DshApp
from tui.diff.rows import LineRow
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.diff.panel import DiffPanel


def edit(call_id: str, path: Path) -> dict[str, Any]:
    block = {"type": "diff", "path": str(path), "oldText": "b\n", "newText": "B\n"}
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": call_id,
        "title": "Edit hello.py",
        "kind": "edit",
        "status": "completed",
        "content": [block],
    }


async def numbers(
    pilot: Any, app: DshApp, call_id: str
) -> list[tuple[str, int | None, int | None]]:
    card = next(c for c in app.query(ToolCard) if c.entry.tool_call_id == call_id)
    for _ in range(600):  # the card mounts its diff panel a frame after itself
        if card.query(DiffPanel):
            break
        await pilot.pause(0.05)
    panel = card.query_one(DiffPanel)
    await panel.wait_ready()
    await pilot.pause()
    return [
        (r.kind, r.old_no, r.new_no)
        for r in diff_rows(panel)
        if isinstance(r, LineRow) and r.kind != "context"
    ]


async def test_a_loaded_diff_is_not_numbered_from_todays_file(tmp_path: Path) -> None:
    target = tmp_path / "work" / "hello.py"
    script = {
        "load": [edit("old-1", target)],
        "prompts": [[{"update": edit("live-1", target)}]],
    }
    app = script_app(tmp_path, script, resume="s1")
    target.write_text("x\ny\nB\n")  # two lines added at the top since the call was made
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: len(app.query(ToolCard)) == 1)
        assert await numbers(pilot, app, "old-1") == [
            ("removed", None, None),
            ("added", None, None),
        ]
        # A live call may still use the file at hand.
        app.controller.submit_prompt("go")
        await wait_until(pilot, lambda: len(app.query(ToolCard)) == 2)
        assert await numbers(pilot, app, "live-1") == [("removed", 3, None), ("added", None, 3)]
