"""The traffic inspector's cost: a stream with the pane open and closed, and big messages opened.

1. 10,000 updates: the scripted ACP agent (tests/e2e/script_agent.py, a real subprocess)
   streams 10,000 message chunks into the real app (headless `App.run_test`, 140x45, the heap
   frozen as `dsh-tui` does). Per run: the time from sending the prompt until the reply has
   drawn all its text, and the longest stall of the event loop meanwhile (the longest gap
   between ticks of a 2 ms ticker task), and the client's CPU time (steadier than wall time
   on a shared machine: the agent is another process). The pane is open (F12 before the
   prompt, its list following the stream) or closed; runs alternate, so a busy machine weighs
   on both alike.
   The ratio is open / closed, measured in the same run. Beside the pane the transcript is
   narrower (77 columns), and a narrower reply has more lines to lay out: a third mode, closed
   on a 77-column screen, separates that from what the pane itself costs.
2. Opening a message: the pane in a host app over a store holding one 1 KB message and one
   60 MB message (an agent_message_chunk of `lorem ipsum`); the time from Enter's action
   (`open_message`) to the first frame painted after it. The 1 KB message is the baseline.
3. Opening the pane: the time from F12's action to its first frame over a store of 100
   messages and over a full one (50,000), the list being drawn a screen at a time.

Usage: .venv/bin/python bench/bench_inspector.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from support import turns_ended, watch_turns  # noqa: E402
from tui.app import AppConfig, DshApp  # noqa: E402
from tui.inspector.traffic import MAX_MESSAGES, Traffic  # noqa: E402
from tui.state import MessageEntry  # noqa: E402
from tui.widgets.inspector import panel as inspector  # noqa: E402
from tui.widgets.inspector.panel import InspectorPane, TrafficSource  # noqa: E402
from tui.widgets.transcript.conversation import ConversationView  # noqa: E402
from tui.widgets.transcript.messages import AgentMessage  # noqa: E402

SCRIPT_AGENT = ROOT / "tests" / "e2e" / "script_agent.py"
UPDATES = 10_000
SIZE = (140, 45)
NARROW = 77
"""The transcript's width beside the pane on a 140-column screen."""


async def ticker(gaps: list[float]) -> None:
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.002)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


def reply_shown(app: DshApp, chars: int) -> bool:
    """The whole reply is in the state, and its widget has drawn everything it was given (as
    bench/bench_flood.py waits for it)."""
    entries = app.controller.conversation.entries
    if not entries or not isinstance(entries[-1], MessageEntry) or len(entries[-1].text) < chars:
        return False
    messages = list(app.query(AgentMessage))
    return bool(messages) and not messages[-1].is_streaming


async def stream_run(
    work: Path, pane_open: bool, size: tuple[int, int] = SIZE
) -> tuple[float, float, float, int]:
    """(seconds to the reply shown, longest stall, the client's CPU seconds meanwhile,
    messages the store holds) for one run."""
    script = work / "script.json"
    script.write_text(
        json.dumps({"prompts": [[{"stream": {"count": UPDATES, "text": "w{i:06d} "}}]]})
    )
    chars = len("w000000 ") * UPDATES - 1
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script)])
    app = watch_turns(DshApp(AppConfig(command, work, log_dir=work / "logs", freeze_heap=True)))
    async with app.run_test(size=size) as pilot:
        while app.controller.session is None:
            await pilot.pause(0.01)
        if pane_open:
            app.action_inspector()
            await pilot.pause()
            assert app.query(InspectorPane)
        gaps: list[float] = []
        ticking = asyncio.create_task(ticker(gaps))
        started, cpu = time.perf_counter(), time.process_time()
        app.controller.submit_prompt("go")
        deadline = started + 300
        while not (turns_ended(app) >= 1 and reply_shown(app, chars)):
            if time.perf_counter() > deadline:
                raise TimeoutError("the reply was not shown within 300 s")
            await asyncio.sleep(0.005)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        ticking.cancel()
        held = len(app.controller.traffic)
        await app.action_quit()
    gc.unfreeze()  # one app per process in real use: let this one's objects go
    return elapsed, max(gaps, default=0.0), cpu, held


def chunk_line(text: str) -> bytes:
    params = {
        "sessionId": "s1",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        },
    }
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


class Host(App[None]):
    CSS = "Screen { layout: vertical; }"

    def __init__(self, traffic: Traffic) -> None:
        super().__init__()
        self.traffic = traffic
        self.view = ConversationView(Path("/project"))

    def compose(self) -> ComposeResult:
        yield Static("header")
        yield self.view

    def toggle(self) -> None:
        inspector.toggle(self.screen, [TrafficSource("s", self.traffic, self.view)], self.view)


async def painted(app: App[None]) -> None:
    """Until the next frame has been drawn."""
    drawn = asyncio.Event()
    app.call_after_refresh(drawn.set)
    await drawn.wait()


async def open_message_run(traffic: Traffic, seq: int) -> float:
    app = Host(traffic)
    async with app.run_test(size=SIZE) as pilot:
        app.toggle()
        await pilot.pause()
        pane = app.query_one(InspectorPane)
        message = traffic.get(seq)
        assert message is not None
        started = time.perf_counter()
        pane.open_message(message)
        await painted(app)
        return time.perf_counter() - started


async def open_pane_run(traffic: Traffic) -> float:
    app = Host(traffic)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        started = time.perf_counter()
        app.toggle()
        await painted(app)
        elapsed = time.perf_counter() - started
        assert app.query(InspectorPane)
        return elapsed


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"{UPDATES:,} message chunks, medians of {args.runs} runs", flush=True)
    print(f"{'pane':28} {'shown':>12} {'stall':>12} {'cpu':>12}   kept")
    modes = {
        "closed, 140x45": (False, SIZE),
        "open, 140x45": (True, SIZE),
        "closed, 77x45 (same width)": (False, (NARROW, SIZE[1])),
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        await stream_run(work, False)  # warm-up: imports, caches
        results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in modes}
        for _ in range(args.runs):
            for name, (pane_open, size) in modes.items():
                results[name].append(await stream_run(work, pane_open, size))
        medians = {
            name: tuple(statistics.median(r[i] for r in runs) for i in range(3))
            for name, runs in results.items()
        }
        for name, (shown, stall, cpu) in medians.items():
            kept = results[name][-1][3]
            print(f"{name:28} {ms(shown)} {ms(stall)} {ms(cpu)}   {kept:,}", flush=True)
        open_shown, open_stall, open_cpu = medians["open, 140x45"]
        for name in ("closed, 140x45", "closed, 77x45 (same width)"):
            shown, stall, cpu = medians[name]
            print(
                f"ratio open / {name}: shown {open_shown / shown:.2f}x,"
                f" stall {open_stall / stall:.2f}x, cpu {open_cpu / cpu:.2f}x"
            )

    traffic = Traffic()
    traffic.line_in(chunk_line("x" * 900), True)
    traffic.line_in(chunk_line("lorem ipsum " * 5_000_000), True)
    big = traffic.get(2)
    assert big is not None
    print(f"\nopening a message (Enter to its first frame), medians of {args.runs} runs")
    await open_message_run(traffic, 1)  # warm-up
    small = [await open_message_run(traffic, 1) for _ in range(args.runs)]
    large = [await open_message_run(traffic, 2) for _ in range(args.runs)]
    print(f"{'1 KB message':26} {ms(statistics.median(small))}")
    print(
        f"{f'{big.size / 1e6:.0f} MB message':26} {ms(statistics.median(large))}"
        f"   ratio {statistics.median(large) / statistics.median(small):.1f}x"
    )

    print(f"\nopening the pane (F12 to its first frame), medians of {args.runs} runs")
    few, full = Traffic(), Traffic()
    line = chunk_line("w000000 ")
    for _ in range(100):
        few.line_in(line, True)
    for _ in range(MAX_MESSAGES):
        full.line_in(line, True)
    await open_pane_run(few)  # warm-up
    few_times = [await open_pane_run(few) for _ in range(args.runs)]
    full_times = [await open_pane_run(full) for _ in range(args.runs)]
    print(f"{'100 messages':26} {ms(statistics.median(few_times))}")
    print(
        f"{f'{len(full):,} messages':26} {ms(statistics.median(full_times))}"
        f"   ratio {statistics.median(full_times) / statistics.median(few_times):.1f}x"
    )


if __name__ == "__main__":
    asyncio.run(main())
