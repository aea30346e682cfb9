"""`tui.cli.main` run in-process with the app headless, for tests of the real command line."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from support import wait_until
from tui import cli
from tui.app import DshApp
from tui.widgets.transcript.messages import Notice


@contextlib.contextmanager
def own_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers[:] = []
    try:
        yield
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = handlers
        root.setLevel(level)


def run_cli(monkeypatch: pytest.MonkeyPatch, argv: list[str], ready: Any) -> list[str]:
    """cli.main with the app headless, until `ready(app)`; the notices the app showed."""
    original_run = DshApp.run
    shown: list[str] = []

    def headless_run(self: DshApp, **kwargs: Any) -> Any:
        async def drive(pilot: Any) -> None:
            try:
                await wait_until(pilot, lambda: ready(self), timeout=60)
                shown.extend(str(n.render()) for n in self.query(Notice))
                await pilot.press("ctrl+q")
            except BaseException:
                self.exit(return_code=99)
                raise

        return original_run(self, headless=True, size=(100, 30), auto_pilot=drive)

    monkeypatch.setattr(DshApp, "run", headless_run)
    with own_root_logger(), pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 0
    return shown
