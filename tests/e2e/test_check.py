"""`dsh-tui check` against real agent processes: dsh-agent passes every check, and each
deliberately broken scripted agent makes exactly its own check fail."""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted import SCRIPT_AGENT

from tui.check.battery import evaluate, run_all
from tui.check.results import Result
from tui.check.robustness import UNKNOWN_METHOD
from tui.check.runner import Agent, Timeouts

CHECKS = (
    "handshake",
    "session",
    "schema",
    "tool calls: unique ids",
    "tool calls: known ids",
    "tool calls: status forward",
    "tool calls: finished",
    "absolute paths",
    "capabilities: terminal off",
    "capabilities: fs off",
    "cancel",
    "method session/list",
    "method session/load",
    "method session/resume",
    "method session/set_mode",
    "method session/set_config_option",
    "method session/set_model",
    "robustness: unknown method",
    "robustness: malformed line",
    "robustness: stdin closed",
)


def call(call_id: str, status: str, **fields: Any) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": call_id,
            "status": status,
            **fields,
        }
    }


def progress(call_id: str, status: str) -> dict[str, Any]:
    return {
        "update": {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": status}
    }


def say(text: Any) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


DIFF = {"type": "diff", "path": "${CWD}/check.txt", "oldText": "draft", "newText": "final"}


def first_turn(n: int) -> list[dict[str, Any]]:
    """The turn: a read and an edit, its call ids numbered by the turn, as agents should."""
    return [
        call(f"read-{n}", "pending", kind="read", locations=[{"path": "${CWD}/check.txt"}]),
        progress(f"read-{n}", "in_progress"),
        progress(f"read-{n}", "completed"),
        call(f"edit-{n}", "in_progress", kind="edit", content=[DIFF]),
        progress(f"edit-{n}", "completed"),
        say("done"),
    ]


# A conforming agent: the turn, the turn again (with the terminal off) with new ids, then a
# prompt that waits to be cancelled.
CONFORMING: dict[str, Any] = {
    "guarded": True,
    "prompts": [
        first_turn(1),
        first_turn(2),
        [
            call("slow-1", "pending", kind="execute"),
            {"wait_cancel": True},
            progress("slow-1", "completed"),
        ],
    ],
}


def turn_with(*actions: dict[str, Any]) -> dict[str, Any]:
    script = copy.deepcopy(CONFORMING)
    script["prompts"][0] += list(actions)
    return script


def prompts(*turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {**copy.deepcopy(CONFORMING), "prompts": [*turns, CONFORMING["prompts"][-1]]}


def with_options(**options: Any) -> dict[str, Any]:
    return {**copy.deepcopy(CONFORMING), **options}


BROKEN = {
    # The ACP TypeScript SDK's example agent numbers its calls from 1 in every turn.
    "tool calls: unique ids": prompts(first_turn(1), first_turn(1)),
    "tool calls: known ids": turn_with(progress("ghost-1", "completed")),
    "tool calls: status forward": turn_with(
        progress("edit-1", "in_progress"), progress("edit-1", "completed")
    ),
    "tool calls: finished": turn_with(call("open-1", "pending", kind="other")),
    "absolute paths": turn_with(
        call("rel-1", "completed", kind="edit", content=[{**DIFF, "path": "check.txt"}])
    ),
    "schema": turn_with(say(42)),
    "capabilities: terminal off": turn_with({"terminal": {"command": "true", "toolCallId": "t-1"}}),
    "capabilities: fs off": turn_with({"read": {"path": "${CWD}/check.txt"}}),
    "cancel": with_options(ignoreCancel=True),
    "robustness: unknown method": with_options(answer={UNKNOWN_METHOD: {}}),
    "robustness: malformed line": with_options(guarded=False),
}


async def battery(tmp_path: Path, script: dict[str, Any]) -> list[Result]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    argv = (sys.executable, str(SCRIPT_AGENT), str(path))
    agent = Agent(argv, tmp_path, program=sys.executable)
    runs = await run_all(agent, ["go"], Timeouts(start_s=30, turn_s=30, probe_s=30))
    return evaluate(runs)


def column(results: list[Result]) -> dict[str, str]:
    return {each.check: each.status for each in results}


async def test_a_conforming_scripted_agent_passes_every_check(tmp_path: Path) -> None:
    results = await battery(tmp_path, CONFORMING)
    assert [each.check for each in results] == list(CHECKS)
    assert column(results) == dict.fromkeys(CHECKS, "pass"), results


def cli_battery(tmp_path: Path, script: dict[str, Any]) -> list[Result]:
    """The same through the real command line, which must exit 1 on a failed check."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    report = tmp_path / "report.json"
    agent = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    command = [sys.executable, "-m", "tui.cli", "check", "--agent", agent, "--prompt", "go"]
    done = subprocess.run(
        [*command, "--json", str(report)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stdout + done.stderr
    rows = json.loads(report.read_text())["results"]
    return [Result(row["check"], row["status"], row["evidence"]) for row in rows]


@pytest.mark.parametrize("broken", list(BROKEN))
async def test_each_broken_agent_fails_exactly_its_check(tmp_path: Path, broken: str) -> None:
    if broken == "cancel":
        results = cli_battery(tmp_path, BROKEN[broken])
    else:
        results = await battery(tmp_path, BROKEN[broken])
    expected = {**dict.fromkeys(CHECKS, "pass"), broken: "fail"}
    assert column(results) == expected, [each for each in results if each.status != "pass"]


def offline_env() -> dict[str, str]:
    """This environment without what would give dsh-agent a real model."""
    model = ("DEEPSEEK_API_KEY", "DSH_API_KEY", "DSH_BASE_URL", "DSH_SCENARIO", "DSH_CONFIG")
    return {k: v for k, v in os.environ.items() if k not in model and not k.startswith("DSH_MODEL")}


def test_dsh_agent_passes_every_check(tmp_path: Path) -> None:
    """The real command line on the real dsh-agent, offline: the table and the JSON."""
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "check", "--agent", "dsh-agent", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**offline_env(), "DSH_AGENT": ""},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(report.read_text())["results"]
    assert [row["check"] for row in rows] == list(CHECKS)
    assert {row["check"]: row["status"] for row in rows} == dict.fromkeys(CHECKS, "pass"), rows
    assert "20 passed, 0 failed, 0 skipped" in done.stdout
    assert "\x1b" not in done.stdout


async def test_an_agent_that_exits_at_once_fails_the_handshake_and_is_not_waited_on(
    tmp_path: Path,
) -> None:
    argv = (sys.executable, "-c", "import sys; sys.stderr.write('no such agent\\n')")
    agent = Agent(argv, tmp_path, program=sys.executable)
    results = await run_all(agent, ["go"], Timeouts(start_s=600, turn_s=600, probe_s=600))
    statuses = column(evaluate(results))
    assert statuses["handshake"] == "fail" and statuses["session"] == "fail"
    rows = {each.check: each for each in evaluate(results)}
    assert "no such agent" in rows["handshake"].evidence
    # The raw probe saw the pipe close instead of waiting for an answer that cannot come.
    assert "closed its stdout" in rows["robustness: unknown method"].evidence
