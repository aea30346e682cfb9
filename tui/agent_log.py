"""Where the agent's stderr goes: a fresh file per launch, so its tail explains a failure."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from platformdirs import user_log_dir

KEEP_LOGS = 20
CLIENT_LOG = "dsh-tui.log"


def default_log_dir() -> Path:
    override = os.environ.get("DSH_LOG_DIR")
    return Path(override) if override else Path(user_log_dir("dsh-tui"))


def new_agent_log(log_dir: Path | None = None) -> Path:
    """A new, empty log file; the oldest ones beyond KEEP_LOGS are removed."""
    directory = log_dir or default_log_dir()
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"agent-{stamp}-{os.getpid()}.log"
    path.write_bytes(b"")
    old = sorted(directory.glob("agent-*.log"), key=lambda p: p.stat().st_mtime)
    for stale in old[:-KEEP_LOGS]:
        stale.unlink(missing_ok=True)
    return path


def read_tail(path: Path, max_lines: int = 20, max_bytes: int = 16_384) -> str:
    """The last lines of a log, decoded leniently: a crashing agent may write anything."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - max_bytes))
            data = handle.read()
    except OSError:
        return ""
    lines = data.decode("utf-8", "replace").splitlines()
    return "\n".join(lines[-max_lines:])


def client_log_path() -> Path | None:
    """dsh-tui's own log, where the CLI's logging goes (None when it is not configured)."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler) and handler.baseFilename.endswith(CLIENT_LOG):
            return Path(handler.baseFilename)
    return None
