"""The resume picker shows each session's first prompt beside its time: dsh-agent's from its
session list, another agent's from what dsh-tui noted when it sent it; cleaned of escapes,
on one line, so two sessions with the same title can be told apart at 80x24."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, script_agent_command, turns_ended, wait_until

Start = Callable[..., TtyApp]


def test_dsh_agent_sessions_show_their_first_prompts(tty: Start, home: Path) -> None:
    """Titles cut at 60 characters look the same; the prompts' ends do not."""
    base = "please explain how the offline agent reads the word it gets"  # a title: 59 + …
    for n, end in ((1, " N"), (2, " S")):
        app = tty(size=(80, 24))
        app.wait_for(header_ready)
        app.type(base + end)
        app.key("enter")
        wait_until(lambda n=n: turns_ended(home) == n, what=f"session {n}'s turn", timeout=30)
        assert app.quit() == 0
    picker = tty(["--resume"], size=(80, 24))
    lines = picker.wait_for(lambda lines: sum(f"› {base}" in line for line in lines) == 2)
    prompts = [line.strip(" ▊▎") for line in lines if f"› {base}" in line]
    assert prompts == [f"› {base} S", f"› {base} N"], picker.dump()  # newest first
    titles = {line.strip(" ▊▎")[21:] for line in lines if "  please" in line}  # after the time
    assert len(titles) == 1, picker.dump()  # the two titles read the same


def test_another_agent_s_sessions_show_the_noted_prompt_cleaned(tty: Start, home: Path) -> None:
    work = str(home / "work")
    script = {
        "agent_name": "script-agent",
        "resume": True,
        "sessions": [
            {"sessionId": "s1", "cwd": work, "title": "Chat", "updatedAt": "2026-12-02T10:00:00Z"},
            {
                "sessionId": "s2",
                "cwd": work,
                "title": "Chat",
                "updatedAt": "2026-12-02T09:00:00Z",
                "_meta": {"dsh.firstPrompt": "LISTED\x1b]2;PWN-TITLE\x07 prompt\nsecond line"},
            },
        ],
        "prompts": [[{"touch": str(home / "done")}]],
    }
    command = script_agent_command(home / "script.json", script)
    app = tty(["--agent", command], size=(80, 24))
    app.wait_for(header_ready)
    app.type("NOTED-FIRST prompt")
    time.sleep(0.1)
    app.key("enter")
    wait_until((home / "done").exists, what="the first turn")
    app.type("a later prompt")  # not the first: not noted
    time.sleep(0.1)
    app.key("enter")
    app.wait_for("a later prompt")
    assert app.quit() == 0
    picker = tty(["--agent", command, "--resume"], size=(80, 24))
    lines = picker.wait_for(lambda lines: "LISTED" in "".join(lines))
    lines = picker.wait_for(lambda lines: "NOTED-FIRST" in "".join(lines))
    assert any("› NOTED-FIRST prompt" in line for line in lines), picker.dump()
    assert any("› LISTED prompt second line" in line for line in lines), picker.dump()
    assert "later" not in "".join(lines), picker.dump()
    assert "PWN-TITLE" not in "".join(lines) and "PWN-TITLE" not in picker.sequence_examples()
    assert sum("2026-12-02" in line and "Chat" in line for line in lines) == 2, picker.dump()
