"""The files that hold the conversation are the user's alone: after a real session with a
mentioned file, its recording, dsh-agent's session log, the agent's stderr log, dsh-tui.log
and the prompt history are 0600, in 0700 directories, whatever the umask (here 022)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, turns_ended, wait_until

Start = Callable[..., TtyApp]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_conversation_files_are_private(tty: Start, home: Path) -> None:
    (home / "work").mkdir()
    (home / "work" / ".env").write_text("API_KEY=secret\n")
    os.chmod(home / "work" / ".env", 0o600)
    record = home / "rec" / "session.jsonl"
    record.parent.mkdir()
    old_umask = os.umask(0o022)  # the child inherits it
    try:
        app = tty(["--record", str(record)])
    finally:
        os.umask(old_umask)
    app.wait_for(header_ready)
    app.wait_for("Message the agent")
    app.type('read @".env" ')
    app.key("enter")
    wait_until(lambda: turns_ended(home) >= 1, what="the turn to end")
    app.wait_for("attached: .env")
    assert app.quit() == 0

    assert "API_KEY=secret" in record.read_text()  # it does hold the secret
    logs, sessions = home / "logs", home / "sessions"
    history = list((home / "state" / "dsh-tui" / "history").glob("*.jsonl"))
    files = [
        record,
        logs / "dsh-tui.log",
        *logs.glob("agent-*.log"),
        *sessions.glob("*.jsonl"),
        *history,
    ]
    assert len(files) >= 5, files
    wide = {str(path): oct(mode(path)) for path in files if mode(path) != 0o600}
    assert not wide, wide
    for directory in (logs, sessions, history[0].parent):
        assert mode(directory) == 0o700, (directory, oct(mode(directory)))
