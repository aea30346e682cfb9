"""dsh-tui in a browser against dsh-tui in a terminal, timed as a person sees each.

Browser: one `dsh-tui serve` (on the offline dsh-agent) and, per run, a new page in headless
Chromium (the system's, through Playwright); the text on screen is read from the bytes the
page's terminal drew (tests/web/served.py). Terminal: the same `dsh-tui` in a pty of the same
size, its screen rendered by pyte (tests/tty/harness.py, as bench/bench_screen.py does).

- **welcome**: browser, from `page.goto` until the welcome names the agent (the page, its
  script, the WebSocket, the app process and the agent all start in that time); terminal,
  from spawning the process until the same.
- **reply**: from the Enter that sends `help` until the end of the agent's answer is on screen.

Medians of --runs, the two sides interleaved run by run so a busy machine weighs on both.

Usage: .venv/bin/python bench/bench_serve.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "web"), str(ROOT / "tests" / "tty")]

from harness import TtyApp  # noqa: E402
from served import (  # noqa: E402
    CAPTURE_SCRIPT,
    PageScreen,
    Served,
    chromium_path,
    missing_browser,
)

WELCOME = "Talking to dsh-agent"
PROMPT = "help"
REPLY_END = "for any OpenAI-compatible server"  # the last words of the offline help
TIMEOUT = 60.0
VIEWPORT = {"width": 1280, "height": 800}


def poll(check: Callable[[], bool], start: float) -> float:
    while not check():
        if time.perf_counter() - start > TIMEOUT:
            raise TimeoutError("nothing on screen after 60 s")
        time.sleep(0.002)
    return time.perf_counter() - start


def browser_run(chromium: Any, served: Served) -> tuple[float, float, tuple[int, int]]:
    page = chromium.new_page(viewport=VIEWPORT)
    page.add_init_script(CAPTURE_SCRIPT)
    try:
        screen = PageScreen(page)
        start = time.perf_counter()
        page.goto(served.url)
        welcome = poll(lambda: WELCOME in screen.text(), start)
        page.focus(".xterm-helper-textarea")
        page.keyboard.type(PROMPT)
        poll(lambda: PROMPT in screen.text(), time.perf_counter())
        time.sleep(0.3)  # a quiet screen before the Enter, as in the pty
        start = time.perf_counter()
        page.keyboard.press("Enter")
        reply = poll(lambda: REPLY_END in screen.text(), start)
        size = (screen.screen.columns, screen.screen.lines)
        return welcome, reply, size
    finally:
        page.close()


def terminal_run(home: Path, size: tuple[int, int]) -> tuple[float, float]:
    workspace = home / "work"
    workspace.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    app = TtyApp.start([], home=home, size=size)
    try:
        welcome = poll(lambda: WELCOME in app.text(), start)
        app.type(PROMPT)
        poll(lambda: PROMPT in app.text(), time.perf_counter())
        time.sleep(0.3)
        start = time.perf_counter()
        app.key("enter")
        reply = poll(lambda: REPLY_END in app.text(), start)
        return welcome, reply
    finally:
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    reason = missing_browser()
    if reason is not None:
        raise SystemExit(f"bench_serve: {reason}")
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    served_home = root / "served"
    (served_home / "work").mkdir(parents=True)
    served = Served(served_home, ["--cwd", str(served_home / "work")])
    figures: dict[str, list[float]] = {key: [] for key in ("bw", "br", "tw", "tr")}
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=chromium_path(), args=["--no-sandbox"], headless=True
            )
            browser_run(chromium, served)  # warm: Chromium's first page, the disk cache
            for run in range(args.runs):
                welcome, reply, size = browser_run(chromium, served)
                figures["bw"].append(welcome)
                figures["br"].append(reply)
                home = root / f"pty-{run}"
                welcome, reply = terminal_run(home, size)
                figures["tw"].append(welcome)
                figures["tr"].append(reply)
                shutil.rmtree(home, ignore_errors=True)
            chromium.close()
    finally:
        served.close()
        shutil.rmtree(root, ignore_errors=True)
    median = {key: statistics.median(values) for key, values in figures.items()}
    print(
        f"dsh-tui in Chromium (dsh-tui serve) against a pty, {size[0]}×{size[1]}, "
        f"medians of {args.runs} runs"
    )
    print(f"{'':28}{'browser':>10}{'pty':>10}{'ratio':>8}")
    for label, browser, terminal in (
        ("open → welcome on screen", median["bw"], median["tw"]),
        ("Enter → reply on screen", median["br"], median["tr"]),
    ):
        print(f"{label:28}{browser:>9.3f}s{terminal:>9.3f}s{browser / terminal:>7.2f}×")


if __name__ == "__main__":
    main()
