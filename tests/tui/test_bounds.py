"""Bounds on what the client keeps: display-terminal output in state, and its own log."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from acp.schema import ToolCallProgress, ToolCallStart

from tui.state import Conversation
from tui.terminal.stream import DEFAULT_MAX_CHARS


def test_terminal_output_in_state_is_one_bounded_store() -> None:
    """12 M characters streamed into a display terminal no pane shows: the state keeps at most
    what a pane would (the feed's queue is cut back to the tail its buffer can retain), and a
    pane shown later parses exactly that tail."""
    conversation = Conversation()
    conversation.apply(ToolCallStart(session_update="tool_call", tool_call_id="t", title="run"))
    for i in range(120):  # 12 M characters streamed, 100k (1,000 lines) at a time
        update = ToolCallProgress(session_update="tool_call_update", tool_call_id="t")
        data = "".join(f"{i:04d} {j:04d} " + "x" * 89 + "\n" for j in range(1000))
        update.field_meta = {"terminal_output": {"terminal_id": "t", "data": data}}
        conversation.apply(update)
    terminal = conversation.tool_calls["t"].terminal
    assert terminal is not None
    feed = terminal.output
    assert feed.chars == 120 * 100_000
    assert feed.queued_chars <= 2 * DEFAULT_MAX_CHARS
    feed.buffer.feed(feed.take())  # what a pane does once it is shown
    kept = list(feed.buffer.lines)
    assert sum(len(line) + 1 for line in kept) <= DEFAULT_MAX_CHARS
    assert kept[-1] == "0119 0999 " + "x" * 89  # the tail is what is kept
    assert feed.buffer.dropped_lines + len(kept) == 120_000


def test_the_client_log_is_rotated(tmp_path: Path) -> None:
    code = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "import tui.cli as cli\n"
        "cli.LOG_MAX_BYTES = 100_000\n"
        "cli.configure_logging(Path(sys.argv[1]))\n"
        "for i in range(5000):\n"
        "    logging.getLogger('x').info('%05d %s', i, 'y' * 100)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, timeout=60)
    logs = sorted(p.name for p in tmp_path.iterdir())
    assert logs == ["dsh-tui.log", "dsh-tui.log.1", "dsh-tui.log.2"]
    assert all(p.stat().st_size <= 100_000 for p in tmp_path.iterdir())
    assert "04999" in (tmp_path / "dsh-tui.log").read_text()


def test_the_agents_stderr_log_is_rotated_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real agent process floods stderr through the file it was given; the log stays capped
    and its newest lines are kept."""
    import time

    from tui import agent_log
    from tui.launch import AgentProcess, LaunchSpec

    monkeypatch.setattr(agent_log, "AGENT_LOG_MAX_BYTES", 200_000)
    monkeypatch.setattr(agent_log, "AGENT_LOG_CHECK_S", 0.02)
    flood = (
        "import sys, time\n"
        "for i in range(400):\n"
        "    sys.stderr.write(f'{i:05d} ' + 'e' * 5000 + '\\n'); sys.stderr.flush()\n"
        "    time.sleep(0.002)\n"
        "sys.stderr.write('last words\\n')\n"
    )
    log_path = agent_log.new_agent_log(tmp_path)
    spec = LaunchSpec.from_command(
        f"{sys.executable} -c {shlex.quote(flood)}", tmp_path, log_path, True
    )
    process = AgentProcess.start(spec)
    deadline = time.monotonic() + 30
    while process.returncode is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.discard()
    rotated = log_path.with_name(f"{log_path.name}.1")
    assert rotated.exists()
    assert log_path.stat().st_size <= 200_000 + 100 * 5006  # at most one interval over
    assert rotated.stat().st_size <= 200_000 + 100 * 5006
    assert "last words" in agent_log.read_tail(log_path) or "last words" in rotated.read_text()
