"""Tabs under load, timed as the user sees them (issue 30): the real dsh-tui in a pty.

Four tabs stream 2,000 message chunks each at once; the figure is the visible tab's time from
the start of the streams until its last line is on screen, against the same stream in one tab
alone, measured in the same run (medians of --runs). Each tab runs the scripted agent
(tests/e2e/script_agent.py); every turn waits for one file, so all four start together. The
hidden tabs read in slices while the shown one streams (tui/tabs/priority.py): when their turns
ended is printed too.

Then the idle memory of a tab: the resident set of the dsh-tui process with one tab and with
four (all connected, nothing running), per extra tab, and the scripted agent's own.

Usage: .venv/bin/python bench/bench_tabs.py [--runs 5] [--tabs 4] [--chunks 2000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "tty"), str(ROOT / "tests"), str(ROOT / "bench")]

import loads  # noqa: E402
from bench_screen import THIS, all_shown, wait_shown  # noqa: E402
from harness import TtyApp, descendants, script_agent_command  # noqa: E402

TIMEOUT = 60.0


CPU: dict[int, list[float]] = {}  # tabs -> dsh-tui's CPU seconds from the start to the end
AGENT_CPU: dict[int, list[float]] = {}  # tabs -> all the agents' CPU seconds, the same span
EVERY_END: list[float] = []  # from the start of the streams until every hidden tab's turn ended


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def tab_args(home: Path, count: int, chunks: int, tag: str, start: Path) -> list[str]:
    """`--tab` for `count` scripted agents; tab N's turn waits for `start`, then streams."""
    args = []
    for n in range(1, count + 1):
        turn = [
            {"wait_file": str(start)},
            *[loads.text(f"tab{n} word{i} ") for i in range(chunks)],
            loads.text(f"\n\nDONE-{n}-{tag}"),
        ]
        script = {"agent_name": f"bench{n}", "prompts": [turn]}
        args += ["--tab", script_agent_command(home / f"tab{n}.json", script)]
    return args


def connected(app: TtyApp, count: int) -> bool:
    """Every tab's agent answered: one tab shows its header, several their bar's idle marks."""
    lines = app.display()
    if count == 1:
        return "dsh-tui · bench1 " in lines[0]
    return all(f"{n} · bench{n}" in lines[0] for n in range(1, count + 1))


def wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_tabs: timed out waiting for {what}")
        time.sleep(0.01)


def send_go(app: TtyApp, tab: int, count: int) -> None:
    if count > 1:
        app.key(f"alt+{tab}")
        wait(lambda: f"dsh-tui · bench{tab} " in app.display()[1], f"tab {tab} shown")
    app.type("go")
    time.sleep(0.05)
    app.key("enter")
    wait(lambda: "› go" in app.text(), f"tab {tab}'s prompt sent")


def one_run(count: int, chunks: int) -> tuple[float | None, int, list[int]]:
    """(visible tab's time to its last line, dsh-tui's idle RSS, the agents' RSS)."""
    home = Path(tempfile.mkdtemp(prefix="bench-tabs-"))
    tag, start = loads.nonce(), home / "start"
    app = THIS.start(tab_args(home, count, chunks, tag, start), home)
    try:
        wait(lambda: connected(app, count), "every tab to connect")
        time.sleep(0.5)  # idle: what a connected tab costs
        agents = sorted(descendants(app.pid))
        client, agent_rss = rss_kib(app.pid), [rss_kib(pid) for pid in agents]
        for tab in range(count, 0, -1):  # tab 1 last: it is the one shown while they stream
            send_go(app, tab, count)
        cpu = cpu_seconds(app.pid)
        agents_cpu = sum(cpu_seconds(pid) for pid in agents)
        began = time.perf_counter()
        start.touch()
        took = wait_shown(app, all_shown([f"DONE-1-{tag}"]), began)
        CPU.setdefault(count, []).append(cpu_seconds(app.pid) - cpu)
        spent = sum(cpu_seconds(pid) for pid in agents) - agents_cpu
        AGENT_CPU.setdefault(count, []).append(spent)
        if count > 1:  # the hidden tabs come after: their labels' "finished while away" marks
            wait(lambda: all(f"{n} ✓ " in app.display()[0] for n in range(2, count + 1)), "ends")
            EVERY_END.append(time.perf_counter() - began)
        return took, client, agent_rss
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tabs", type=int, default=4)
    parser.add_argument("--chunks", type=int, default=2000)
    args = parser.parse_args()
    alone: list[float] = []
    together: list[float] = []
    rss_one: list[int] = []
    rss_many: list[int] = []
    agents: list[int] = []
    for run in range(1, args.runs + 1):  # interleaved: both see the same machine
        a, rss1, agent = one_run(1, args.chunks)
        b, rssn, _ = one_run(args.tabs, args.chunks)
        print(f"  run {run}: 1 tab {a or 0:.3f} s · {args.tabs} tabs {b or 0:.3f} s", flush=True)
        if a is not None and b is not None:
            alone.append(a)
            together.append(b)
        rss_one.append(rss1)
        rss_many.append(rssn)
        agents += agent
    if not alone:
        raise SystemExit("bench_tabs: no run finished")
    one, many = statistics.median(alone), statistics.median(together)
    verdict = "pass" if many <= 1.5 * one else "FAIL"
    print(f"\n{args.chunks:,} chunks, visible tab, spawn of the streams → its last line")
    print(f"  one tab alone: {one:.3f} s")
    print(f"  {args.tabs} tabs streaming at once: {many:.3f} s")
    print(f"  ratio {many / one:.2f}× (limit 1.5×) {verdict}")
    print(f"  every hidden tab's turn ended: {statistics.median(EVERY_END):.3f} s")
    cpu_one, cpu_many = statistics.median(CPU[1]), statistics.median(CPU[args.tabs])
    print(f"  dsh-tui's CPU meanwhile: {cpu_one:.2f} s alone, {cpu_many:.2f} s with {args.tabs}")
    agent_one, agent_many = statistics.median(AGENT_CPU[1]), statistics.median(AGENT_CPU[args.tabs])
    print(f"  the agents' CPU meanwhile: {agent_one:.2f} s alone, {agent_many:.2f} s with all")
    print(f"  (CPUs: {os.cpu_count()}; the client and the agents share them)")
    per_tab = (statistics.median(rss_many) - statistics.median(rss_one)) / (args.tabs - 1)
    print("\nidle memory (resident set)")
    print(f"  dsh-tui with 1 tab: {statistics.median(rss_one) / 1024:.1f} MiB")
    print(f"  dsh-tui with {args.tabs} tabs: {statistics.median(rss_many) / 1024:.1f} MiB")
    print(f"  per extra tab, in dsh-tui: {per_tab / 1024:.1f} MiB")
    print(f"  per tab, its agent (the scripted one): {statistics.median(agents) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
