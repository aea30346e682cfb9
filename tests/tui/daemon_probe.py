"""Run double-forked daemons in client terminals, then kill, release or close them all.

Run as its own process (it makes itself a child subreaper, as dsh-tui does, which a test
process must not do). Prints one JSON object: the daemons that survived each operation, and
the processes still carrying a terminal marker after close_all.
Usage: daemon_probe.py WORKDIR [--no-subreaper]
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from dsh_common.proc_tree import become_subreaper
from tui.terminal.terminals import MARKER_VARIABLE, TerminalManager

# The grandchild calls setsid only after the middle process has exited.
SETSID_AFTER_EXIT = """
import os, sys, time
if os.fork() == 0:
    if os.fork() == 0:
        time.sleep(0.3)
        os.setsid()
        open(sys.argv[1], "w").write(str(os.getpid()))
        time.sleep(300)
    os._exit(0)
time.sleep(300)
"""
# A classic daemon: fork, setsid, fork again, the middle exits, and so does the command.
CLASSIC_DAEMON = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        fd = os.open(os.devnull, os.O_RDWR)
        for n in (0, 1, 2):
            os.dup2(fd, n)
        open(sys.argv[1], "w").write(str(os.getpid()))
        time.sleep(300)
    os._exit(0)
os.wait()
"""
SHAPES = {"setsid-after-exit": SETSID_AFTER_EXIT, "classic-daemon": CLASSIC_DAEMON}


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def marked() -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue
        if f"{MARKER_VARIABLE}=".encode() in environ and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


async def wait_for_pid(path: Path) -> int:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise TimeoutError(f"no daemon wrote {path}")


async def main(workdir: Path) -> dict[str, object]:
    mgr = TerminalManager(default_cwd=workdir, kill_grace=0.5)
    survivors: dict[str, bool] = {}
    at_close: list[tuple[str, int]] = []
    for shape, code in SHAPES.items():
        for op in ("kill", "release", "close_all"):
            pidfile = workdir / f"{shape}-{op}.pid"
            tid = await mgr.create(sys.executable, ["-c", code, str(pidfile)])
            pid = await wait_for_pid(pidfile)
            if op == "kill":
                await mgr.kill(tid)
            elif op == "release":
                await mgr.release(tid)
            else:
                at_close.append((f"{shape}/{op}", pid))
                continue
            await asyncio.sleep(0.1)
            survivors[f"{shape}/{op}"] = alive(pid)
    started = time.monotonic()
    await mgr.close_all()
    closed_in = time.monotonic() - started
    await asyncio.sleep(0.1)
    for name, pid in at_close:
        survivors[name] = alive(pid)
    return {"survivors": survivors, "marked_after_close": marked(), "close_s": closed_in}


if __name__ == "__main__":
    if "--no-subreaper" not in sys.argv:
        become_subreaper()
    print(json.dumps(asyncio.run(main(Path(sys.argv[1])))))
