"""The process table from /proc, and the child subreaper: how a command's whole tree is found.

dsh-agent (its bash jobs) and dsh-tui (its terminals) both promise that no process a command
started outlives it, daemons that left its group included. Both find those processes the same
way: by parent links and process groups in /proc, and by a marker in their environment.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
from collections.abc import Iterable
from typing import NamedTuple

__all__ = [
    "ENVIRON_READ_BYTES",
    "ProcInfo",
    "ProcTable",
    "become_subreaper",
    "children_of",
    "descendants",
    "environ_value",
    "read_stat",
    "scan",
]

log = logging.getLogger(__name__)

ENVIRON_READ_BYTES = 256 * 1024
"""How much of /proc/PID/environ is read: put a marker first in the environment to be found."""
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


class ProcInfo(NamedTuple):
    """One process's line of /proc/PID/stat, as far as process trees need it."""

    ppid: int
    pgid: int
    state: str
    comm: str = ""

    @property
    def alive(self) -> bool:
        """Not a zombie (nor dead): it can still run and must still be signalled."""
        return self.state not in ("Z", "X")


ProcTable = dict[int, ProcInfo]


def read_stat(pid: int | str) -> ProcInfo | None:
    """The process's stat line, or None when it is gone (or there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
    head, _, tail = raw.rpartition(b")")
    fields = tail.split()
    try:
        return ProcInfo(
            int(fields[1]),
            int(fields[2]),
            fields[0].decode(),
            head.partition(b"(")[2].decode(errors="replace"),
        )
    except (IndexError, ValueError):
        return None


def scan() -> ProcTable | None:
    """Every process in /proc by pid, or None where there is no /proc (macOS)."""
    if not os.path.exists("/proc/self/stat"):
        return None
    table: ProcTable = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (info := read_stat(entry.name)) is not None:
            table[int(entry.name)] = info  # a process that exited while we looked is skipped
    return table


def children_of(table: ProcTable) -> dict[int, list[int]]:
    """Each pid's children in `table`."""
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        children.setdefault(info.ppid, []).append(pid)
    return children


def descendants(roots: Iterable[int], table: ProcTable) -> set[int]:
    """The processes whose parent chain leads to one of `roots` (the roots not included)."""
    children = children_of(table)
    found: set[int] = set()
    stack = [child for root in roots for child in children.get(root, ())]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, ()))
    return found


def environ_value(pid: int, prefix: bytes) -> bytes | None:
    """What follows `prefix` (`NAME=` or more) in the environment entry of `pid` that starts
    with it, or None: no such entry in the first `ENVIRON_READ_BYTES`, or no access."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read(ENVIRON_READ_BYTES)
    except OSError:
        return None
    if environ.startswith(prefix):
        start = len(prefix)
    elif (at := environ.find(b"\0" + prefix)) >= 0:
        start = at + 1 + len(prefix)
    else:
        return None
    end = environ.find(b"\0", start)
    return environ[start : end if end >= 0 else None]


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux): an orphan anywhere
    below it is reparented to it rather than to init, so it can still be found and killed.

    Process-wide; call it once, early, in the dsh-agent or dsh-tui process (not in a test
    process, where the orphans of unrelated tests would become its zombies). Returns whether
    it took effect.
    """
    global _subreaper
    if _subreaper is None:
        _subreaper = _set_child_subreaper()
    return _subreaper


def _set_child_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        log.info("not a child subreaper here: double-forked daemons may outlive their command")
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            log.warning("prctl(PR_SET_CHILD_SUBREAPER) failed: errno %d", ctypes.get_errno())
            return False
    except (OSError, AttributeError) as error:
        log.warning("cannot become a child subreaper: %s", error)
        return False
    return True
