"""The harness itself: it must see a process the app leaves behind, or case 4 proves nothing."""

from __future__ import annotations

import shlex
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
