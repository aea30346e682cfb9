"""Shared test setup: deterministic UI for snapshots and a helper to wait on app state."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.constants
from textual.widgets import Input, TextArea

import tui.widgets.tool_card
from support import SNAPSHOT_WORKSPACE


@pytest.fixture(autouse=True)
def deterministic_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key == "NO_COLOR" or (
            key.startswith("TEXTUAL_") and not key.startswith("TEXTUAL_SNAPSHOT")
        ):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    # A real command's measured duration varies: panes keep their own (frozen) clock.
    monkeypatch.setattr(tui.widgets.tool_card, "AGENT_DURATIONS", False)


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
