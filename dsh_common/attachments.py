"""How a prompt's attached files are named and summed up, the same in client and agent.

dsh-tui shows a sent prompt with a line naming its attachments; dsh-agent replays the logged
prompt on `session/load` with the same line. Both build it here, from the same inputs (each
file's URI and, when its text was embedded, that text), so the resumed transcript reads
exactly as the live one did.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True, slots=True)
class AttachedFile:
    """One attachment as the transcript names it: `lines` is None for a link."""

    label: str
    lines: int | None


def uri_path(uri: str) -> str | None:
    """The local path of a `file://` URI (percent-decoded), or None for another scheme."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return unquote(parts.path)


def uri_label(uri: str, cwd: str) -> str:
    """A short name for an attachment: workspace-relative when it is inside `cwd`, else its
    absolute path, and the URI itself when it is not a local file."""
    path = uri_path(uri)
    if path is None:
        return uri
    path = os.path.normpath(path)
    root = os.path.normpath(cwd)
    if path == root:
        return "."
    if path.startswith(root.rstrip(os.sep) + os.sep):
        relative = path[len(root.rstrip(os.sep)) + 1 :]
        return relative + "/" if uri.endswith("/") else relative
    return path


def line_count(text: str) -> int:
    """Lines in `text`, a last line without a newline counted too ("" has none)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def attachments_line(files: Iterable[AttachedFile]) -> str:
    """`attached: src/app.py (120 lines), big.log (link)`, or "" for no attachments."""
    parts = [
        f"{file.label} (link)"
        if file.lines is None
        else f"{file.label} ({file.lines} line{'' if file.lines == 1 else 's'})"
        for file in files
    ]
    return "attached: " + ", ".join(parts) if parts else ""


def shown_prompt(text: str, files: Iterable[AttachedFile]) -> str:
    """The user message as the transcript shows it: the prompt, then its attachments line."""
    line = attachments_line(files)
    if not line:
        return text
    return f"{text.rstrip()}\n\n{line}" if text.strip() else line


__all__ = [
    "AttachedFile",
    "attachments_line",
    "line_count",
    "shown_prompt",
    "uri_label",
    "uri_path",
]
