"""Each side's own workspace: a private copy of one directory, so the sides' writes never meet."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tui.compare.capability_set import SpecError

MAX_FILES = 5000
MAX_BYTES = 200 * 1024 * 1024
"""Past these, copying once per side is not what anyone meant: --workspace names a smaller one."""


def measure(source: Path) -> tuple[int, int]:
    """Files and bytes under `source`, symlinks counted but not followed."""
    files = size = 0
    for directory, _, names in os.walk(source):
        for name in names:
            files += 1
            path = Path(directory, name)
            with contextlib.suppress(OSError):  # gone since the walk listed it
                if not path.is_symlink():
                    size += path.lstat().st_size
    return files, size


def copy_tree(source: Path, target: Path, skip: Path) -> None:
    """`source` into `target`, symlinks as symlinks; `skip` (the copies' own root, when the
    source holds it, as a copy of /tmp would) and what is neither a file, a directory nor a
    symlink (sockets, pipes, devices) are left out."""

    def left_out(directory: str, names: list[str]) -> set[str]:
        dropped = set()
        for name in names:
            path = Path(directory, name)
            if path == skip:
                dropped.add(name)
                continue
            try:
                mode = path.lstat().st_mode
            except OSError:
                dropped.add(name)
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                dropped.add(name)
        return dropped

    shutil.copytree(source, target, symlinks=True, ignore=left_out)


@dataclass
class SideWorkspaces:
    """One copy of `source` per side under a fresh temporary root, removed by `remove`."""

    root: Path
    copies: list[Path]
    source: Path | None = None  # None: each side starts in an empty directory
    owned: bool = True  # `remove` deletes the root (not a root the caller chose)

    @classmethod
    def copy(cls, source: Path | None, labels: list[str]) -> SideWorkspaces:
        """A copy of `source` for each label (None: an empty directory each). Raises
        SpecError for a missing or too large source, before anything is copied."""
        if source is not None:
            if not source.is_dir():
                raise SpecError(f"--workspace {source} is not a directory")
            files, size = measure(source)
            if files > MAX_FILES or size > MAX_BYTES:
                raise SpecError(
                    f"--workspace {source} holds {files} files, {size // (1024 * 1024)} MB: "
                    f"too much to copy once per side (at most {MAX_FILES} files, "
                    f"{MAX_BYTES // (1024 * 1024)} MB); name a smaller directory"
                )
        root = Path(tempfile.mkdtemp(prefix="dsh-compare-"))
        copies = []
        for number, label in enumerate(labels, 1):
            target = root / f"side-{number}-{safe_name(label)}"
            copies.append(target)
            try:
                if source is None:
                    target.mkdir()
                else:
                    copy_tree(source, target, root)
            except (OSError, shutil.Error) as error:
                shutil.rmtree(root, ignore_errors=True)
                raise SpecError(f"--workspace {source}: could not copy it: {error}") from error
        return cls(root, copies, source)

    def refresh(self, index: int) -> None:
        """Side `index` starts again from the source (replaying from the start)."""
        target = self.copies[index]
        shutil.rmtree(target, ignore_errors=True)
        if self.source is None:
            target.mkdir(parents=True)
        else:
            copy_tree(self.source, target, self.root)

    def remove(self) -> None:
        if self.owned:
            shutil.rmtree(self.root, ignore_errors=True)


def safe_name(label: str) -> str:
    """A side's label as a file name: letters, digits, dots and dashes."""
    kept = "".join(c if c.isalnum() or c in ".-" else "-" for c in label)
    return kept.strip("-") or "side"


def recording_paths(directory: Path, labels: list[str]) -> list[Path]:
    """`--record DIR`: one JSONL file per side, numbered, named by its capabilities."""
    return [
        directory / f"side-{number}-{safe_name(label)}.jsonl"
        for number, label in enumerate(labels, 1)
    ]
