"""Large messages and floods of small chunks: a scripted ACP agent subprocess to the rendered TUI.

Loads (issue 15, item 5): one agent_message_chunk of 60 MB; 10,000, 20,000 and 100,000 small
chunks of one paragraph (the worst case for Markdown, which re-parses the last block on every
append). Each run is a fresh process, so its max RSS is its own. Per load it prints the median
time from the prompt until the reply is whole in the state and its widget has drawn it, the
time a quit takes when asked for in the middle of the stream, and the max RSS.

Usage: .venv/bin/python bench/bench_flood.py [--runs 3] [--only NAME] [--timeout 300]
       [--modes full,quit]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

SCRIPT_AGENT = ROOT / "tests" / "e2e" / "script_agent.py"

# name -> (script action, characters the reply ends with)
LOADS: dict[str, tuple[dict[str, Any], int]] = {
    "60 MB in one chunk": ({"big": {"bytes": 60_000_000}}, 60_000_000),
    "10,000 chunks": ({"stream": {"count": 10_000, "text": "w{i:06d} "}}, 80_000),
    "20,000 chunks": ({"stream": {"count": 20_000, "text": "w{i:06d} "}}, 160_000),
    "100,000 chunks": ({"stream": {"count": 100_000, "text": "w{i:06d} "}}, 800_000),
}


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reply_done(app: Any, chars: int) -> bool:
    """The whole reply is in the state, and its widget has drawn everything it was given."""
    from tui.state import MessageEntry
    from tui.widgets.transcript.messages import AgentMessage

    entries = app.controller.conversation.entries
    if not entries or not isinstance(entries[-1], MessageEntry):
        return False
    if len(entries[-1].text) < chars:
        return False
    messages = list(app.query(AgentMessage))
    return bool(messages) and not messages[-1].is_streaming


def reply_half_in(app: Any, chars: int) -> bool:
    """Half the reply is in the state: in the middle of a flood, or the big chunk arrived."""
    from tui.state import MessageEntry

    entries = app.controller.conversation.entries
    if not entries or not isinstance(entries[-1], MessageEntry):
        return False
    return entries[-1].role == "agent" and len(entries[-1].text) >= chars // 2


async def one_run(name: str, mode: str, timeout: float) -> dict[str, float | None]:
    """`mode` "full": until the reply is shown; "quit": quit once half the reply is in."""
    from support import turns_ended, watch_turns
    from tui.app import AppConfig, DshApp

    action, chars = LOADS[name]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = work / "script.json"
        path.write_text(json.dumps({"prompts": [[action]]}))
        command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
        app = DshApp(AppConfig(command, work, log_dir=work / "logs", freeze_heap=True))
        watch_turns(app)
        result: dict[str, float | None] = {"shown": None, "quit": None}
        async with app.run_test(size=(120, 40)) as pilot:
            while app.controller.session is None:
                await pilot.pause(0.01)
            start = time.perf_counter()
            app.controller.submit_prompt("go")
            if mode == "full":
                while not (turns_ended(app) > 0 and reply_done(app, chars)):
                    if time.perf_counter() - start > timeout:
                        break
                    await asyncio.sleep(0.01)
                else:
                    result["shown"] = time.perf_counter() - start
                asked = time.perf_counter()
                await app.action_quit()
            else:
                while not reply_half_in(app, chars) and time.perf_counter() - start < timeout:
                    await asyncio.sleep(0.01)
                asked = time.perf_counter()
                await app.action_quit()
        result["quit"] = time.perf_counter() - asked
        result["rss"] = rss_mb()
        return result


def run_child(name: str, mode: str, timeout: float) -> dict[str, float | None]:
    """One run in a fresh interpreter; a child past the timeout (a frozen loop) is killed."""
    argv = [sys.executable, __file__, "--child", name, "--mode", mode, "--timeout", str(timeout)]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return {"shown": None, "quit": None, "rss": None}
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        sys.stderr.write(out.stderr[-2000:])
        return {"shown": None, "quit": None, "rss": None}
    return dict(json.loads(lines[-1]))


def median(values: list[float | None], timeout: float, unit: str = "s") -> str:
    if not values:
        return "—"  # not run (--modes)
    known = [v for v in values if v is not None]
    if len(known) < len(values):
        return f"> {timeout:.0f} s" if unit == "s" else "—"
    value = statistics.median(known)
    return f"{value:.2f} s" if unit == "s" else f"{value:.0f} MB"


def main(runs: int, only: str | None, timeout: float, modes: str) -> None:
    print(f"{'load':22} {'shown':>10} {'quit mid-stream':>16} {'max RSS':>9}   runs={runs}")
    for name in LOADS:
        if only and only not in name:
            continue
        full = [run_child(name, "full", timeout) for _ in range(runs if "full" in modes else 0)]
        quits = [run_child(name, "quit", timeout) for _ in range(runs if "quit" in modes else 0)]
        print(
            f"{name:22} {median([r['shown'] for r in full], timeout):>10} "
            f"{median([r['quit'] for r in quits], timeout):>16} "
            f"{median([r['rss'] for r in full], timeout, 'MB'):>9}",
            flush=True,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", help="run only the loads whose name contains this")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--modes", default="full,quit", help="full, quit, or both (default)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="full", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(one_run(args.child, args.mode, args.timeout))))
    else:
        main(args.runs, args.only, args.timeout, args.modes)
