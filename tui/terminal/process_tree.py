"""Process trees: finding every process a terminal's command started, and signalling them.

Kill must reach the whole tree: the command's process group, descendants that left it with
setsid (found through /proc on Linux), and daemons that double-forked away from the tree. For
the last, dsh-tui is a child subreaper (`dsh_common.proc_tree`), so they are reparented to it, and
each command's environment carries a marker naming its terminal (tui/terminal/process.py), by
which `ProcessTrees` traces them back. Where there is no /proc (macOS), the process group is all
that can be signalled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Iterable, Mapping

from dsh_common import proc_tree
from dsh_common.proc_tree import ProcTable, children_of, environ_value, read_stat
from tui.terminal.process import TerminalProcess

__all__ = ["ProcessTrees"]


class ProcessTrees:
    """The process trees of one manager's terminals, with the orphans traced back to them.

    `marker` is the environment entry prefix (`DSH_TUI_TERMINAL=<token>/`) of this manager's
    commands; `terminals` gives its terminals by id.
    """

    def __init__(
        self, marker: bytes, terminals: Callable[[], Mapping[str, TerminalProcess]]
    ) -> None:
        self._marker = marker
        self._terminals = terminals
        # Processes reparented to this process (see become_subreaper) whose environment names
        # one of our terminals: pid -> terminal.
        self._orphans: dict[int, TerminalProcess] = {}

    def scan(self) -> ProcTable | None:
        """The /proc table, after adopting new orphans and reaping dead ones."""
        table = proc_tree.scan()
        if table is not None:
            self._adopt(table)
        return table

    def _adopt(self, table: ProcTable) -> None:
        """Trace processes reparented to us back to their terminal, by the marker in their
        environment; reap those of them that died (they are our children now, and nobody else
        waits for them)."""
        me = os.getpid()
        for pid in [pid for pid in self._orphans if pid not in table]:
            del self._orphans[pid]
        direct = {term.pid for term in self._terminals().values()}
        for pid, info in table.items():
            if info.ppid != me or pid in direct or pid in self._orphans or not info.alive:
                continue
            owner = self._marked(pid)
            if owner is not None:
                self._orphans[pid] = owner
        for pid in list(self._orphans):
            info = table[pid]
            if info.ppid == me and not info.alive:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                table[pid] = info._replace(state="X")

    def _marked(self, pid: int) -> TerminalProcess | None:
        terminal_id = environ_value(pid, self._marker)
        if terminal_id is None:
            return None
        return self._terminals().get(terminal_id.decode("utf-8", "replace"))

    def _orphans_of(self, term: TerminalProcess) -> list[int]:
        return [pid for pid, owner in self._orphans.items() if owner is term]

    def tree_alive(self, term: TerminalProcess) -> bool:
        table = self.scan()
        if table is None:
            try:
                os.killpg(term.pgid, 0)
            except (ProcessLookupError, PermissionError):
                return False
            return True
        return bool(living_tree(term, table, self._orphans_of(term)))

    def signal_tree(self, term: TerminalProcess, sig: signal.Signals) -> None:
        table = self.scan()
        escaped: Iterable[int] = ()
        if table is not None:
            living_tree(term, table, self._orphans_of(term))
            escaped = sorted(term.escaped)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(term.pgid, sig)
        for pid in escaped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def signal_all(
        self, terms: list[TerminalProcess], table: ProcTable, sig: signal.Signals
    ) -> set[int]:
        """Signal every tree found in one table; the pids signalled, to watch for the end."""
        pids: set[int] = set()
        for term in terms:
            living = living_tree(term, table, self._orphans_of(term)) if table else set()
            if term.returncode is None or living:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(term.pgid, sig)
            for pid in sorted(term.escaped):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
            pids |= living
        return pids

    async def until_gone(self, term: TerminalProcess, timeout: float) -> bool:
        """Poll until the command has exited and its tree is gone; False on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        delay = 0.005
        while term.returncode is None or self.tree_alive(term):
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)
        return True

    async def until_all_gone(
        self, terms: list[TerminalProcess], pids: set[int], timeout: float
    ) -> bool:
        """Poll the given processes (not the whole /proc) until all are gone."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        delay = 0.005
        left = set(pids)
        while True:
            left = {pid for pid in left if self._pid_alive(pid)}
            if not left and all(term.returncode is not None for term in terms):
                return True
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)

    def _pid_alive(self, pid: int) -> bool:
        info = read_stat(pid)
        if info is None:
            return False
        if not info.alive:
            if pid in self._orphans and info.ppid == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
            return False
        return True


def living_tree(term: TerminalProcess, table: ProcTable, orphans: Iterable[int] = ()) -> set[int]:
    """Non-zombie processes of the terminal: its process group, its orphans (reparented to us,
    marked as its own), and every descendant of the command or of one of those, including
    those that left the group with setsid."""
    alive = {pid for pid, info in table.items() if info.alive}
    children = children_of(table)
    found = {pid for pid, info in table.items() if info.pgid == term.pgid}
    found.update(pid for pid in orphans if pid in table)
    # The command's own pid only while it is unreaped: afterwards the number may be reused.
    stack = [*found, term.pid] if term.returncode is None else list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    # Escaped descendants whose parent has died were reparented away: remember them by pid.
    living = (found | term.escaped) & alive
    term.escaped = {pid for pid in living if table[pid].pgid != term.pgid}
    return living
