"""Client terminals on a pty, through the wire: a scripted agent runs commands with
terminal/create and reports what terminal/output returned."""

from __future__ import annotations

import sys
from pathlib import Path

from scripted import first_turn_replies, script_app


async def test_terminal_output_is_what_a_terminal_would_show(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "subdir").mkdir(parents=True)
    isatty = "import sys; print(sys.stdout.isatty())"
    reads = "import sys; print(repr(sys.stdin.read()))"
    terminals = [
        {"command": "LS_COLORS='di=01;34' ls --color=auto", "toolCallId": "ls"},
        {"command": sys.executable, "args": ["-c", isatty], "toolCallId": "tty"},
        {"command": "printf", "args": ["a\\nb\\n"], "toolCallId": "lf"},
        {"command": sys.executable, "args": ["-c", reads], "toolCallId": "stdin"},
    ]
    app = script_app(tmp_path, {"prompts": [[{"terminal": t} for t in terminals]]})
    async with app.run_test(size=(100, 30)) as pilot:
        text = await first_turn_replies(app, pilot)
    assert "output: '\\x1b[0m\\x1b[01;34msubdir\\x1b[0m\\n'" in text
    assert "output: 'True\\n'" in text
    assert "output: 'a\\nb\\n'" in text
    assert "output: \"''\\n\"" in text
    assert text.count('terminal exit: {"exitCode": 0') == 4
