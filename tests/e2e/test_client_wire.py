"""The client against a hostile agent on real pipes: what it refuses, and that it carries on."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from textual.widgets import Input

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.permission import PermissionPanel
from tui.widgets.transcript.messages import AgentMessage, Notice

HOSTILE_AGENT = Path(__file__).with_name("hostile_agent.py")


def hostile_app(tmp_path: Path, script: dict[str, Any]) -> DshApp:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    workspace = tmp_path / "work"
    workspace.mkdir(exist_ok=True)
    command = shlex.join([sys.executable, str(HOSTILE_AGENT), str(path)])
    return watch_turns(DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs")))


async def run_turn(app: DshApp, pilot: Any, text: str = "go") -> None:
    await wait_until(pilot, lambda: app.controller.session is not None)
    done = turns_ended(app)
    prompt = app.query_one("#prompt")
    if isinstance(prompt, Input):
        prompt.value = text
    else:  # the multi-line prompt
        prompt.text = text  # type: ignore[attr-defined]
    await pilot.press("enter")
    await wait_until(pilot, lambda: turns_ended(app) > done)


def replies(app: DshApp) -> str:
    return "\n".join(m.source for m in app.query(AgentMessage))


def notices(app: DshApp) -> list[str]:
    return [str(n.render()) for n in app.query(Notice)]


def say(text: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


async def test_lines_that_are_not_objects_do_not_end_the_connection(tmp_path: Path) -> None:
    # Not "[1, 2]": the answer to it is a batch of errors, which ends an SDK-based agent like
    # this one (the SDK's receive loop takes only objects); tests/tui/test_wire.py has batches.
    junk = ["42", '"x"', "null", "[]", "{not json", "true", '{"id": {"a": 1}, "result": 1}']
    script = {"prompts": [[*({"raw": line} for line in junk), say("still here")], [say("again")]]}
    app = hostile_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(app, pilot)
        await wait_until(pilot, lambda: "still here" in replies(app))
        assert app.controller.failure is None
        assert (
            app.controller.session is not None and app.controller.session.process.returncode is None
        )
        shown = notices(app)
        assert any("malformed message from the agent (not shown)" in n for n in shown)
        assert not [n for n in shown if n.count("(not shown)") > 1 or "unsupported malformed" in n]
        await run_turn(app, pilot)
        await wait_until(pilot, lambda: "again" in replies(app))
        assert app.controller.failure is None


async def test_another_sessions_requests_and_updates_are_refused(tmp_path: Path) -> None:
    secret = tmp_path / "work" / "a.txt"
    script = {
        "prompts": [
            [
                {"write": {"path": str(secret), "content": "mine\n"}},
                {
                    "request": {
                        "method": "fs/read_text_file",
                        "params": {"sessionId": "someone-else", "path": str(secret)},
                    }
                },
                {
                    "request": {
                        "method": "terminal/create",
                        "params": {"sessionId": "someone-else", "command": "true"},
                    }
                },
                {
                    "notify": {
                        "method": "session/update",
                        "params": {
                            "sessionId": "someone-else",
                            "update": say("ghost text")["update"],
                        },
                    }
                },
                say("done"),
            ]
        ]
    }
    app = hostile_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(app, pilot)
        await wait_until(pilot, lambda: "done" in replies(app))
        text = replies(app)
        assert "fs/read_text_file: error -32602" in text
        assert "terminal/create: error -32602" in text
        assert "mine" not in text
        assert "ghost text" not in text
        assert any("update for another session" in n for n in notices(app))


async def test_invalid_parameters_get_invalid_params(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    target = tmp_path / "work" / "a.txt"
    target.write_text("one\ntwo\n")
    bad_reads = [{"line": -5}, {"limit": -1}, {"line": 1.5}, {"line": True}]
    script = {
        "prompts": [
            [
                *(
                    {
                        "request": {
                            "method": "fs/read_text_file",
                            "params": {"path": str(target), **p},
                        }
                    }
                    for p in bad_reads
                ),
                {
                    "request": {
                        "method": "terminal/create",
                        "params": {"command": "echo", "args": ["hi"], "outputByteLimit": -1},
                    }
                },
                {
                    "request": {
                        "method": "terminal/create",
                        "params": {"command": "echo", "args": ["hi", 5]},
                    }
                },
                {
                    "request": {
                        "method": "fs/read_text_file",
                        "params": {"path": str(tmp_path / "work" / ("n" * 300))},
                    }
                },
                say("done"),
            ]
        ]
    }
    app = hostile_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(app, pilot)
        await wait_until(pilot, lambda: "done" in replies(app))
        text = replies(app)
        assert text.count("fs/read_text_file: error -32602") == 5
        assert text.count("terminal/create: error -32602") == 2
        assert "line must be 1 or more" in text
        assert "limit must be 0 or more" in text
        assert "line must be an integer" in text
        assert "outputByteLimit must be 0 or more" in text
        assert "args must be a list of strings" in text
        assert "too long" in text and "Errno" not in text
        assert "result" not in text


async def test_meta_cannot_replace_validated_parameters(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    mine = tmp_path / "work" / "a.txt"
    mine.write_text("inside\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    script = {
        "prompts": [
            [
                {
                    "request": {
                        "method": "fs/read_text_file",
                        "params": {"path": str(mine), "_meta": {"path": str(secret)}},
                    }
                },
                {
                    "notify": {
                        "method": "session/update",
                        "params": {
                            "update": say("drawn once")["update"],
                            "_meta": {"update": say("swapped in")["update"]},
                        },
                    }
                },
                say("done"),
            ]
        ]
    }
    app = hostile_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(app, pilot)
        await wait_until(pilot, lambda: "done" in replies(app))
        text = replies(app)
        assert "fs/read_text_file: error -32602 fs/read_text_file: _meta would replace" in text
        assert "top secret" not in text and "inside" not in text
        assert "drawn once" in text and "swapped in" not in text
        assert any("_meta keys update would replace parameters" in n for n in notices(app))


async def test_requests_after_the_turn_ended_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "work" / "late.txt"
    call = {"toolCallId": "late-1", "title": "Late edit", "kind": "edit"}
    options = [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
    late = [
        {"write": {"path": str(target), "content": "late\n"}},
        {"permission": {"toolCall": call, "options": options}},
        {"request": {"method": "terminal/create", "params": {"command": "true"}}},
        {"read": {"path": str(tmp_path / "work" / "x.txt")}},
        say("late done"),
    ]
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "x.txt").write_text("readable\n")
    script = {"prompts": [[{"later": {"delay": 0.2, "actions": late}}, say("turn over")]]}
    app = hostile_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(app, pilot)
        await wait_until(pilot, lambda: "late done" in replies(app))
        text = replies(app)
        assert "write error -32602" in text and "no prompt turn is running" in text
        assert "permission outcome: cancelled" in text
        assert "terminal/create: error -32602" in text
        assert "read: 'readable\\n'" in text
        assert not app.query(PermissionPanel)
        assert not target.exists()
        assert app.controller.failure is None
