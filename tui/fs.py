"""The client's file system for ACP `fs/read_text_file` and `fs/write_text_file`.

The agent may only touch files under the session cwd and any `--allow-dir`. Paths are resolved
with symlinks (realpath) before the check, so neither `..` nor a symlink pointing outside gets
through. Writes are atomic (a temp file in the same directory, then `os.replace`), so an editor or
build watching the file never sees half of it.

Not defended against: a process that swaps a directory for a symlink between the check and the
open. The agent's own tools run with the user's rights anyway; this is about honest mistakes and
prompt-injected paths, not a sandbox.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "ConfinedFs",
    "FsError",
    "FsFileNotFoundError",
    "FsInvalidContentError",
    "FsInvalidPathError",
    "FsNotAFileError",
    "FsPermissionError",
    "FsRangeError",
    "FsTooLargeError",
    "PathOutsideRootsError",
]

DEFAULT_MAX_READ_BYTES = 50 * 1024 * 1024


class FsError(Exception):
    """Base class: every refusal from ConfinedFs, each with a message fit for the agent."""


class FsInvalidPathError(FsError, ValueError):
    """The path is not absolute or not a valid path."""


class PathOutsideRootsError(FsError, PermissionError):
    """The path (after resolving `..` and symlinks) is outside every allowed root."""


class FsFileNotFoundError(FsError, FileNotFoundError):
    """The file to read does not exist."""


class FsNotAFileError(FsError, IsADirectoryError):
    """The path names a directory or another non-regular file."""


class FsPermissionError(FsError, PermissionError):
    """The OS refuses access, or the existing file is read-only."""


class FsInvalidContentError(FsError, ValueError):
    """The content to write cannot be encoded as UTF-8 (a lone surrogate)."""


class FsRangeError(FsError, ValueError):
    """`line` or `limit` is invalid, or `line` is past the end of the file."""


class FsTooLargeError(FsError, ValueError):
    """The text to return is larger than the read cap."""


class ConfinedFs:
    """Text file access confined to a set of root directories."""

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]],
        *,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    ) -> None:
        self._roots: list[Path] = []
        self.max_read_bytes = max_read_bytes
        for root in roots:
            self.add_root(root)

    @property
    def roots(self) -> list[Path]:
        """The allowed roots, resolved."""
        return list(self._roots)

    def add_root(self, root: str | os.PathLike[str]) -> None:
        """Allow one more directory tree, resolved now so a later symlink swap cannot widen it."""
        resolved = Path(os.path.realpath(os.path.abspath(os.fspath(root))))
        if resolved not in self._roots:
            self._roots.append(resolved)

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Return the real path of `path`, or raise if it is relative or outside the roots."""
        raw = os.fspath(path)
        if "\x00" in raw:
            raise FsInvalidPathError("invalid path: it contains a NUL character")
        if not os.path.isabs(raw):
            raise FsInvalidPathError(f"path must be absolute: {raw!r}")
        real = Path(os.path.realpath(raw))
        if not any(real.is_relative_to(root) for root in self._roots):
            allowed = ", ".join(str(r) for r in self._roots) or "(none)"
            shown = raw if str(real) == os.path.normpath(raw) else f"{raw} (resolves to {real})"
            raise PathOutsideRootsError(
                f"access denied: {shown} is outside the allowed directories: {allowed}"
            )
        return real

    def is_allowed(self, path: str | os.PathLike[str]) -> bool:
        """Whether `resolve` would accept `path` (for UI hints; the calls check again)."""
        try:
            self.resolve(path)
        except FsError:
            return False
        return True

    def read_text(
        self, path: str | os.PathLike[str], line: int | None = None, limit: int | None = None
    ) -> str:
        """Read a UTF-8 text file, optionally from 1-based `line` for at most `limit` lines.

        Bytes that are not valid UTF-8 are decoded as U+FFFD rather than refused, so an agent can
        still read a mostly-text file. Line endings are kept as they are (CRLF stays CRLF). A
        `line` one past the last line gives "", further is an error.
        """
        if line is not None and line < 1:
            raise FsRangeError(f"line must be 1 or more (1-based), got {line}")
        if limit is not None and limit < 0:
            raise FsRangeError(f"limit must not be negative, got {limit}")
        real = self.resolve(path)
        start = (line or 1) - 1
        try:
            with _open_regular(real, path) as f:
                if line is None and limit is None:
                    data = f.read(self.max_read_bytes + 1)
                    if len(data) > self.max_read_bytes:
                        raise FsTooLargeError(
                            f"{path} is larger than {self.max_read_bytes} bytes; "
                            "read it in parts with line and limit"
                        )
                    return data.decode("utf-8", "replace")
                return self._read_lines(f, path, start, limit)
        except PermissionError as exc:
            raise FsPermissionError(f"permission denied reading {path}") from exc

    def _read_lines(self, f: io.BufferedReader, path: object, start: int, limit: int | None) -> str:
        out: list[bytes] = []
        size = 0
        index = -1
        for index, raw in enumerate(f):
            if index < start:
                continue
            if limit is not None and len(out) >= limit:
                break
            size += len(raw)
            if size > self.max_read_bytes:
                raise FsTooLargeError(
                    f"the requested lines of {path} are larger than {self.max_read_bytes} bytes; "
                    "ask for fewer lines"
                )
            out.append(raw)
        else:
            count = index + 1  # number of lines in the file
            if start > count:
                raise FsRangeError(
                    f"line {start + 1} is past the end of {path}, which has {count} lines"
                )
        return b"".join(out).decode("utf-8", "replace")

    def write_text(self, path: str | os.PathLike[str], content: str) -> None:
        """Write `content` as UTF-8, atomically, creating missing parent directories.

        An existing file keeps its permission bits; a symlink (inside the roots) keeps pointing at
        the file it names, which is the one replaced. A read-only file is refused rather than
        replaced behind the user's back.
        """
        real = self.resolve(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FsInvalidContentError(
                f"content for {path} is not valid Unicode (lone surrogate at index {exc.start})"
            ) from exc
        try:
            st = os.stat(real)
        except FileNotFoundError:
            st = None
        except NotADirectoryError as exc:
            raise FsNotAFileError(
                f"cannot write {path}: a parent of it exists and is not a directory"
            ) from exc
        except PermissionError as exc:
            raise FsPermissionError(f"permission denied writing {path}") from exc
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise FsNotAFileError(f"cannot write {path}: it is not a regular file")
        # Mode bits too, not just access(): root may write anything, yet a file marked read-only
        # should not be replaced behind the user's back.
        if st is not None and (not st.st_mode & 0o222 or not os.access(real, os.W_OK)):
            raise FsPermissionError(f"cannot write {path}: the file is read-only")
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(real, data, None if st is None else stat.S_IMODE(st.st_mode))
        except PermissionError as exc:
            raise FsPermissionError(f"permission denied writing {path}") from exc
        except (NotADirectoryError, FileExistsError) as exc:
            raise FsNotAFileError(
                f"cannot write {path}: a parent of it exists and is not a directory"
            ) from exc


def _open_regular(real: Path, shown: object) -> io.BufferedReader:
    try:
        st = os.stat(real)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise FsFileNotFoundError(f"file not found: {shown}") from exc
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise FsNotAFileError(f"cannot read {shown}: it is {kind}")
    try:
        return open(real, "rb")
    except FileNotFoundError as exc:
        raise FsFileNotFoundError(f"file not found: {shown}") from exc


def _atomic_write(real: Path, data: bytes, mode: int | None) -> None:
    """Write a temp file next to `real`, fsync it, and rename it over `real`."""
    tmp = real.with_name(f".{real.name}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: never follow or reuse something planted at the temp name. 0o666 lets the umask apply,
    # as for any newly created file.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
