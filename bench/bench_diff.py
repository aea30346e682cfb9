"""How fast a diff card is ready, and how long it blocks the event loop (issue 6).

Run: `.venv/bin/python bench/bench_diff.py [--runs N]`. Headless (`App.run_test`, 160×50).

* ready: from mounting the card to the first visible line drawn from the finished diff;
* stall: the longest gap between ticks of a 2 ms ticker task while the card mounts, builds and
  paints (the UI cannot react to keys during a gap).

Each widget gets one app per case, as in a session: a first card (which also loads the
widget's CSS, and first in the process Pygments' lexer table), then `--runs` more cards, each
mounted fresh with the diff model cache cleared so it diffs and highlights from scratch;
medians of those are printed, with the first card's ready time apart. The baselines (a
`Static` holding the new text, and a read-only `TextArea` with it) are measured the same way
in the same process. Figures, not assertions.

Then the line diff alone (`--lines-only` prints just that): `dsh_common.linediff` against the
`patiencediff` package (when installed: `pip install patiencediff==1.0.2`) on the panel's inputs
and on two files made of repeated lines, medians of `--runs` runs and their ratio, and whether
both give the same edit script (adjacent deletes and inserts read as one replacement, as the
panel reads them); where they differ, how many lines each marks as changed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static, TextArea

from dsh_common.linediff import Opcode, line_opcodes
from tui.diff.diffing import DiffContent
from tui.widgets.diff import panel as diff_panel
from tui.widgets.diff.panel import DiffPanel

SIZE = (160, 50)
CWD = Path("/project")


def python_file(lines: int, seed: int = 7) -> list[str]:
    """A plausible Python module: classes and functions with docstrings, comments, blanks."""
    rng = random.Random(seed)
    out: list[str] = ['"""Generated module for the diff benchmark."""', "", "import os", ""]
    n = 0
    while len(out) < lines:
        n += 1
        if n % 7 == 0:
            out += [f"class Widget{n}:", f'    """Widget number {n}."""', ""]
            out += [f"    def method_{n}(self, value: int) -> int:"]
            out += [f"        return value * {rng.randint(2, 99)}", ""]
        else:
            out += [f"def function_{n}(a, b, c={rng.randint(0, 9)}):"]
            out += [f'    """Compute thing {n} from a and b."""']
            out += [f"    total = a + b * {rng.randint(1, 50)}  # weight {rng.random():.3f}"]
            out += ["    if total > c:", f"        return total - {n}", "    return None", ""]
    return out[:lines]


def cases() -> dict[str, DiffContent]:
    base = python_file(5000)
    small = list(base)
    small[2500] = small[2500] + "  # edited"
    small[2501] = small[2501].replace("total", "grand_total")
    small.insert(2503, "    log(total)")
    heavy = list(base)
    for k in range(3, 5000, 5):  # 1,000 modified lines spread over the file
        heavy[k] = heavy[k].replace("a", "alpha", 1) + "  # changed"
    old = "\n".join(base) + "\n"
    return {
        "5,000 lines, 3-line change": DiffContent(
            "/project/module.py", old, "\n".join(small) + "\n"
        ),
        "5,000 lines, 1,000 changed": DiffContent(
            "/project/module.py", old, "\n".join(heavy) + "\n"
        ),
        "10,000-line new file": DiffContent(
            "/project/big.py", None, "\n".join(python_file(10_000, seed=8)) + "\n"
        ),
    }


def line_cases() -> dict[str, tuple[list[str], list[str]]]:
    """The panel's inputs as lines, and two files where no line is unique (no anchors)."""
    found = {
        name: ((item.old_text or "").splitlines(), item.new_text.splitlines())
        for name, item in cases().items()
    }
    repeated = ["    if x:", "        pass", "    }", "", "    return None"] * 2000
    inserted = list(repeated)
    for k in range(0, 10_000, 97):
        inserted.insert(k, "    log()")
    found["10,000 repeated lines, 104 inserted"] = (repeated, inserted)
    replaced = [line.replace("pass", "continue") for line in repeated]
    found["10,000 repeated lines, replace_all"] = (repeated, replaced)
    return found


def edit_script(ops: Sequence[Sequence[Any]]) -> list[Opcode]:
    """Opcodes with each run of non-equal ones merged into one delete, insert or replace."""
    merged: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal" and merged and merged[-1][0] != "equal":
            i1, j1 = merged.pop()[1::2]
        merged.append((str(tag), i1, i2, j1, j2))
    return [
        (("replace" if i2 > i1 and j2 > j1 else "delete" if i2 > i1 else "insert"), i1, i2, j1, j2)
        if tag != "equal"
        else (tag, i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in merged
    ]


def changed_lines(ops: list[Opcode]) -> int:
    return sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in ops if tag != "equal")


def timed(fn: Callable[[], Sequence[Sequence[Any]]], runs: int) -> tuple[float, list[Opcode]]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        ops = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), edit_script(ops)


def line_diff_section(runs: int) -> None:
    try:
        import patiencediff  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        patiencediff = None
    print(f"line diff: {runs} runs per case, medians")
    if patiencediff is None:
        print("(patiencediff is not installed: pip install patiencediff==1.0.2 to compare)")
    header = f"{'case':38} {'linediff':>10} {'patience':>10} {'ratio':>7}  same edit script"
    print(header)
    print("-" * len(header))
    for name, (old, new) in line_cases().items():
        ours, ours_ops = timed(lambda old=old, new=new: line_opcodes(old, new), runs)
        if patiencediff is None:
            print(f"{name:38} {ms(ours)}")
            continue
        theirs, their_ops = timed(
            lambda old=old, new=new: patiencediff.PatienceSequenceMatcher(
                None, old, new
            ).get_opcodes(),
            runs,
        )
        same = "yes"
        if ours_ops != their_ops:
            ours_changed, theirs_changed = changed_lines(ours_ops), changed_lines(their_ops)
            same = f"no: {ours_changed:,} changed lines against {theirs_changed:,}"
        print(f"{name:38} {ms(ours)} {ms(theirs)} {ours / theirs:6.1f}x  {same}")
    print()


class TimedPanel(DiffPanel):
    painted_at: float | None = None

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.painted_at is None and self.model is not None:
            self.painted_at = time.perf_counter()
        return strip


class TimedStatic(Static):
    painted_at: float | None = None

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.painted_at is None:
            self.painted_at = time.perf_counter()
        return strip


class TimedTextArea(TextArea):
    painted_at: float | None = None

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.painted_at is None:
            self.painted_at = time.perf_counter()
        return strip


class Host(App[None]):
    def on_load(self) -> None:
        self.theme = "textual-dark"

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="log")


class Ticker:
    """A task ticking every 2 ms; the longest gap between ticks is the worst loop stall."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.running = True
        self.task = asyncio.create_task(self.run())

    async def run(self) -> None:
        last = time.perf_counter()
        while self.running:
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last)
            last = now

    async def stop(self) -> float:
        self.running = False
        await self.task
        return self.longest


async def measure(make: Callable[[], Widget], runs: int) -> list[tuple[float, float, float]]:
    """(ready, longest loop gap, process CPU until ready), in seconds, per card.

    One app per series, as in a session: the first card also pays for loading the widget's
    CSS (and, first in the process, Pygments' lexer table); each card is removed after its
    measurement. CPU time (both threads) is steadier than wall time on a shared machine.
    """
    results: list[tuple[float, float, float]] = []
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        log = app.query_one("#log")
        for _ in range(runs + 1):
            gc.collect()  # the previous card's garbage is not this card's stall
            ticker = Ticker()
            await asyncio.sleep(0.02)
            widget = make()
            start = time.perf_counter()
            cpu_start = time.process_time()
            await log.mount(widget)
            deadline = start + 60
            while getattr(widget, "painted_at", None) is None and time.perf_counter() < deadline:
                await asyncio.sleep(0.001)
            painted: float = getattr(widget, "painted_at", None) or float("nan")
            cpu = time.process_time() - cpu_start
            await asyncio.sleep(0.1)  # catch stalls right after the first paint too
            results.append((painted - start, await ticker.stop(), cpu))
            await widget.remove()
            await pilot.pause()
    return results


def panel(item: DiffContent) -> Callable[[], Widget]:
    def make() -> Widget:
        diff_panel._MODEL_CACHE.clear()
        return TimedPanel([item], CWD, max_height=40)

    return make


def static(item: DiffContent) -> Callable[[], Widget]:
    return lambda: TimedStatic(item.new_text, markup=False)


def text_area(item: DiffContent) -> Callable[[], Widget]:
    def make() -> Widget:
        area = TimedTextArea(item.new_text, read_only=True)
        area.styles.height = 40
        return area

    return make


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms".rjust(10)


async def main(runs: int, lines_only: bool) -> None:
    if lines_only:
        line_diff_section(max(runs, 5))
        return
    print(f"diff panel benchmark: {runs} warm runs per case, medians; {SIZE[0]}x{SIZE[1]}")
    print("targets: ready <= 100 ms (150 ms for the new file), stall <= 30 ms\n")
    header = (
        f"{'case':28} {'widget':9} {'first':>10} {'ready':>10} {'(min)':>10}"
        f" {'stall':>10} {'cpu':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, item in cases().items():
        results: dict[str, tuple[float, float]] = {}
        for label, factory in (
            ("DiffPanel", panel(item)),
            ("Static", static(item)),
            ("TextArea", text_area(item)),
        ):
            first, *runs_ = await measure(factory, runs)
            first_ready = first[0]
            ready = statistics.median(r for r, _, _ in runs_)
            stall = statistics.median(s for _, s, _ in runs_)
            cpu = statistics.median(c for _, _, c in runs_)
            results[label] = (ready, stall)
            print(
                f"{name:28} {label:9} {ms(first_ready)} {ms(ready)} "
                f"{ms(min(r for r, _, _ in runs_))} {ms(stall)} {ms(cpu)}"
            )
        ours = results["DiffPanel"]
        for label in ("Static", "TextArea"):
            other = results[label]
            print(
                f"{'':28} DiffPanel/{label}: ready {ours[0] / other[0]:.2f}x, "
                f"stall {ours[1] / other[1]:.2f}x"
            )
        print()
    # Last, so its garbage (10,000-line inputs, 350 ms of allocations) is not collected while
    # a card is being timed.
    line_diff_section(max(runs, 5))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lines-only", action="store_true", help="only the line-diff section")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.lines_only))
