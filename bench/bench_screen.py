"""What the user sees, timed: the real dsh-tui console script in a pty (issue 12).

For each load, a fresh `dsh-tui` runs in a 120×40 pseudo-terminal (tests/tty/harness.py, the
screen rendered by pyte) on the scripted agent (tests/e2e/script_agent.py). The time is from
writing the Enter key to the pty until the load's final line is on the emulated screen: a
unique marker that appears only once everything before it was sent (`DONE-<nonce>`, a message
after the load; for terminals also `END-<nonce>`, the command's last output line; for edits
also a changed line of the diff, `recompute(`). Cold start
is from spawning the process until the header names dsh-agent (the real one, offline) and a
key typed into the prompt shows there. Medians of --runs; beside them, the in-process figures
of bench/bench_client.py for the loads it has, measured in the same run.

Usage: .venv/bin/python bench/bench_screen.py [--runs 5] [--no-client] [--only NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "tty"), str(ROOT / "tests"), str(ROOT / "bench")]

import loads  # noqa: E402
from harness import TtyApp, TtyTimeout, header_ready, script_agent_command  # noqa: E402

SIZE = (120, 40)
# A load whose marker is not on screen by then is reported as `timeout`.
TIMEOUT = 30.0


@dataclass(frozen=True)
class Load:
    name: str
    target: float
    # (nonce, workspace) -> (script actions, lines that must all be on screen)
    build: Callable[[str, Path], tuple[list[dict[str, Any]], list[str]]]
    client: str | None = None  # the matching load of bench_client.py


def with_done(actions: list[dict[str, Any]], tag: str, *more: str) -> tuple[Any, list[str]]:
    return [*actions, loads.text(f"\n\nDONE-{tag}")], [f"DONE-{tag}", *more]


LOADS = [
    Load(
        "2,000 streamed message chunks",
        0.5,
        lambda tag, _w: with_done(
            [loads.text(f"word{i} and some more text ") for i in range(2000)], tag
        ),
        client="chunks",
    ),
    Load(
        "100 tool calls + 200 updates",
        0.5,
        lambda tag, _w: with_done(loads.tool_calls(100, 2, f"last card {tag}"), tag),
        client="tools",
    ),
    Load(
        "edit of a 5,000-line file, 3 changes",
        0.3,
        lambda tag, w: (loads.edit(5000, 3, f"DONE-{tag}", w), [f"DONE-{tag}", "recompute("]),
    ),
    Load(
        "edit of a 5,000-line file, 1,000 changes",
        0.3,
        lambda tag, w: (loads.edit(5000, 1000, f"DONE-{tag}", w), [f"DONE-{tag}", "recompute("]),
    ),
    Load(
        "1 MB through terminal/create",
        0.3,
        lambda tag, _w: (
            loads.terminal_output(1, f"END-{tag}", f"DONE-{tag}"),
            [f"END-{tag}", f"DONE-{tag}"],
        ),
    ),
    Load(
        "10 MB through terminal/create",
        1.0,
        lambda tag, _w: (
            loads.terminal_output(10, f"END-{tag}", f"DONE-{tag}"),
            [f"END-{tag}", f"DONE-{tag}"],
        ),
    ),
]
COLD_START = ("cold start to a usable prompt", 1.5)


def all_shown(needles: list[str]) -> Callable[[list[str]], bool]:
    return lambda lines: all(any(n in line for line in lines) for n in needles)


def wait_shown(app: TtyApp, check: Callable[[list[str]], bool], start: float) -> float | None:
    """Seconds since `start` at the first poll (every 2 ms) where `check` holds, or None."""
    while True:
        if check(app.display()):
            return time.perf_counter() - start
        if time.perf_counter() - start > TIMEOUT or not app.is_alive():
            return None
        time.sleep(0.002)


def time_load(load: Load, home: Path) -> float | None:
    tag = loads.nonce()
    workspace = home / "work"
    workspace.mkdir(parents=True, exist_ok=True)
    actions, needles = load.build(tag, workspace)
    script = {"agent_name": "bench-agent", "prompts": [actions]}
    command = script_agent_command(home / "script.json", script)
    app = TtyApp.start(["--agent", command], home=home, size=SIZE)
    try:
        app.wait_for(header_ready, timeout=TIMEOUT)
        app.type("go")
        app.wait_for(lambda lines: "go" in lines[app.cursor()[1]], timeout=10, message="go")
        app.wait_stable(0.3, timeout=10)
        start = time.perf_counter()
        app.key("enter")
        return wait_shown(app, all_shown(needles), start)
    except TtyTimeout:
        return None
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


def prompt_has(app: TtyApp, probe: str) -> bool:
    return probe in app.display()[app.cursor()[1]]


def time_cold_start(home: Path) -> float | None:
    """Spawn → the header names dsh-agent and a typed key shows in the prompt."""
    probe = "zq"
    start = time.perf_counter()
    app = TtyApp.start([], home=home, size=SIZE)
    try:
        if wait_shown(app, header_ready, start) is None:
            return None
        # Keep typing the probe until the prompt shows it: a key lost at start-up still
        # counts against the start, as it would for a user.
        while time.perf_counter() - start < TIMEOUT:
            app.type(probe)
            until = time.perf_counter() + 0.25
            while time.perf_counter() < until:
                if prompt_has(app, probe):
                    return time.perf_counter() - start
                time.sleep(0.002)
        return None
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


def client_figures(runs: int) -> dict[str, float]:
    """Medians of bench_client.py's in-process loads (seconds), measured here and now."""
    import bench_client

    figures: dict[str, float] = {}
    chunk_load = bench_client.chunks_script(2000)
    chunk_chars = sum(len(a["update"]["content"]["text"]) for a in chunk_load)
    cases = {
        "chunks": (chunk_load, bench_client.text_rendered(chunk_chars - 40)),
        "tools": (bench_client.tool_calls_script(100, 2), bench_client.cards_settled(100)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for key, (load, done) in cases.items():
            times = [
                asyncio.run(bench_client.run_tui([load], done, Path(tmp)))[0] for _ in range(runs)
            ]
            figures[key] = statistics.median(times)
    return figures


def seconds(value: float | None) -> str:
    return "timeout" if value is None else f"{value:.3f} s"


def median(values: list[float | None]) -> float | None:
    """The median, with a timeout counted as slower than any run (and shown as `timeout`)."""
    if not values:
        return None
    middle = statistics.median(float("inf") if v is None else v for v in values)
    return None if middle == float("inf") else middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-client", action="store_true", help="skip bench_client.py")
    parser.add_argument("--only", default="", help="only loads whose name contains this")
    args = parser.parse_args()

    client: dict[str, float] = {}
    client_note = ""
    if not args.no_client:
        try:
            client = client_figures(args.runs)
        except Exception as error:  # the in-process bench failed: show its own output instead
            client_note = f"bench_client.py in-process failed ({error!r}); its own run:\n"
            result = subprocess.run(
                [sys.executable, str(ROOT / "bench" / "bench_client.py"), "--runs", str(args.runs)],
                capture_output=True,
                text=True,
                check=False,
            )
            client_note += result.stdout + result.stderr

    rows: list[tuple[str, list[float | None], float | None, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for load in LOADS:
            if args.only and args.only not in load.name:
                continue
            times = [time_load(load, root / f"run{i}") for i in range(args.runs)]
            rows.append((load.name, times, client.get(load.client or ""), load.target))
            print(f"  {load.name}: {' '.join(seconds(t) for t in times)}", flush=True)
        name, target = COLD_START
        if not args.only or args.only in name:
            times = [time_cold_start(root / f"cold{i}") for i in range(args.runs)]
            rows.append((name, times, None, target))
            print(f"  {name}: {' '.join(seconds(t) for t in times)}", flush=True)

    print()
    print(f"{'load':44} {'screen (pty)':>13} {'in-process':>11} {'target':>8}")
    for name, times, inproc, target in rows:
        shown = seconds(median(times))
        inside = "—" if inproc is None else f"{inproc:.3f} s"
        print(f"{name:44} {shown:>13} {inside:>11} {target:>6.1f} s")
    print(
        f"\nmedians of {args.runs} runs, {SIZE[0]}x{SIZE[1]} pty; in-process: bench_client.py "
        "(headless App.run_test, same loads) where it has the load"
    )
    if client_note:
        print(client_note)


if __name__ == "__main__":
    main()
