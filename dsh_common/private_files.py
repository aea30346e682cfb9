"""Files that hold the conversation, readable by their owner only.

Session logs, recordings, the agent's stderr, dsh-tui's log and the prompt history carry
prompts, replies, command output and the text of files the user mentioned (a 0600 `.env`
among them), so each is created 0600 (in a 0700 directory when dsh creates it), whatever the
umask, and a file left wider by an older version is narrowed when it is opened again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

__all__ = ["DIR_MODE", "FILE_MODE", "open_private", "private_dir", "private_fd"]

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(directory: str | os.PathLike[str]) -> Path:
    """`directory`, created if need be (parents too); what this call creates is made 0700.

    A directory that already exists is left as it is: it may be the user's own choice
    (`--log-dir /tmp`), and the files in it are 0600 anyway.
    """
    path = Path(directory)
    missing = [path, *path.parents]
    missing = [level for level in missing if not level.exists()]
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    for level in missing:
        os.chmod(level, DIR_MODE)
    return path


def private_fd(path: str | os.PathLike[str], flags: int) -> int:
    """`os.open(path, flags | O_CREAT)`, the file 0600 even when it already existed."""
    fd = os.open(path, flags | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        if os.fstat(fd).st_mode & 0o777 != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


_FLAGS = {
    "a": os.O_WRONLY | os.O_APPEND,
    "w": os.O_WRONLY | os.O_TRUNC,
    "r+": os.O_RDWR,
}


def open_private(path: str | os.PathLike[str], mode: str = "ab", **options: Any) -> IO[Any]:
    """`open(path, mode)` for a file only its owner can read: mode `a`, `w` or `r+`, with `b`
    for bytes (`encoding` and the rest as `open` takes them)."""
    flags = _FLAGS[mode.replace("b", "")]
    return os.fdopen(private_fd(path, flags), mode, **options)
