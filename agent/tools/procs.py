"""Every process a bash command starts, found and killed: no daemon outlives its session.

A command runs in its own process group, but a daemon leaves it: `setsid` after the middle
process exits, or the classic double fork, gives a process in another session whose parent
is gone. Three things catch those:

- dsh-agent makes itself a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`), so an orphaned
  descendant is reparented to dsh-agent instead of init, and its ppid chain still leads here;
- every command's environment carries `DSH_AGENT_JOB=<token>`, inherited by everything it
  starts, so a process is attributed to its command even after it changed group and parent;
- a command's members are its process group, the descendants of its shell, and every process
  carrying its token (`/proc/<pid>/environ`).

A job is killed (SIGTERM, then SIGKILL after a grace period) on cancel, timeout and session
end; at exit every descendant of dsh-agent is. Orphans that end are reaped here, except the
shells asyncio itself waits for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import signal as signals
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dsh_common import proc_tree
from dsh_common.proc_tree import ProcTable, descendants, environ_value

log = logging.getLogger(__name__)

JOB_ENV = "DSH_AGENT_JOB"
EXIT_GRACE_S = 0.5
"""At session end and exit, how long jobs get after SIGTERM before SIGKILL."""

_SPAWNED: set[int] = set()
"""Direct children that asyncio waits for: never reaped here, or their exit status is lost."""
_LOG_DIRS: set[Path] = set()
"""Background jobs' log directories not yet removed."""
_BASH_ZOMBIES: dict[int, float] = {}
"""Orphan `bash` zombies by when they were first seen (see `reap_orphans`)."""
_BASH_WAIT_S = 1.0


def new_token() -> str:
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def watched(pid: int) -> None:
    """`pid` is a child asyncio waits for."""
    _SPAWNED.add(pid)


def unwatched(pid: int) -> None:
    _SPAWNED.discard(pid)


def scan() -> ProcTable:
    """Every process visible in /proc (none where there is no /proc)."""
    return proc_tree.scan() or {}


@dataclass
class Job:
    """One bash command: its token, its shell's pid (= its process group), its log dir."""

    token: str
    pid: int
    log_dir: Path | None = None

    def env(self) -> dict[str, str]:
        # The token goes first, where a bounded read of /proc/PID/environ finds it.
        own = {key: value for key, value in os.environ.items() if key != JOB_ENV}
        return {JOB_ENV: self.token, **own}

    def members(self, table: ProcTable | None = None) -> set[int]:
        """Live processes of this job: its group, its shell's descendants, its token."""
        table = scan() if table is None else table
        me = os.getpid()
        prefix, token = f"{JOB_ENV}=".encode(), self.token.encode()
        found = {pid for pid, info in table.items() if info.pgid == self.pid}
        found |= descendants((self.pid,), table)
        if self.pid in table:
            found.add(self.pid)
        # Tagged processes: with the subreaper, all of them descend from dsh-agent.
        candidates = descendants((me,), table) - found
        found |= {pid for pid in candidates if environ_value(pid, prefix) == token}
        return {pid for pid in found if pid != me and table[pid].alive}


def signal_pids(pids: Iterable[int], sig: signals.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def signal_job(job: Job, members: Iterable[int], sig: signals.Signals) -> None:
    """Signal the job's shell before the rest of its members.

    A child signalled first may end before the shell has its own signal pending; a shell in
    `wait` then exits by itself (0 for a bare `wait`), and the run reads as a clean exit
    instead of the kill it was. Once the signal is pending the shell cannot outrun it.
    """
    rest = set(members)
    if job.pid in rest:
        rest.discard(job.pid)
        signal_pids((job.pid,), sig)
    signal_pids(rest, sig)


async def kill_job(job: Job, grace: float) -> None:
    """SIGTERM every member, then SIGKILL whatever is left after `grace` seconds."""
    members = job.members()
    if not members:
        reap_orphans()
        return
    signal_job(job, members, signals.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while loop.time() < deadline:
        await asyncio.sleep(0.05)
        reap_orphans()
        members = job.members()
        if not members:
            return
        signal_job(job, members, signals.SIGTERM)  # a member forked meanwhile
    for _ in range(20):  # SIGKILL until nothing is left (a member may still fork once)
        members = job.members()
        if not members:
            break
        signal_job(job, members, signals.SIGKILL)
        await asyncio.sleep(0.02)
        reap_orphans()


def reap_orphans() -> None:
    """Reap orphaned descendants that ended (we are their subreaper); never asyncio's own.

    A `bash` zombie is left alone for a second: it may be a shell asyncio is still spawning
    (its pid not yet known here), whose exit status asyncio's watcher must get first."""
    me = os.getpid()
    now = time.monotonic()
    zombies = {
        pid: info
        for pid, info in scan().items()
        if info.ppid == me and not info.alive and pid not in _SPAWNED
    }
    for pid in list(_BASH_ZOMBIES):
        if pid not in zombies:
            del _BASH_ZOMBIES[pid]
    for pid, info in zombies.items():
        if info.comm == "bash" and now - _BASH_ZOMBIES.setdefault(pid, now) < _BASH_WAIT_S:
            continue
        _BASH_ZOMBIES.pop(pid, None)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def remove_log_dir(path: Path | None) -> None:
    if path is None:
        return
    _LOG_DIRS.discard(path)
    shutil.rmtree(path, ignore_errors=True)


def log_dir_created(path: Path) -> None:
    _LOG_DIRS.add(path)


@dataclass
class JobRegistry:
    """The jobs of one session still worth killing at its end: background jobs, and
    foreground commands that left something running."""

    jobs: dict[str, Job] = field(default_factory=dict)

    def add(self, job: Job) -> None:
        self.jobs[job.token] = job

    def forget(self, job: Job) -> None:
        self.jobs.pop(job.token, None)

    async def close(self, grace: float = EXIT_GRACE_S) -> None:
        """Kill every job and remove the background jobs' log files."""
        jobs = list(self.jobs.values())
        self.jobs.clear()
        await asyncio.gather(*(kill_job(job, grace) for job in jobs), return_exceptions=True)
        for job in jobs:
            remove_log_dir(job.log_dir)


async def kill_all_descendants(grace: float = EXIT_GRACE_S) -> int:
    """At exit: SIGTERM every descendant of dsh-agent, SIGKILL what is left after `grace`;
    remove the background logs left. Returns how many processes were signalled."""
    me = os.getpid()

    def live() -> set[int]:
        table = scan()
        return {pid for pid in descendants((me,), table) if table[pid].alive}

    members = live()
    count = len(members)
    if members:
        signal_pids(members, signals.SIGTERM)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while members and loop.time() < deadline:
            await asyncio.sleep(0.05)
            reap_orphans()
            members = live()
        for _ in range(20):
            if not members:
                break
            signal_pids(members, signals.SIGKILL)
            await asyncio.sleep(0.02)
            reap_orphans()
            members = live()
    for path in list(_LOG_DIRS):
        remove_log_dir(path)
    return count


__all__ = [
    "EXIT_GRACE_S",
    "JOB_ENV",
    "Job",
    "JobRegistry",
    "kill_all_descendants",
    "kill_job",
    "log_dir_created",
    "new_token",
    "reap_orphans",
    "remove_log_dir",
    "scan",
    "signal_job",
    "signal_pids",
    "unwatched",
    "watched",
]
