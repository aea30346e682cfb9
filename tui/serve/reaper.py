"""Ending an app process with everything below it, when it does not end by itself.

An app quits on its own when its page closes (textual-serve sends it `quit`), and reaps its
agent and terminals as it does in a terminal. This is the fallback for an app that hangs or
died without reaping: every process in the app's process group (the app is started as a session
leader, so the group is its pid, and the agent stays in it even once orphaned), and every
descendant of those, is stopped first, so none can fork a child the scan would miss, then
killed. The process table is dsh_common.proc_tree's, the one dsh-agent and dsh-tui use.
"""

from __future__ import annotations

import contextlib
import os
import signal

from dsh_common.proc_tree import ProcTable, descendants, scan


def tree(root: int, table: ProcTable) -> set[int]:
    """The live processes of `root`'s group and below them, `root` itself included if alive."""
    group = {pid for pid, info in table.items() if pid == root or info.pgid == root}
    found = group | descendants(group | {root}, table)
    return {pid for pid in found if pid in table and table[pid].alive}


def _signal(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def kill_tree(root: int) -> set[int]:
    """SIGSTOP the tree until a scan finds nothing new, then SIGKILL it all. Returns the pids
    it killed (empty when the tree had already ended)."""
    stopped: set[int] = set()
    while (table := scan()) is not None:
        found = tree(root, table) - stopped
        if not found:
            break
        _signal(found, signal.SIGSTOP)
        stopped |= found
    if table is None:  # no /proc: the process group is what can be reached
        with contextlib.suppress(ProcessLookupError):
            os.killpg(root, signal.SIGKILL)
            return {root}
        return set()
    _signal(stopped, signal.SIGKILL)
    return stopped
