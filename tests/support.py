"""Helpers shared by the test modules (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

AGENT_COMMAND = shlex.join([sys.executable, "-m", "agent.cli"])
# A fixed workspace path keeps snapshots free of temporary directory names.
SNAPSHOT_WORKSPACE = Path("/tmp/dsh-snapshot-workspace")


async def wait_until(pilot: Any, predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    """Poll app state between pauses; fixed sleeps are slow and flaky."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached before the timeout")
        await pilot.pause(0.02)
