"""A whole message out of the app: a private file for the pager, or one the user names.

The screen shows a huge message's head and tail only (tui/widgets/transcript/messages.py); these
let the
user read or keep all of it. The text is the conversation's, cleaned where it entered the
client. Files are created 0600 like the history files: a message can hold anything the agent
read. Pure: no Textual.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

DEFAULT_PAGER = "less"


def pager_argv(env: Mapping[str, str]) -> list[str]:
    """`$PAGER` split as a shell would, else `less`."""
    try:
        argv = shlex.split(env.get("PAGER", ""))
    except ValueError:
        argv = []
    return argv or [DEFAULT_PAGER]


def write_new(path: Path, text: str) -> None:
    """Write `text` to a file that must not exist yet, created 0600 (never following a link).
    Raises OSError (FileExistsError when it exists)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as file:
        file.write(text)


def page(text: str, env: Mapping[str, str]) -> int:
    """Run the pager on a temporary 0600 copy of `text`, removed once the pager exits; its
    exit status. Raises OSError when the pager cannot be started."""
    fd, name = tempfile.mkstemp(prefix="dsh-tui-message-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as file:
            file.write(text)
        return subprocess.call([*pager_argv(env), name])
    finally:
        os.unlink(name)
