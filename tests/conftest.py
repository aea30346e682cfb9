"""Shared test setup: deterministic UI for snapshots and a helper to wait on app state."""

from __future__ import annotations

import shutil
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from parallel import group_fixed_paths, worker_count
from snapshot_rows import failed_snapshot_lines
from support import SNAPSHOT_WORKSPACE, holding
from tui.pytest_plugin import pin_rendering


@pytest.fixture(autouse=True)
def deterministic_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test renders as the plugin's snapshot fixture does: one list of what to pin."""
    pin_rendering(monkeypatch)


@pytest.fixture(autouse=True)
def private_session_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agents started by tests keep their session logs out of the user's data directory, and
    the app and agents its state (prompt history), data and config: a test neither reads the
    developer's (a configured model, an old prompt under Up) nor writes into them."""
    monkeypatch.setenv("DSH_SESSION_DIR", str(tmp_path_factory.mktemp("sessions")))
    home = tmp_path_factory.mktemp("xdg")
    for variable in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(variable, str(home / variable.lower()))


@pytest.fixture
def snapshot_workspace() -> Iterator[Path]:
    """The fixed workspace snapshots show, empty and held by this test alone (`holding`).

    Its users also run one after another on one xdist worker (tests/parallel.py), so they
    do not wait on each other's lock."""
    with holding(SNAPSHOT_WORKSPACE) as workspace:
        shutil.rmtree(workspace, ignore_errors=True)
        workspace.mkdir(parents=True)
        yield workspace


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> Generator[None]:
    """After every other summary, just above pytest's last line (all a CI log's tail may
    show): the rows of each failed snapshot that differ, as text."""
    yield
    lines = failed_snapshot_lines(getattr(config, "_textual_snapshots", None) or [])
    if lines:
        terminalreporter.section("snapshot rows that differ (expected, actual)")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return worker_count(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Before xdist reads the groups off the items (it does so in this hook too)."""
    group_fixed_paths(items)
