"""Recording the wire (`dsh-tui --record`): the same loads with the recording on and off.

A scripted ACP agent subprocess (tests/e2e/script_agent.py) plays each load into the client's
connection (`tui.connection.open_session`, real pipes, a sink that only counts). Per load and
mode it prints the medians over `--runs` of: the time from sending the prompt to its answer,
and the longest stall of the event loop meanwhile (the longest gap between ticks of a 2 ms
ticker task: what a key press or a redraw would wait). Runs alternate on and off, so a busy
machine weighs on both alike; the ratio is on / off, measured in the same run.

Usage: .venv/bin/python bench/bench_record.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from acp.schema import (  # noqa: E402
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from tui.connection import SessionUpdate, open_session  # noqa: E402
from tui.launch import LaunchSpec  # noqa: E402

SCRIPT_AGENT = ROOT / "tests" / "e2e" / "script_agent.py"
TEN_MB = 10_000_000
LOADS: dict[str, list[dict[str, Any]]] = {
    "one 60 MB message": [{"big": {"bytes": 60_000_000}}],
    "10 MB of terminal output": [
        {
            "terminal": {
                "command": "sh",
                "args": ["-c", f"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c {TEN_MB}"],
                "outputByteLimit": TEN_MB,
            }
        }
    ],
    "5,000 small chunks": [{"stream": {"count": 5_000, "text": "w{i:06d} "}}],
}


class CountingSink:
    def __init__(self) -> None:
        self.updates = 0

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        self.updates += 1

    def on_unsupported(self, session_id: str, what: str) -> None:
        raise AssertionError(what)

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        raise AssertionError("no permission is asked in this bench")


async def ticker(gaps: list[float]) -> None:
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.002)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def one_run(actions: list[dict[str, Any]], record: bool, work: Path) -> tuple[float, float]:
    script = work / "script.json"
    script.write_text(json.dumps({"prompts": [[*actions, {"stop": "end_turn"}]]}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script)])
    recording = work / "wire.jsonl" if record else None
    spec = LaunchSpec.from_command(command, work, work / "agent.log", True, (), recording)
    async with open_session(spec, CountingSink()) as session:
        gaps: list[float] = []
        ticking = asyncio.create_task(ticker(gaps))
        started = time.perf_counter()
        await session.prompt("go")
        elapsed = time.perf_counter() - started
        ticking.cancel()
    if recording is not None:
        recording.unlink()
    return elapsed, max(gaps, default=0.0)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.0f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'load':28} {'mode':4} {'answer':>11} {'stall':>11}   ratio on/off (answer, stall)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, actions in LOADS.items():
            results: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
            await one_run(actions, False, work)  # warm-up: imports, caches
            for _ in range(args.runs):
                for record in (False, True):
                    results[record].append(await one_run(actions, record, work))
            medians = {
                record: (
                    statistics.median(r[0] for r in runs),
                    statistics.median(r[1] for r in runs),
                )
                for record, runs in results.items()
            }
            for record in (False, True):
                answer, stall = medians[record]
                mode = "on" if record else "off"
                line = f"{name:28} {mode:4} {ms(answer)} {ms(stall)}"
                if record:
                    off_answer, off_stall = medians[False]
                    line += f"   {answer / off_answer:.2f}x, {stall / off_stall:.2f}x"
                print(line, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
