"""Fixtures of the pty layer: a factory of apps that are always closed, and checked for
processes they leave behind."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import TtyApp


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """One user's private state, data, logs and workspace (`home/work`) for the test."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def tty(home: Path) -> Iterator[Callable[..., TtyApp]]:
    """`tty(args, size=(cols, rows), ...)` starts dsh-tui in a pty (see TtyApp.start). At the
    end every app is quit (Ctrl+Q, bounded), then killed with its process group; a child
    still alive a few seconds after its app exited fails the test."""
    apps: list[TtyApp] = []

    def start(args: tuple[str, ...] | list[str] = (), **options: Any) -> TtyApp:
        options.setdefault("home", home)
        app = TtyApp.start(list(args), **options)
        apps.append(app)
        return app

    yield start
    left: dict[int, set[int]] = {}
    for app in apps:
        try:
            if app.is_alive():
                with contextlib.suppress(AssertionError):
                    app.quit(timeout=10)
            if not app.is_alive():
                stray = app.wait_no_leftovers(timeout=5)
                if stray:
                    left[app.pid] = stray
        finally:
            app.close()
    if left:
        pytest.fail(f"processes left behind after the app exited: {left}")
