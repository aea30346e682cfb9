"""Shared test setup: deterministic UI for snapshots and a helper to wait on app state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support import SNAPSHOT_WORKSPACE
from tui.pytest_plugin import pin_rendering


@pytest.fixture(autouse=True)
def deterministic_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test renders as the plugin's snapshot fixture does: one list of what to pin."""
    pin_rendering(monkeypatch)


@pytest.fixture(autouse=True)
def private_session_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agents started by tests keep their session logs out of the user's data directory."""
    monkeypatch.setenv("DSH_SESSION_DIR", str(tmp_path_factory.mktemp("sessions")))


@pytest.fixture
def snapshot_workspace() -> Iterator[Path]:
    SNAPSHOT_WORKSPACE.mkdir(parents=True, exist_ok=True)
    for child in SNAPSHOT_WORKSPACE.iterdir():
        if child.is_file():
            child.unlink()
    yield SNAPSHOT_WORKSPACE
