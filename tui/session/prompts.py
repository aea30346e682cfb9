"""The first prompt of each session dsh-tui started, kept per workspace, and what the resume
picker shows of it.

An agent's session/list gives titles and times, which often do not tell sessions apart
(`dsh-agent demo`, or a title cut short). dsh-agent also sends the first prompt in
`_meta["dsh.firstPrompt"]`; for any other agent, the picker uses the prompt dsh-tui noted
when it sent a new session's first prompt. One JSON object per line, 0600, in the XDG state
directory, next to the prompt history.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_state_dir

from dsh_common.private_files import private_dir, private_fd
from tui.prompt.history import workspace_digest
from tui.sanitize import clean_line

if TYPE_CHECKING:
    from acp.schema import SessionInfo

log = logging.getLogger(__name__)

FIRST_PROMPT_META_KEY = "dsh.firstPrompt"
SHOWN_CHARS = 200  # more than any picker row holds
MAX_READ_BYTES = 4 * 1024 * 1024  # a larger file is read from its end: the newest sessions


def prompts_path(workspace: Path) -> Path:
    return Path(user_state_dir("dsh-tui")) / "sessions" / f"{workspace_digest(workspace)}.jsonl"


def remember(path: Path, session_id: str, prompt: str) -> None:
    """Note a new session's first prompt (its start: the picker shows no more)."""
    line = json.dumps({"id": session_id, "prompt": prompt[: SHOWN_CHARS * 2]}, ensure_ascii=False)
    try:
        private_dir(path.parent)
        fd = private_fd(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    except OSError as error:
        log.warning("could not note the session's first prompt in %s: %s", path, error)


class FirstPrompts:
    """Notes the first prompt of each session this run opened new (a resumed session's first
    prompt was sent before, maybe by another client: what is sent now is not it)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._seen: set[str] = set()

    def sent(self, session_id: str, resumed: bool, prompt: str) -> None:
        if session_id in self._seen:
            return
        self._seen.add(session_id)
        if not resumed and self.path is not None and prompt.strip():
            remember(self.path, session_id, prompt)


def remembered(path: Path) -> dict[str, str]:
    """Session id -> first prompt, as noted; a torn or foreign line is skipped."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - MAX_READ_BYTES))
            data = handle.read()
    except OSError:
        return {}
    found: dict[str, str] = {}
    for raw in data.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            session_id, prompt = record.get("id"), record.get("prompt")
            if isinstance(session_id, str) and isinstance(prompt, str):
                found.setdefault(session_id, prompt)
    return found


def shown_prompt(text: str) -> str:
    """A prompt as one clean line: escapes and controls gone, whitespace collapsed, trimmed."""
    line = " ".join(clean_line(text).split())
    return line if len(line) <= SHOWN_CHARS else line[: SHOWN_CHARS - 1].rstrip() + "…"


def first_prompt(info: SessionInfo, noted: dict[str, str]) -> str | None:
    """The session's first prompt as a picker row shows it: the agent's (in `_meta`), else
    the one dsh-tui noted; None when neither has it."""
    meta = info.field_meta if isinstance(info.field_meta, dict) else {}
    text = meta.get(FIRST_PROMPT_META_KEY)
    if not isinstance(text, str) or not text.strip():
        text = noted.get(info.session_id)
    if text is None:
        return None
    return shown_prompt(text) or None
