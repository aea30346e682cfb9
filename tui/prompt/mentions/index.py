"""The workspace's paths, as `@` completion offers them.

A walk of the workspace that leaves out what git would: paths a `.gitignore` (at any depth, or
`.git/info/exclude`) ignores, with git's precedence (a deeper file's last matching pattern
wins, and nothing inside an ignored directory comes back). `.git/`, virtualenvs (`.venv`,
`venv`, any directory holding a `pyvenv.cfg`) and `node_modules/` are left out even without a
`.gitignore`, since nobody means to mention them and they are often most of a tree. Symlinked
directories are not followed (a loop, or a tree outside the workspace).

A name is the agent's to choose (it can create files), so each path is cleaned as agent text
is before anything shows it: an escape sequence in a name is dropped, a bidi override or an
invisible character shown as `⟨U+202E⟩`. Such a path names no file any more, and a mention of
it is refused as "no such file", which is honest: what is attached is what the user saw.

The walk is plain blocking I/O: callers run `build_index` off the UI thread.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tui.sanitize import clean_name

if TYPE_CHECKING:  # pathspec is imported when an index is built, not with the prompt (9 ms)
    from pathspec import GitIgnoreSpec

ALWAYS_SKIPPED = frozenset({".git", ".venv", "venv", "node_modules"})
"""Directory names left out whatever `.gitignore` says."""

MAX_ENTRIES = 500_000
"""A walk stops here: a home directory opened as the workspace must not eat the memory."""


@dataclass(frozen=True, slots=True)
class PathIndex:
    """Workspace-relative paths with `/` separators; a directory's ends with `/`.

    Directories come first, then files; each group sorted by depth, then name, which is the
    order an empty query lists them in. `lowered` and `base_starts` are what the matcher
    needs per path, computed once here rather than per keystroke.
    """

    root: Path
    paths: tuple[str, ...]
    lowered: tuple[str, ...] = field(repr=False)
    base_starts: tuple[int, ...] = field(repr=False)
    truncated: bool = False

    @classmethod
    def from_paths(cls, root: Path, paths: list[str], *, truncated: bool = False) -> PathIndex:
        ordered = sorted(dict.fromkeys(clean_name(path) for path in paths), key=_order_key)
        return cls(
            root,
            tuple(ordered),
            tuple(path.lower() for path in ordered),
            tuple(_base_start(path) for path in ordered),
            truncated,
        )

    def __len__(self) -> int:
        return len(self.paths)


def _order_key(path: str) -> tuple[bool, int, str]:
    return (not path.endswith("/"), path.count("/", 0, len(path) - 1), path)


def _base_start(path: str) -> int:
    """Where the last segment starts (a directory's trailing `/` is not a separator)."""
    return path.rfind("/", 0, len(path) - 1) + 1


@dataclass(frozen=True, slots=True)
class _Rules:
    """One `.gitignore`'s patterns and the directory (relative, `""` or ending `/`) they
    apply below."""

    base: str
    spec: GitIgnoreSpec


def build_index(root: str | os.PathLike[str], *, limit: int = MAX_ENTRIES) -> PathIndex:
    """Walk `root` and return its mentionable paths (blocking)."""
    top = Path(os.path.realpath(os.fspath(root)))
    paths: list[str] = []
    truncated = False
    for path in _walk(top, _root_rules(top)):
        if len(paths) >= limit:
            truncated = True
            break
        paths.append(path)
    return PathIndex.from_paths(top, paths, truncated=truncated)


def _root_rules(top: Path) -> list[_Rules]:
    rules: list[_Rules] = []
    exclude = _read_rules(top / ".git" / "info" / "exclude", "")
    if exclude is not None:
        rules.append(exclude)
    return rules


def _read_rules(file: Path, base: str) -> _Rules | None:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    from pathspec import GitIgnoreSpec

    spec = GitIgnoreSpec.from_lines(text.splitlines())
    return _Rules(base, spec) if spec.patterns else None


def _ignored(relative: str, rules: list[_Rules]) -> bool:
    """Git's answer for one path: the deepest rules file with a matching pattern decides."""
    for rule in reversed(rules):
        if not relative.startswith(rule.base):
            continue
        verdict = rule.spec.check_file(relative[len(rule.base) :]).include
        if verdict is not None:
            return verdict
    return False


def _walk(top: Path, root_rules: list[_Rules]) -> Iterator[str]:
    # Depth first with an explicit stack: each entry carries the rules in force in it.
    stack: list[tuple[str, str, list[_Rules]]] = [(str(top), "", root_rules)]
    while stack:
        directory, relative, inherited = stack.pop()
        rules = inherited
        own = _read_rules(Path(directory) / ".gitignore", relative)
        if own is not None:
            rules = [*inherited, own]
        try:
            with os.scandir(directory) as scan:
                entries = list(scan)
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in ALWAYS_SKIPPED:
                    continue
                child = f"{relative}{entry.name}/"
                if _ignored(child, rules) or _is_virtualenv(entry.path):
                    continue
                yield child
                stack.append((entry.path, child, rules))
            else:
                child = f"{relative}{entry.name}"
                if not _ignored(child, rules):
                    yield child


def _is_virtualenv(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, "pyvenv.cfg"))


__all__ = ["ALWAYS_SKIPPED", "MAX_ENTRIES", "PathIndex", "build_index"]
