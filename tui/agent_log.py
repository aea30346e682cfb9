"""Where the agent's stderr goes: a fresh file per launch, so its tail explains a failure."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

from platformdirs import user_log_dir

from dsh_common.private_files import open_private, private_dir, private_fd

KEEP_LOGS = 20
# An agent's stderr log past this is rotated: its content moves to `<name>.1`, one kept.
AGENT_LOG_MAX_BYTES = 20 * 1024 * 1024
AGENT_LOG_CHECK_S = 2.0
CLIENT_LOG = "dsh-tui.log"


def default_log_dir() -> Path:
    override = os.environ.get("DSH_LOG_DIR")
    return Path(override) if override else Path(user_log_dir("dsh-tui"))


def new_agent_log(log_dir: Path | None = None) -> Path:
    """A new, empty log file; the oldest ones beyond KEEP_LOGS are removed."""
    directory = log_dir or default_log_dir()
    private_dir(directory)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"agent-{stamp}-{os.getpid()}.log"
    os.close(private_fd(path, os.O_WRONLY | os.O_TRUNC))
    old = sorted(directory.glob("agent-*.log"), key=lambda p: p.stat().st_mtime)
    for stale in old[:-KEEP_LOGS]:
        stale.unlink(missing_ok=True)
        stale.with_name(f"{stale.name}.1").unlink(missing_ok=True)
    return path


def cap_log(path: Path, max_bytes: int | None = None) -> bool:
    """Rotate a log that the agent appends to, if it is over `max_bytes`.

    The agent holds the file open with O_APPEND, so it cannot be renamed away: its content is
    copied to `<name>.1` (replacing the older one) and the file is emptied in place, and the
    agent's next write lands at the new end. Only what is written between the last copy and
    the truncation, a few microseconds, can be lost.
    """
    limit = AGENT_LOG_MAX_BYTES if max_bytes is None else max_bytes
    try:
        if path.stat().st_size <= limit:
            return False
    except FileNotFoundError:
        return False  # removed with its directory (old logs pruned, a test's temp dir)
    try:
        with (
            path.open("r+b") as source,
            open_private(path.with_name(f"{path.name}.1"), "wb") as rotated,
        ):
            shutil.copyfileobj(source, rotated, 1024 * 1024)
            rotated.write(source.read())  # what came in while copying
            source.truncate(0)
    except OSError as error:
        logging.getLogger(__name__).warning("could not rotate %s: %s", path, error)
        return False
    return True


def watch_agent_log(path: Path, running: Callable[[], bool]) -> threading.Thread:
    """Check the agent's log every AGENT_LOG_CHECK_S while `running()`, rotating it past the cap.

    A thread, not a task: the CLI starts the agent before there is an event loop.
    """

    def watch() -> None:
        while running():
            time.sleep(AGENT_LOG_CHECK_S)
            cap_log(path)

    thread = threading.Thread(target=watch, name="agent-log-cap", daemon=True)
    thread.start()
    return thread


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
