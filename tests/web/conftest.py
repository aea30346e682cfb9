"""Fixtures of the browser layer: `dsh-tui serve` started and always ended, checked for
processes it leaves behind, and the system Chromium (skipped, with the reason, without it)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from served import CAPTURE_SCRIPT, Served, chromium_path, missing_browser, wait_until


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """One user's private state and logs, and the workspace `home/work`."""
    path = tmp_path / "home"
    (path / "work").mkdir(parents=True)
    return path


@pytest.fixture
def serve(home: Path) -> Iterator[Callable[..., Served]]:
    """`serve(app_args, serve_args)` starts `dsh-tui serve`. At the end each is interrupted
    (Ctrl+C) and the test fails if any process it started is still alive."""
    started: list[Served] = []

    def start(app_args: list[str] | None = None, serve_args: list[str] | None = None) -> Served:
        served = Served(home, app_args or ["--cwd", str(home / "work")], serve_args or [])
        started.append(served)
        return served

    yield start
    leftovers: dict[int, set[int]] = {}
    for served in started:
        served.close()
        with_children = served.alive_seen()
        if with_children:
            leftovers[served.process.pid] = with_children
    assert not leftovers, f"processes outlived serve: {leftovers}"


@pytest.fixture
def browser() -> Iterator[Any]:
    reason = missing_browser()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # --no-sandbox: Chromium's sandbox refuses to start as root (CI containers).
        chromium = playwright.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox"], headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_page(browser: Any) -> Callable[..., Any]:
    """A page of the given size whose terminal bytes are kept (served.PageScreen reads them)."""

    def make(width: int = 1280, height: int = 800) -> Any:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.add_init_script(CAPTURE_SCRIPT)
        return page

    return make


__all__ = ["wait_until"]
