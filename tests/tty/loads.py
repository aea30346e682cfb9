"""Scripts for tests/e2e/script_agent.py that the pty tests and bench/bench_screen.py play.

Every load ends with a unique marker line that only appears once everything before it was
rendered, so "the marker is on screen" means "the end of the turn is on screen".
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

TOKEN = re.compile(r"\bw(\d{4})\b")


def nonce() -> str:
    return uuid.uuid4().hex[:8].upper()


def text(chunk: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": chunk},
        }
    }


def tall_reply(paragraphs: int, marker: str) -> list[dict[str, Any]]:
    """One Markdown reply of `paragraphs` short paragraphs (two rows each), then `marker`."""
    chunks = [
        text(f"paragraph {i:03d} of a reply taller than the screen\n\n") for i in range(paragraphs)
    ]
    return [*chunks, text(marker)]


def word_stream(count: int, marker: str, pace: float, batch: int) -> list[dict[str, Any]]:
    """`count` words `w0000 w0001 ...` in one paragraph, `batch` chunks every `pace` seconds,
    then a new paragraph with `marker`. The words say which part of the reply is on screen."""
    return [
        {"stream": {"count": count, "text": "w{i:04d} ", "pace": pace, "batch": batch}},
        text(f"\n\n{marker}"),
    ]


def held_word_stream(
    first: int, rest: int, marker: str, pace: float, batch: int, release: Path
) -> list[dict[str, Any]]:
    """`word_stream` of `first + rest` words that stops after the first `first` until the
    file `release` exists: a test scrolls or resizes while the stream is certainly not over,
    then lets the rest stream in."""
    words = {"text": "w{i:04d} ", "pace": pace, "batch": batch}
    return [
        {"stream": {**words, "count": first}},
        {"wait_file": str(release)},
        {"stream": {**words, "count": rest, "start": first}},
        text(f"\n\n{marker}"),
    ]


def tool_calls(calls: int, updates_per_call: int, marker: str) -> list[dict[str, Any]]:
    """A burst of `calls` read cards, each updated `updates_per_call` times; the last update
    of the last card carries `marker` as its text content."""
    actions: list[dict[str, Any]] = []
    for i in range(calls):
        call_id = f"c{i}"
        actions.append(
            {
                "update": {
                    "sessionUpdate": "tool_call",
                    "toolCallId": call_id,
                    "title": f"Read file{i}.py",
                    "kind": "read",
                    "status": "in_progress",
                }
            }
        )
        for step in range(updates_per_call):
            last = step == updates_per_call - 1
            body = marker if last and i == calls - 1 else f"call {i} step {step}"
            actions.append(
                {
                    "update": {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call_id,
                        "status": "completed" if last else "in_progress",
                        "content": [{"type": "content", "content": {"type": "text", "text": body}}],
                    }
                }
            )
    return actions


def module_lines(count: int) -> list[str]:
    return [f"value_{i:05d} = compute({i}, scale={i % 7})" for i in range(count)]


def edit(lines: int, changes: int, marker: str, workspace: Path) -> list[dict[str, Any]]:
    """An edit card of a `lines`-line file with `changes` changed lines spread through it, as
    one diff item whose oldText is the whole file (what dsh-agent sends for a full write);
    then `marker` as a message."""
    old = module_lines(lines)
    new = list(old)
    step = max(1, lines // changes)
    for k in range(changes):
        index = min(lines - 1, k * step + step // 2)
        new[index] = new[index].replace("compute(", "recompute(")
    path = str(workspace / "big_module.py")
    return [
        {
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "edit-1",
                "title": "Edit big_module.py",
                "kind": "edit",
                "status": "in_progress",
                "locations": [{"path": path}],
            }
        },
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "edit-1",
                "status": "completed",
                "content": [
                    {
                        "type": "diff",
                        "path": path,
                        "oldText": "\n".join(old) + "\n",
                        "newText": "\n".join(new) + "\n",
                    }
                ],
            }
        },
        text(marker),
    ]


def terminal_output(megabytes: float, end_marker: str, marker: str) -> list[dict[str, Any]]:
    """A client terminal (terminal/create) whose command prints about `megabytes` MB of
    numbered lines, then `end_marker` as its last line; then `marker` as a message."""
    size = int(megabytes * 1_000_000)
    program = (
        "import sys\n"
        f"line = 'x' * 63\n"
        f"n = {size} // 72\n"
        "out = sys.stdout\n"
        "for i in range(n):\n"
        "    out.write(f'{i:07d} {line}\\n')\n"
        f"out.write('{end_marker}\\n')\n"
    )
    return [
        {
            "terminal": {
                "command": "python3",
                "args": ["-c", program],
                "toolCallId": "term-load",
                "report": "exit",
            }
        },
        text(marker),
    ]
