"""The words of a terminal pane's header: durations, sizes, signal names and the cwd shown.

Pure functions, no Textual: card headers (tui/widgets/cards/header.py) use them too.
"""

from __future__ import annotations

import os
import signal as signal_module
from pathlib import Path

from tui.sanitize import clean_line, strip_control

__all__ = ["display_cwd", "format_bytes", "format_duration", "signal_name"]


def format_duration(seconds: float) -> str:
    """`0.4 s`, `12 s`, `3 m 05 s`, `2 h 03 m`: short, and stable for snapshots."""
    seconds = max(seconds, 0.0)
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        minutes, secs = divmod(int(seconds), 60)
        return f"{minutes} m {secs:02d} s"
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours} h {rest // 60:02d} m"


def format_bytes(count: int) -> str:
    """`812 B`, `54 KB`, `10.5 MB` (1024-based, like the 5 MB retention)."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def signal_name(value: str) -> str:
    """`SIGTERM` for `SIGTERM`, `TERM`, `15` or `-15`; anything else is shown cleaned up."""
    text = strip_control(value)[:32]
    number = text.lstrip("-")
    if number.isdigit():
        try:
            return signal_module.Signals(int(number)).name
        except ValueError:
            return f"signal {number}"
    names = signal_module.Signals.__members__
    for candidate in (text.upper(), "SIG" + text.upper()):
        if candidate in names:
            return candidate
    return text


def display_cwd(cwd: str | None, session_cwd: Path) -> str:
    """Inside the session: relative (`src/app`); elsewhere: `~`-abbreviated. The session
    directory itself is not shown (""): the header names it already, and a long path there
    would take the room of the command.

    Purely textual (no filesystem access), so snapshots need no real directories.
    """
    if not cwd:
        return ""
    root = Path(os.path.normpath(session_cwd))
    path = Path(os.path.normpath(root / cwd))  # an absolute cwd replaces the root
    if path == root:
        return ""
    if path.is_relative_to(root):
        return clean_line(str(path.relative_to(root)))
    home = Path.home()
    if path == home:
        return "~"
    if home != Path(home.anchor) and path.is_relative_to(home):
        return clean_line("~/" + str(path.relative_to(home)))
    return clean_line(str(path))
