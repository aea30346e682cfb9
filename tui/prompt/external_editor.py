"""Edit the prompt's draft in the user's own editor (`$VISUAL`, else `$EDITOR`, else `vi`).

The draft goes to a private temporary file (mode 0600: a draft may hold anything), the editor
runs on it while the app is suspended, and what the editor saved comes back. The file is
removed whatever happens. Pure: no Textual, so the round trip is tested with real editors.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.sanitize import sanitize_text

FALLBACK_EDITOR = "vi"


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """The edited text, or why there is none (the draft is then left as it was)."""

    text: str | None
    problem: str | None = None


def editor_command(env: Mapping[str, str]) -> list[str]:
    """The editor's argv: `$VISUAL`, then `$EDITOR` (each may carry arguments, `code -w`),
    then `vi`. A value that does not split as shell words is taken as one program name."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = [value]
            if words:
                return words
    return [FALLBACK_EDITOR]


def run_editor(argv: Sequence[str]) -> int:
    """Run the editor on the terminal the app has let go of, and wait for it."""
    return subprocess.run(list(argv), check=False).returncode


def edit_text(
    text: str,
    env: Mapping[str, str] | None = None,
    run: Callable[[Sequence[str]], int] = run_editor,
) -> EditOutcome:
    """`text` edited in the user's editor. The single newline editors add at the end of the
    file is dropped; escape sequences and control characters (but tabs and new lines) are."""
    argv = editor_command(os.environ if env is None else env)
    fd, name = tempfile.mkstemp(prefix="dsh-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            code = run([*argv, str(path)])
        except OSError as error:
            return EditOutcome(None, f"Cannot run the editor {argv[0]}: {error.strerror or error}")
        if code != 0:
            return EditOutcome(None, f"The editor {argv[0]} exited {code}: the draft is unchanged.")
        try:
            edited = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as error:
            return EditOutcome(None, f"Cannot read the edited draft: {error.strerror or error}")
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
    return EditOutcome(sanitize_text(edited.removesuffix("\n")))
