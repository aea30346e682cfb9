"""A tool card's text: what drawing it as one Rich renderable costs against Textual's Markdown
widget, the renderer replies use (issue 17: one renderer, one code theme).

Per input, in a headless 120x40 app, a fresh app per run, medians over --runs:
- mount 100 parts and draw them, in the client's CPU time (steadier than wall time on a shared
  machine): `Static(card_markdown(...))` as cards do, Textual's `Markdown` widget (until every
  code fence is mounted), and the baseline, a `Static` with the source as plain text;
- build and render one renderable (median of 200): `card_markdown` against Rich's `Markdown`
  with the monokai code theme that cards used before.

Usage: .venv/bin/python bench/bench_card_text.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from rich.markdown import Markdown as RichMarkdown  # noqa: E402
from rich.text import Text  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.containers import VerticalScroll  # noqa: E402
from textual.widget import Widget  # noqa: E402
from textual.widgets import Markdown, Static  # noqa: E402
from textual.widgets.markdown import MarkdownFence  # noqa: E402

from tui.widgets.cards.markdown import card_markdown, hard_line_breaks, read_markdown  # noqa: E402

PARTS = 100


def read_result(lines: int) -> str:
    body = "\n".join(
        f"{n}: " + ("    return value * 2  # twice" if n % 3 else 'print("hello", 42)')
        for n in range(1, lines + 1)
    )
    text = f"<path>/p/a.py</path>\n<type>file</type>\n<content>\n{body}\n(End of file)\n</content>"
    markdown = read_markdown(text)
    assert markdown is not None
    return markdown


INPUTS = {
    "read result, 8 lines": read_result(8),
    "read result, 40 lines": read_result(40),
    "raw JSON input": '```json\n{\n  "pattern": "TODO",\n  "path": "src",\n  "ok": true\n}\n```',
}


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll()


def card_part(source: str) -> Widget:
    part = Static()
    part.update(card_markdown(source, part))
    return part


def plain_part(source: str) -> Widget:
    return Static(Text(source))


async def mount_cpu(make: Callable[[str], Widget], source: str, fences: bool) -> float:
    """CPU seconds to mount PARTS parts and draw them (with every fence mounted, if asked)."""
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.query_one(VerticalScroll)
        await pilot.pause()
        start = time.process_time()
        parts = [make(source) for _ in range(PARTS)]
        await box.mount_all(parts)
        while fences and sum(len(part.query(MarkdownFence)) for part in parts) < PARTS:
            await asyncio.sleep(0.001)
        box.scroll_end(animate=False)
        await pilot.pause()
        return time.process_time() - start


async def render_ms(make: Callable[[Widget], object]) -> float:
    """Median milliseconds to build and render one renderable at 100 columns."""
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        host = Static()
        await app.query_one(VerticalScroll).mount(host)
        await pilot.pause()
        options = app.console_options.update_width(100)
        times = []
        for _ in range(200):
            start = time.perf_counter()
            list(app.console.render(make(host), options))
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1000


async def main(runs: int) -> None:
    print(f"{PARTS} parts mounted and drawn, client CPU, medians of {runs} runs")
    print(f"{'input':24} {'plain':>8} {'card text':>10} {'Markdown widget':>16}   ratios to plain")
    for name, source in INPUTS.items():
        medians = []
        for make, fences in ((plain_part, False), (card_part, False), (Markdown, True)):
            cpu = [await mount_cpu(make, source, fences) for _ in range(runs)]
            medians.append(statistics.median(cpu))
        plain, card, widget = medians
        print(
            f"{name:24} {plain * 1000:6.0f} ms {card * 1000:7.0f} ms {widget * 1000:13.0f} ms"
            f"   {card / plain:.1f}x  {widget / plain:.1f}x"
        )
    print("\none renderable built and rendered at 100 columns, median of 200")
    print(f"{'input':24} {'card text':>10} {'Rich + monokai':>15}   ratio")
    for name, source in INPUTS.items():
        card = await render_ms(lambda host, source=source: card_markdown(source, host))
        rich = await render_ms(
            lambda host, source=source: RichMarkdown(hard_line_breaks(source), code_theme="monokai")
        )
        print(f"{name:24} {card:7.2f} ms {rich:12.2f} ms   {card / rich:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args().runs))
