"""The last window's tabs, so `dsh-tui --resume` opens them again: each tab's agent, directory
and session id (where the agent can load or resume it).

Written when the app quits with two or more tabs (forgotten with one, so `--resume` then picks
a session as it always did). The file is private (0600): a named agent's environment is part
of how its tab starts, as it is in the settings file it came from. Pure but for the file.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from dsh_common.private_files import open_private, private_dir

log = logging.getLogger(__name__)


def default_path() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir("dsh-tui")) / "window.json"


@dataclass(frozen=True)
class SavedTab:
    agent_command: str
    cwd: Path
    session_id: str | None
    env: tuple[tuple[str, str], ...] = ()


def save(path: Path, tabs: list[SavedTab]) -> None:
    """Keep `tabs` for the next `--resume`; fewer than two forgets the window."""
    if len(tabs) < 2:
        forget(path)
        return
    rows = [
        {
            "agent": tab.agent_command,
            "cwd": str(tab.cwd),
            "session": tab.session_id,
            "env": [list(pair) for pair in tab.env],
        }
        for tab in tabs
    ]
    try:
        private_dir(path.parent)
        with open_private(path, "w", encoding="utf-8") as file:
            json.dump({"tabs": rows}, file)
    except OSError as error:
        log.warning("could not keep the window's tabs in %s: %s", path, error)


def forget(path: Path) -> None:
    path.unlink(missing_ok=True)


def load(path: Path) -> list[SavedTab]:
    """The saved tabs, in order; none when the file is missing or not what `save` writes."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["tabs"]
        tabs = [
            SavedTab(
                str(row["agent"]),
                Path(row["cwd"]),
                None if row.get("session") is None else str(row["session"]),
                tuple((str(key), str(value)) for key, value in row.get("env", [])),
            )
            for row in rows
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        if path.exists():
            log.warning("ignoring the saved window %s: %s", path, error)
        return []
    return [tab for tab in tabs if tab.agent_command.strip() and tab.cwd.is_dir()]
