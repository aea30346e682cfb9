"""Settings the user changes in the app and expects to find again: the theme and the diff view.

Kept in their own small JSON file, `$XDG_CONFIG_HOME/dsh-tui/settings.json` (mode 0600,
replaced atomically), apart from any hand-written configuration. A file that cannot be read
or makes no sense gives the defaults and a notice to show: settings never stop the app.
Pure: no Textual.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, cast

DiffView = Literal["auto", "unified", "split"]
DIFF_VIEWS: tuple[DiffView, ...] = ("auto", "unified", "split")
FILE_NAME = "settings.json"


@dataclass(frozen=True, slots=True)
class Settings:
    theme: str | None = None  # None: the app's default
    diff_view: DiffView = "auto"


@dataclass(frozen=True, slots=True)
class Loaded:
    settings: Settings
    notice: str | None = None  # why the file was not used, to tell the user


def default_path(env: dict[str, str] | None = None) -> Path:
    environ = os.environ if env is None else env
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dsh-tui" / FILE_NAME


def _notice(path: Path, reason: str) -> str:
    return f"Settings not used ({reason}): the defaults instead. File: {path}"


def load(path: Path) -> Loaded:
    """The stored settings; a missing file is the defaults, quietly."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Loaded(Settings())
    except (OSError, UnicodeDecodeError) as error:
        return Loaded(Settings(), _notice(path, str(error)))
    try:
        data: object = json.loads(raw)
    except ValueError:
        return Loaded(Settings(), _notice(path, "not valid JSON"))
    if not isinstance(data, dict):
        return Loaded(Settings(), _notice(path, "not a JSON object"))
    theme = data.get("theme")
    view = data.get("diff_view", "auto")
    problems = []
    if theme is not None and not (isinstance(theme, str) and theme.strip()):
        problems.append("theme")
        theme = None
    if view not in DIFF_VIEWS:
        problems.append("diff_view")
        view = "auto"
    settings = Settings(theme, cast(DiffView, view))
    if problems:
        words = " and ".join(problems)
        return Loaded(settings, _notice(path, f"{words} not understood"))
    return Loaded(settings)


def save(path: Path, settings: Settings) -> None:
    """Write the settings atomically (a crash leaves the old file or the new one), mode 0600.
    Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"theme": settings.theme, "diff_view": settings.diff_view}
    fd, name = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


class SettingsStore:
    """The settings of one run: read once, written on each change. A failed write is
    reported once (`save_problem`) and the app goes on with the change in memory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        loaded = load(path)
        self.settings = loaded.settings
        self.notice = loaded.notice

    def update(self, *, theme: str | None = None, diff_view: DiffView | None = None) -> str | None:
        """Change and store; returns a problem to tell the user, or None."""
        changed = self.settings
        if theme is not None:
            changed = replace(changed, theme=theme)
        if diff_view is not None:
            changed = replace(changed, diff_view=diff_view)
        if changed == self.settings:
            return None
        self.settings = changed
        try:
            save(self.path, changed)
        except OSError as error:
            return f"Settings not saved ({self.path}): {error.strerror or error}"
        return None
