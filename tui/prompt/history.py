"""Prompt history per workspace, kept across runs in the XDG state directory.

One JSON string per line, appended as prompts are sent, so a crash loses nothing and two
sessions in one workspace both add to it. Reading keeps the newest MAX_ENTRIES.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from platformdirs import user_state_dir

from dsh_common.private_files import private_dir, private_fd

log = logging.getLogger(__name__)

MAX_ENTRIES = 500


def workspace_digest(workspace: Path) -> str:
    """A workspace's name for per-workspace files: a hash of its path (paths may hold any
    character)."""
    return hashlib.sha256(str(workspace).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def history_path(workspace: Path) -> Path:
    """One file per workspace."""
    return Path(user_state_dir("dsh-tui")) / "history" / f"{workspace_digest(workspace)}.jsonl"


class PromptHistory:
    """Earlier prompts, oldest first, with a cursor for Up/Down recall.

    Recall starts past the newest entry (the draft being typed). Moving away from the draft
    keeps it, so coming back down restores what the user had typed.
    """

    def __init__(self, path: Path | None, entries: list[str] | None = None) -> None:
        self.path = path
        self.entries: list[str] = entries if entries is not None else self._load()
        self._index = len(self.entries)
        self._draft = ""

    @classmethod
    def for_workspace(cls, workspace: Path) -> PromptHistory:
        return cls(history_path(workspace))

    def _load(self) -> list[str]:
        if self.path is None:
            return []
        try:
            lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        entries: list[str] = []
        for line in lines[-MAX_ENTRIES:]:
            try:
                value = json.loads(line)
            except ValueError:
                continue  # a torn last line after a crash
            if isinstance(value, str) and value:
                entries.append(value)
        return entries

    def add(self, text: str) -> None:
        """Record a sent prompt (not twice in a row) and reset recall to the draft."""
        if text and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[:-MAX_ENTRIES]
            self._append(text)
        self._index = len(self.entries)
        self._draft = ""

    def _append(self, text: str) -> None:
        if self.path is None:
            return
        try:
            private_dir(self.path.parent)
            line = json.dumps(text, ensure_ascii=False) + "\n"
            fd = private_fd(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line.encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)
        except OSError as error:
            log.warning("could not save the prompt history to %s: %s", self.path, error)

    def previous(self, current: str) -> str | None:
        """The entry before the one shown, or None at the oldest."""
        if self._index == 0:
            return None
        if self._index == len(self.entries):
            self._draft = current
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The entry after the one shown, the draft past the newest, or None at the draft."""
        if self._index >= len(self.entries):
            return None
        self._index += 1
        if self._index == len(self.entries):
            return self._draft
        return self.entries[self._index]
