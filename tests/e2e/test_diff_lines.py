"""Diff line numbers end to end: the real dsh-agent, and a foreign-style scripted agent.

ACP's `diff` has no start line. dsh-agent sends `_meta["dsh.line"]`; an agent that sends only
`old_string`/`new_string` snippets is placed by finding them in the file on disk. Either way
the card, the permission preview and the review screen show the line the edit is really on.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from textual.widgets import Input, TextArea

from support import AGENT_COMMAND, diff_rows, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.diff.rows import LineRow
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.diff.panel import DiffPanel
from tui.widgets.diff.review import DiffReviewScreen
from tui.widgets.permission import PermissionPanel
from tui.widgets.transcript.messages import AgentMessage

SCRIPT_AGENT = Path(__file__).with_name("script_agent.py")
FORTY = "".join(f"value_{n} = {n}\n" for n in range(1, 41))
EDITED = FORTY.replace("value_17 = 17\n", "value_17 = 170\n")


def changed_lines(panel: DiffPanel) -> list[tuple[str, int | None, int | None]]:
    """The removed and added rows of a panel: (kind, old number, new number)."""
    return [
        (row.kind, row.old_no, row.new_no)
        for row in diff_rows(panel)
        if isinstance(row, LineRow) and row.kind != "context"
    ]


async def card_panel(pilot: Any, app: DshApp) -> DiffPanel:
    await wait_until(pilot, lambda: bool(app.query(ToolCard)))
    await wait_until(pilot, lambda: bool(app.query_one(ToolCard).query(DiffPanel)))
    panel = app.query_one(ToolCard).query_one(DiffPanel)
    await panel.wait_ready()
    return panel


async def send(app: DshApp, pilot: Any, text: str) -> None:
    """Type a prompt and send it (a one-line `Input` or the multi-line prompt area)."""
    await wait_until(pilot, lambda: app.controller.session is not None)
    prompt = app.query_one("#prompt")
    if isinstance(prompt, Input):
        prompt.value = text
    else:
        assert isinstance(prompt, TextArea)
        prompt.text = text
    prompt.focus()
    await pilot.press("enter")


async def test_offline_agent_edit_of_line_17_shows_17(tmp_path: Path) -> None:
    """The agent's call carries the line read when the call arrived, its result the hunk's
    start lines: 17 while the question is open, in the preview, and after the edit."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "values.py").write_text(FORTY)
    edit = {
        "name": "edit",
        "arguments": {
            "file_path": "${CWD}/values.py",
            "old_string": "value_17 = 17\n",
            "new_string": "value_17 = 170\n",
        },
    }
    scenario = tmp_path / "edit17.json"
    scenario.write_text(json.dumps({"steps": [[{"tool_call": edit}], [{"text": "Done."}]]}))
    command = f"{AGENT_COMMAND} --scenario {shlex.quote(str(scenario))}"
    app = DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs"))
    watch_turns(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(app, pilot, "bump value 17")
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        pending = await card_panel(pilot, app)
        assert changed_lines(pending) == [("removed", 17, None), ("added", None, 17)]
        preview = app.query_one(PermissionPanel).query_one(DiffPanel)
        await preview.wait_ready()
        assert changed_lines(preview) == [("removed", 17, None), ("added", None, 17)]
        await pilot.press("tab")  # the question takes the keys
        await pilot.press("a")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        card = app.query_one(ToolCard)
        await wait_until(pilot, lambda: card.entry.status == "completed")
        done = await card_panel(pilot, app)
        await wait_until(pilot, lambda: done.model is not None)
        assert changed_lines(done) == [("removed", 17, None), ("added", None, 17)]
        numbers = [
            r.new_no for r in diff_rows(done) if isinstance(r, LineRow) and r.kind != "removed"
        ]
        assert numbers == list(range(14, 21))  # 3 lines of context each side
        assert [(loc.path, loc.line) for loc in card.entry.locations] == [
            (str(workspace / "values.py"), 17)
        ]
    assert (workspace / "values.py").read_text() == EDITED


async def test_foreign_agent_snippets_are_placed_by_anchoring(tmp_path: Path) -> None:
    """A scripted agent in the style of most ACP agents: `oldText`/`newText` snippets, no
    `_meta`, no line in `locations`. Pending, the snippet's `oldText` is found on line 17;
    after the agent wrote the file (through the client's fs) and completed, its `newText`
    is; the review screen numbers it the same and offers every option."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    target = workspace / "values.py"
    target.write_text(FORTY)
    snippet = {
        "type": "diff",
        "path": str(target),
        "oldText": "value_17 = 17\n",
        "newText": "value_17 = 170\n",
    }
    call = {
        "sessionUpdate": "tool_call",
        "toolCallId": "e1",
        "title": "Edit values.py",
        "kind": "edit",
        "status": "pending",
        "content": [snippet],
        "locations": [{"path": str(target)}],
    }
    options = [
        {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ]
    script = {
        "prompts": [
            [
                {"update": call},
                {"permission": {"toolCall": {"toolCallId": "e1"}, "options": options}},
                {"write": {"path": str(target), "content": EDITED}},
                {
                    "update": {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": "e1",
                        "status": "completed",
                    }
                },
            ]
        ]
    }
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    app = DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs"))
    watch_turns(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(app, pilot, "go")
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        pending = await card_panel(pilot, app)
        await wait_until(pilot, lambda: changed_lines(pending) != [] and pending.model is not None)
        assert changed_lines(pending) == [("removed", 17, None), ("added", None, 17)]

        await pilot.press("tab", "enter")  # the question takes the keys; the full review
        await wait_until(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        review = app.screen
        assert isinstance(review, DiffReviewScreen)
        await review.panel.wait_ready()
        assert changed_lines(review.panel) == [("removed", 17, None), ("added", None, 17)]
        assert [option.option_id for _, option in review.options] == ["once", "always", "no"]
        await pilot.press("A")  # allow always, from the review screen
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        replies = "\n".join(m.source for m in app.query(AgentMessage))
        assert "permission outcome: selected always" in replies

        card = app.query_one(ToolCard)
        await wait_until(pilot, lambda: card.entry.status == "completed")
        done = card.query_one(DiffPanel)
        await wait_until(
            pilot, lambda: done.anchoring is not None and done.anchoring.phase == "after"
        )
        await done.wait_ready()
        await wait_until(pilot, lambda: changed_lines(done) != [])
        assert changed_lines(done) == [("removed", 17, None), ("added", None, 17)]
    assert target.read_text() == EDITED
