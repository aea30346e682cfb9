"""How the suite spreads over pytest-xdist workers (`-n auto --dist loadgroup` in pyproject).

Most of the suite waits on real processes (agents, ptys, client terminals), so more workers
than cores keep the cores busy. A run of one file gets none: a worker costs more to start
(it imports Textual and the client) than one file gains from sharing it out. Tests that use
one fixed path take turns in one group, on one worker, instead of waiting on its lock.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

WORKERS_PER_CORE = 2
"""Measured on 2 cores: the full run's wall time stops falling at about 4 workers."""

FIXED_PATH_FIXTURES = {"snapshot_workspace": "snapshot-workspace"}
"""A fixture that hands out a fixed path (it is on screen) → the xdist group of its users."""


def selected_files(config: pytest.Config) -> int:
    """How many test files the command line names (a folder counts its test_*.py)."""
    files: set[Path] = set()
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        if not path.is_absolute():
            path = config.invocation_params.dir / path
        if path.is_dir():
            files.update(path.rglob("test_*.py"))
        elif path.exists():
            files.add(path)
    return len(files)


def worker_count(config: pytest.Config) -> int:
    """`-n auto`: PYTEST_XDIST_AUTO_NUM_WORKERS when set, 0 (in this process) for one file,
    else WORKERS_PER_CORE per core, no more than there are files."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if chosen:
        return int(chosen)
    files = selected_files(config)
    if files <= 1:
        return 0
    cores = len(os.sched_getaffinity(0))
    return min(WORKERS_PER_CORE * cores, files)


def group_fixed_paths(items: list[pytest.Item]) -> None:
    """Mark the users of each fixed-path fixture with that path's xdist group."""
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            group = FIXED_PATH_FIXTURES.get(fixture)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))
