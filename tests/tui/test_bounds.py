"""Bounds on what the client keeps: display-terminal output in state, and its own log."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from acp.schema import ToolCallProgress, ToolCallStart

from tui.state import TERMINAL_OUTPUT_MAX_CHARS, BoundedOutput, Conversation
from tui.terminal_stream import DEFAULT_MAX_CHARS


def test_terminal_output_in_state_keeps_what_the_pane_keeps() -> None:
    assert TERMINAL_OUTPUT_MAX_CHARS == DEFAULT_MAX_CHARS
    conversation = Conversation()
    conversation.apply(ToolCallStart(session_update="tool_call", tool_call_id="t", title="run"))
    chunk = "0123456789" * 10_000  # 100k characters
    for i in range(120):  # 12 M characters streamed
        update = ToolCallProgress(session_update="tool_call_update", tool_call_id="t")
        update.field_meta = {"terminal_output": {"terminal_id": "t", "data": f"{i:08d}{chunk}"}}
        conversation.apply(update)
    terminal = conversation.tool_calls["t"].terminal
    assert terminal is not None
    kept = "".join(terminal.output)
    assert len(kept) <= TERMINAL_OUTPUT_MAX_CHARS + terminal.output.slack
    assert kept.endswith(f"{119:08d}{chunk}")  # the tail is what is kept
    assert terminal.output.dropped + len(kept) == 120 * (8 + len(chunk))


def test_bounded_output_trims_to_the_cap_at_a_chunk_boundary_or_inside_one() -> None:
    out = BoundedOutput(max_chars=10)
    out.slack = 0
    for piece in ("abc", "defg", "hij", "klmnop"):
        out.append(piece)
    assert "".join(out) == "ghijklmnop" and out.chars == 10 and out.dropped == 6
    out.append("x" * 25)
    assert list(out) == ["x" * 10]


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
