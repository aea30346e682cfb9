"""Ending an app process with everything below it, when it does not end by itself.

An app quits on its own when its page closes (textual-serve sends it `quit`), and reaps its
agent and terminals as it does in a terminal. This is the fallback for an app that hangs or
died without reaping: every process whose parent chain reaches the app, or that is still in
the app's session (the app is started as a session leader, and an orphan keeps its session),
is stopped first, so none can fork a child the scan would miss, then killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

ProcessTable = dict[int, tuple[int, int, str]]  # pid -> (ppid, session id, state)


def process_table() -> ProcessTable:
    table: ProcessTable = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            data = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may itself hold spaces or parentheses.
        fields = data[data.rindex(")") + 2 :].split()
        table[int(name)] = (int(fields[1]), int(fields[3]), fields[0])
    return table


def tree(root: int, table: ProcessTable) -> set[int]:
    """The live processes below `root` or in its session, `root` itself included if alive."""
    found = {
        pid
        for pid, (_ppid, sid, state) in table.items()
        if (pid == root or sid == root) and state != "Z"
    }
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _sid, state) in table.items():
            if pid not in found and ppid in found | {root} and state != "Z":
                found.add(pid)
                grew = True
    return found


def _signal(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def kill_tree(root: int) -> set[int]:
    """SIGSTOP the tree until a scan finds nothing new, then SIGKILL it all. Returns the pids
    it killed (empty when the tree had already ended)."""
    if not Path("/proc").is_dir():  # no /proc: the session's process group is what is left
        try:
            os.killpg(root, signal.SIGKILL)
        except ProcessLookupError:
            return set()
        return {root}
    stopped: set[int] = set()
    while True:
        found = tree(root, process_table()) - stopped
        if not found:
            break
        _signal(found, signal.SIGSTOP)
        stopped |= found
    _signal(stopped, signal.SIGKILL)
    return stopped
