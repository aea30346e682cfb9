"""End-to-end throughput of the client core: a scripted ACP agent subprocess to the rendered TUI.

Loads (issue 5): 2,000 streamed message chunks; 100 tool calls with 200 updates; and a 2,000-card
transcript, checking that one more card costs about what the first did. The baseline, in the
same run, is the same load into a client that only counts updates (the protocol's own cost).

Usage: .venv/bin/python bench/bench_client.py [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block  # noqa: E402

from support import turns_ended, watch_turns  # noqa: E402
from tui.app import AppConfig, DshApp  # noqa: E402
from tui.widgets.cards.tool_card import ToolCard  # noqa: E402
from tui.widgets.transcript.conversation import ConversationView  # noqa: E402
from tui.widgets.transcript.messages import AgentMessage  # noqa: E402

SCRIPT_AGENT = ROOT / "tests" / "e2e" / "script_agent.py"
# Turns of 100 cards compared at each end of the 2,000-card transcript (medians).
GROWTH_SAMPLE = 3


def chunks_script(count: int) -> list[dict[str, Any]]:
    return [
        {
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": f"word{i} and some more text "},
            }
        }
        for i in range(count)
    ]


def tool_calls_script(calls: int, updates_per_call: int, prefix: str = "c") -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    for i in range(calls):
        call_id = f"{prefix}{i}"
        actions.append(
            {
                "update": {
                    "sessionUpdate": "tool_call",
                    "toolCallId": call_id,
                    "title": f"Read file{i}.py",
                    "kind": "read",
                    "status": "in_progress",
                }
            }
        )
        for step in range(updates_per_call):
            status = "completed" if step == updates_per_call - 1 else "in_progress"
            actions.append(
                {
                    "update": {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call_id,
                        "status": status,
                        "content": [
                            {"type": "content", "content": {"type": "text", "text": f"line {step}"}}
                        ],
                    }
                }
            )
    return actions


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run_tui(script: list[list[dict[str, Any]]], done: Any, workdir: Path) -> list[float]:
    """Seconds from each prompt's send until `done(app)` holds."""
    path = workdir / "script.json"
    path.write_text(json.dumps({"prompts": script}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    # As `dsh-tui` runs it: the heap is frozen once the first screen is up.
    app = DshApp(AppConfig(command, workdir, log_dir=workdir / "logs", freeze_heap=True))
    watch_turns(app)
    times: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        while app.controller.session is None:
            await pilot.pause(0.01)
        for turn in range(len(script)):
            start = time.perf_counter()
            app.controller.submit_prompt(f"turn {turn}")
            while not (turns_ended(app) > turn and done(app, turn)):
                await asyncio.sleep(0.005)
            times.append(time.perf_counter() - start)
        await app.action_quit()
    gc.unfreeze()  # one app per process in real use: let this one's objects go
    return times


class CountingClient:
    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates += 1


async def run_baseline(script: list[dict[str, Any]], workdir: Path) -> float:
    path = workdir / "baseline.json"
    path.write_text(json.dumps({"prompts": [script]}))
    client = CountingClient()
    async with spawn_agent_process(
        client,  # type: ignore[arg-type]
        sys.executable,
        str(SCRIPT_AGENT),
        str(path),
    ) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(workdir), mcp_servers=[])
        start = time.perf_counter()
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        return time.perf_counter() - start


def text_rendered(expected_chars: int) -> Any:
    def done(app: DshApp, turn: int) -> bool:
        messages = list(app.query(AgentMessage))
        return (
            bool(messages)
            and not messages[-1].is_streaming
            and len(messages[-1].source) >= expected_chars
        )

    return done


def last_card_shown(app: DshApp, count: int) -> bool:
    """Cheap to poll: the state has `count` calls and the newest card is mounted and settled."""
    calls = app.controller.conversation.tool_calls
    if len(calls) < count:
        return False
    last = next(reversed(calls.values()))
    view = app.query_one(ConversationView)
    card = next((w for w in reversed(view.children) if isinstance(w, ToolCard)), None)
    return card is not None and card.entry is last and card.is_mounted and card.size.height > 0


def cards_settled(count: int) -> Any:
    return lambda app, turn: last_card_shown(app, count)


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.0f} ms"


async def main(runs: int) -> None:
    chunk_load = chunks_script(2000)
    chunk_chars = sum(len(a["update"]["content"]["text"]) for a in chunk_load)
    tool_load = tool_calls_script(100, 2)
    print(f"{'load':44} {'dsh-tui':>11} {'baseline':>11} {'ratio':>6}   target")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, load, done, target in (
            ("2,000 message chunks", chunk_load, text_rendered(chunk_chars - 40), "0.5 s"),
            ("100 tool calls + 200 updates", tool_load, cards_settled(100), "0.5 s"),
        ):
            tui_times = [(await run_tui([load], done, work))[0] for _ in range(runs)]
            base_times = [await run_baseline(load, work) for _ in range(runs)]
            ratio = statistics.median(tui_times) / statistics.median(base_times)
            print(
                f"{name:44} {median_ms(tui_times)} {median_ms(base_times)} {ratio:5.1f}x   {target}"
            )

        # Growth: 20 turns of 100 cards each; compare the first turns' cost with the last ones'.
        turns = [tool_calls_script(100, 0, prefix=f"t{t}-") for t in range(20)]
        rss_before = rss_mb()
        times = await run_tui(turns, lambda app, turn: last_card_shown(app, 100 * (turn + 1)), work)
        first, last = times[:GROWTH_SAMPLE], times[-GROWTH_SAMPLE:]
        ratio = statistics.median(last) / statistics.median(first)
        print(
            f"{'2,000-card transcript, 100 cards, first turns':44} {median_ms(first)}"
            f"\n{'2,000-card transcript, 100 cards, last turns':44} {median_ms(last)}"
            f"   ratio last/first {ratio:.1f}x"
            f"\n  per turn (ms): {' '.join(f'{t * 1000:.0f}' for t in times)}"
            f"\nmax RSS {rss_mb():.0f} MB (before the transcript run: {rss_before:.0f} MB)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    asyncio.run(main(parser.parse_args().runs))
