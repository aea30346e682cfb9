"""The harness itself: it must see a process the app leaves behind, or case 4 proves nothing."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from harness import TtyApp, alive, header_ready, script_agent_command


def test_a_process_left_behind_is_reported(tmp_path: Path) -> None:
    """An agent whose shell starts a `sleep` in a session of its own, out of reach of a
    group kill: after the app quits, the harness finds it."""
    home = tmp_path / "home"
    agent = script_agent_command(home / "script.json", {"prompts": [[]]})
    command = f"setsid sleep 120 & exec {agent}"
    app = TtyApp.start(["--agent", shlex.join(["sh", "-c", command])], home=home)
    try:
        app.wait_for(header_ready)
        app.scan_processes()
        assert app.quit() == 0
        left = app.wait_no_leftovers(timeout=2)
        assert left, f"the orphaned sleep was not found; seen: {sorted(app.seen_pids)}"
        names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in left if alive(pid)}
        assert names == {"sleep"}
    finally:
        app.close()
    assert not app.leftover_pids(), "close() did not kill what was left"


FRAMED = r"""
import os, sys, time, tty
tty.setraw(0)
out = sys.stdout
out.write("\x1b[?2026$p"); out.flush()
answer = os.read(0, 32)
out.write("\x1b[2J\x1b[Hanswer " + ("yes" if answer == b"\x1b[?2026;2$y" else repr(answer)))
out.flush()
time.sleep(0.3)
out.write("\x1b[?2026h\x1b[2J\x1b[Hhalf a fr"); out.flush()
time.sleep(0.5)
out.write("ame\x1b[?2026l"); out.flush()
os.read(0, 1)  # Ctrl+Q from close()
"""


def test_only_whole_frames_are_read(tmp_path: Path) -> None:
    """The harness answers the synchronized-output query as a modern terminal does, and the
    screen it reads is the last whole frame, never one half written."""
    script = tmp_path / "framed.py"
    script.write_text(FRAMED)
    app = TtyApp.start([str(script)], home=tmp_path / "home", program=sys.executable)
    try:
        app.wait_for("answer yes", timeout=10)
        lines = app.wait_for(lambda lines: not any("answer" in line for line in lines), 10)
        assert lines[0].rstrip() == "half a frame"
        assert app.recorder.counts["CSI ?2026h"] == 1
    finally:
        app.close()
