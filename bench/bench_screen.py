"""What the user sees, timed: the real dsh-tui console script in a pty (issues 12 and 26).

For each load, a fresh `dsh-tui` runs in a 120×40 pseudo-terminal (tests/tty/harness.py, the
screen rendered by pyte) on the scripted agent (tests/e2e/script_agent.py). The time is from
writing the Enter key to the pty until the load's final line is on the emulated screen: a
unique marker that appears only once everything before it was sent (`DONE-<nonce>`, a message
after the load; for terminals also `END-<nonce>`, the command's last output line; for edits
also a changed line of the diff, `recompute(`). Cold start
is from spawning the process until the header names dsh-agent (the real one, offline) and a
key typed into the prompt shows there. Medians of --runs; beside them, the in-process figures
of bench/bench_client.py for the loads it has, measured in the same run.

Then the targets of issue 26, each with its baseline from the same run and a verdict: 1,000
tool calls against 100; a keystroke's echo (key written → character in the prompt) with 1,000
cards against an empty transcript; PageUp from the end of 1,000 cards to the top, the slowest
key → changed frame at the terminal (its last byte read from the pty; the same with the
emulator's parse is printed beside it); 20,000 chunks against 2,000; `--resume` replaying
1,000 tool calls through `session/load` (spawn → the last line on screen); cold start to the
header naming dsh-agent.
`--baseline-tree DIR` runs the same measurements, interleaved run by run, on another checkout's
venv (`DIR/.venv/bin/dsh-tui`, e.g. a `git worktree` of main with `./dev shell true` done), so
before and after come from one run on one machine load.

Usage: .venv/bin/python bench/bench_screen.py [--runs 5] [--no-client] [--only NAME]
       [--targets-only | --no-targets] [--baseline-tree DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
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
from harness import (  # noqa: E402
    TtyApp,
    TtyTimeout,
    app_env,
    header_ready,
    script_agent_command,
)

SIZE = (120, 40)
# A load whose marker is not on screen by then is reported as `timeout`.
TIMEOUT = 30.0
# Keystrokes timed per echo measurement, and the most PageUp presses tried.
ECHO_KEYS = 12
PAGEUP_MAX = 400


@dataclass(frozen=True)
class Tree:
    """A checkout whose venv has the `dsh-tui` (and `dsh-agent`) to time."""

    name: str
    bin: Path

    @property
    def program(self) -> Path:
        return self.bin / "dsh-tui"

    def env(self, home: Path) -> dict[str, str]:
        env = app_env(home)
        env["PATH"] = os.pathsep.join([str(self.bin), env.get("PATH", os.defpath)])
        return env

    def start(self, args: list[str], home: Path) -> TtyApp:
        return TtyApp.start(args, home=home, size=SIZE, env=self.env(home), program=self.program)


THIS = Tree("this tree", Path(sys.executable).parent)


@dataclass(frozen=True)
class Load:
    name: str
    target: float
    # (nonce, workspace) -> (script actions, lines that must all be on screen)
    build: Callable[[str, Path], tuple[list[dict[str, Any]], list[str]]]
    client: str | None = None  # the matching load of bench_client.py


def with_done(actions: list[dict[str, Any]], tag: str, *more: str) -> tuple[Any, list[str]]:
    return [*actions, loads.text(f"\n\nDONE-{tag}")], [f"DONE-{tag}", *more]


def chunks(count: int) -> Callable[[str, Path], tuple[Any, list[str]]]:
    return lambda tag, _w: with_done(
        [loads.text(f"word{i} and some more text ") for i in range(count)], tag
    )


def tool_calls(count: int) -> Callable[[str, Path], tuple[Any, list[str]]]:
    return lambda tag, _w: with_done(loads.tool_calls(count, 2, f"last card {tag}"), tag)


LOADS = [
    Load("2,000 streamed message chunks", 0.5, chunks(2000), client="chunks"),
    Load("100 tool calls + 200 updates", 0.5, tool_calls(100), client="tools"),
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


def start_scripted(tree: Tree, home: Path, script: dict[str, Any], *args: str) -> TtyApp:
    command = script_agent_command(home / "script.json", {"agent_name": "bench-agent", **script})
    return tree.start(["--agent", command, *args], home)


def prompt_has(app: TtyApp, probe: str) -> bool:
    return probe in app.display()[app.cursor()[1]]


def send_prompt(app: TtyApp, needles: list[str]) -> float | None:
    """Type `go` once the header is up, press Enter on a quiet screen; seconds from the Enter
    until every needle is on screen."""
    app.wait_for(header_ready, timeout=TIMEOUT)
    app.type("go")
    app.wait_for(lambda lines: prompt_has(app, "go"), timeout=10, message="go")
    app.wait_stable(0.3, timeout=10)
    start = time.perf_counter()
    app.key("enter")
    return wait_shown(app, all_shown(needles), start)


def time_load(load: Load, home: Path, tree: Tree = THIS) -> float | None:
    tag = loads.nonce()
    workspace = home / "work"
    workspace.mkdir(parents=True, exist_ok=True)
    actions, needles = load.build(tag, workspace)
    app = start_scripted(tree, home, {"prompts": [actions]})
    try:
        return send_prompt(app, needles)
    except TtyTimeout:
        return None
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


def cold_start(home: Path, tree: Tree = THIS) -> tuple[float | None, float | None]:
    """Spawn → the header names dsh-agent; spawn → a typed key shows in the prompt."""
    probe = "zq"
    start = time.perf_counter()
    app = tree.start([], home)
    try:
        header = wait_shown(app, header_ready, start)
        if header is None:
            return None, None
        # Keep typing the probe until the prompt shows it: a key lost at start-up still
        # counts against the start, as it would for a user.
        while time.perf_counter() - start < TIMEOUT:
            app.type(probe)
            until = time.perf_counter() + 0.25
            while time.perf_counter() < until:
                if prompt_has(app, probe):
                    return header, time.perf_counter() - start
                time.sleep(0.002)
        return header, None
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


def time_cold_start(home: Path) -> float | None:
    return cold_start(home)[1]


def echo_times(app: TtyApp) -> list[float]:
    """Type ECHO_KEYS letters one at a time into the prompt; each key's time from the write
    until the prompt line shows everything typed so far."""
    times: list[float] = []
    typed = ""
    for letter in "abcdefghijklmnopqrstuvwxyz"[:ECHO_KEYS]:
        typed += letter
        start = time.perf_counter()
        app.type(letter)
        shown = wait_shown(app, lambda _lines, t=typed: prompt_has(app, t), start)
        if shown is None:
            break
        times.append(shown)
        time.sleep(0.03)  # let the frame after the echo go out: one key at a time
    return times


def until_frame_changed(app: TtyApp, before: list[str], start: float) -> tuple[float, float] | None:
    """Seconds since `start` until a frame that differs from `before` reached the terminal
    (its last bytes read from the pty), and until the bench's emulator had parsed it."""
    while time.perf_counter() - start < 2.0:
        lines, read_at = app.display_read_at()
        if lines != before:
            return read_at - start, time.perf_counter() - start
        time.sleep(0.001)
    return None


def pageup_times(app: TtyApp) -> tuple[list[float], list[float]]:
    """PageUp from the end until the screen stops changing (the top): each key's time from
    the write until the next changed frame reached the terminal, and until it was parsed.

    The first is what a terminal shows: pyte, the bench's emulator, is pure Python and takes
    10–25 ms to parse a 120×40 frame (~10 KB) that a terminal draws in about a millisecond,
    so the parsed figure is printed beside it, not judged."""
    arrived: list[float] = []
    parsed: list[float] = []
    for _ in range(PAGEUP_MAX):
        before = app.display()
        start = time.perf_counter()
        app.key("pageup")
        took = until_frame_changed(app, before, start)
        if took is None:
            break
        arrived.append(took[0])
        parsed.append(took[1])
        app.wait_stable(0.05, timeout=10)
    return arrived, parsed


def long_transcript(tree: Tree, home: Path, cards: int) -> dict[str, float | None]:
    """One app: `cards` tool calls played, then the keystroke echo, then PageUp to the top
    (the prompt is cleared first, so the keys scroll the transcript)."""
    tag = loads.nonce()
    figures: dict[str, float | None] = {
        "echo": None,
        "pageup": None,
        "pageup_parsed": None,
        "pages": None,
    }
    actions, needles = tool_calls(cards)(tag, home)
    app = start_scripted(tree, home, {"prompts": [actions]})
    try:
        if cards:
            if send_prompt(app, needles) is None:
                return figures
        else:
            app.wait_for(header_ready, timeout=TIMEOUT)
        app.wait_stable(0.5, timeout=20)
        echoes = echo_times(app)
        figures["echo"] = statistics.median(echoes) if len(echoes) == ECHO_KEYS else None
        if cards:
            app.key(*["backspace"] * ECHO_KEYS)
            app.wait_stable(0.3, timeout=10)
            pages, parsed = pageup_times(app)
            figures["pageup"] = max(pages) if pages else None
            figures["pageup_parsed"] = max(parsed) if parsed else None
            figures["pages"] = float(len(pages))
        return figures
    except TtyTimeout:
        return figures
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


def time_session_load(tree: Tree, home: Path, calls: int) -> float | None:
    """`--resume` of a session whose `session/load` replays `calls` tool calls (two updates
    each) and a last message: spawn → that message on screen."""
    tag = loads.nonce()
    history = [action["update"] for action in loads.tool_calls(calls, 2, f"last card {tag}")]
    history.append(loads.text(f"DONE-{tag}")["update"])
    start = time.perf_counter()
    app = start_scripted(tree, home, {"load": history, "prompts": [[]]}, "--resume", "s1")
    try:
        return wait_shown(app, all_shown([f"DONE-{tag}"]), start)
    finally:
        app.close()
        shutil.rmtree(home, ignore_errors=True)


@dataclass(frozen=True)
class Target:
    """One figure of issue 26 against its limit: a ratio of two measurements of one run
    (`reference` set) or an absolute time."""

    name: str
    value: str
    limit: float
    reference: str | None = None

    def figure(self, figures: dict[str, float | None]) -> float | None:
        value = figures.get(self.value)
        if value is None or self.reference is None:
            return value
        base = figures.get(self.reference)
        return None if not base else value / base

    def show(self, figures: dict[str, float | None]) -> str:
        figure = self.figure(figures)
        if self.reference is None:
            shown, limit = seconds(figure), f"{self.limit:.3f} s"
        else:
            shown = "—" if figure is None else f"{figure:.2f}×"
            shown += (
                f" ({seconds(figures.get(self.value))} / {seconds(figures.get(self.reference))})"
            )
            limit = f"{self.limit:.1f}×"
        verdict = "—" if figure is None else ("pass" if figure <= self.limit else "FAIL")
        return f"{shown:>30} {limit:>8}  {verdict}"


TARGETS = [
    Target("1,000 tool calls vs 100", "tools1000", 3.0, "tools100"),
    Target("keystroke echo, 1,000 cards vs empty", "echo1000", 1.3, "echo0"),
    Target("PageUp through 1,000 cards, worst frame", "pageup1000", 0.050),
    Target("20,000 chunks vs 2,000", "chunks20000", 10.0, "chunks2000"),
    Target("session/load of 1,000 tool calls, spawn→end", "load1000", 2.0),
    Target("cold start to the header naming the agent", "header", 0.8),
    Target("100 tool calls (aim)", "tools100", 0.25),
    Target("2,000 chunks (aim)", "chunks2000", 0.25),
]


def target_run(tree: Tree, home: Path) -> dict[str, float | None]:
    """Every figure the targets need, once, on `tree`."""
    figures: dict[str, float | None] = {}
    for count in (100, 1000):
        figures[f"tools{count}"] = time_load(Load("", 0, tool_calls(count)), home / "t", tree)
    for count in (2000, 20000):
        figures[f"chunks{count}"] = time_load(Load("", 0, chunks(count)), home / "c", tree)
    for cards in (0, 1000):
        long = long_transcript(tree, home / "l", cards)
        figures[f"echo{cards}"] = long["echo"]
        if cards:
            figures[f"pageup{cards}"] = long["pageup"]
            figures[f"pageup{cards}_parsed"] = long["pageup_parsed"]
            figures["pages"] = long["pages"]
    figures["load1000"] = time_session_load(tree, home / "s", 1000)
    figures["header"], figures["prompt"] = cold_start(home / "cold", tree)
    return figures


def run_targets(trees: list[Tree], runs: int, root: Path) -> None:
    """Every figure on every tree, run by run (trees alternating), then medians per tree."""
    collected: dict[str, dict[str, list[float | None]]] = {tree.name: {} for tree in trees}
    for run in range(runs):
        for tree in trees:
            figures = target_run(tree, root / f"target{run}")
            for key, value in figures.items():
                collected[tree.name].setdefault(key, []).append(value)
            shown = " ".join(
                f"{key}={value:.0f}" if key == "pages" and value else f"{key}={seconds(value)}"
                for key, value in figures.items()
            )
            print(f"  run {run + 1} {tree.name}: {shown}", flush=True)
    print(f"\n{'target':46} {'figure (median)':>30} {'limit':>8}  verdict")
    for tree in trees:
        medians = {key: median(values) for key, values in collected[tree.name].items()}
        print(f"-- {tree.name} ({tree.program})")
        for target in TARGETS:
            print(f"{target.name:46} {target.show(medians)}")
            if target.value == "pageup1000":
                label = "  the same, with the emulator's parse"
                print(f"{label:46} {seconds(medians.get('pageup1000_parsed')):>30}  (info)")
        pages = medians.get("pages")
        print(f"{'':46} PageUp presses to the top: {pages:.0f}" if pages else "")


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


def run_loads(args: argparse.Namespace, root: Path) -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-client", action="store_true", help="skip bench_client.py")
    parser.add_argument("--only", default="", help="only loads whose name contains this")
    parser.add_argument("--targets-only", action="store_true", help="only issue 26's targets")
    parser.add_argument("--no-targets", action="store_true", help="skip issue 26's targets")
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        default=None,
        metavar="DIR",
        help="also time DIR/.venv/bin/dsh-tui for the targets, interleaved with this tree",
    )
    args = parser.parse_args()
    trees = [THIS]
    if args.baseline_tree is not None:
        base = args.baseline_tree.resolve() / ".venv" / "bin"
        if not (base / "dsh-tui").exists():
            raise SystemExit(f"{base / 'dsh-tui'} not found: run ./dev shell true in that tree")
        trees.append(Tree("baseline", base))

    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if not args.targets_only:
            run_loads(args, root)
        if not args.no_targets:
            run_targets(trees, args.runs, root)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
