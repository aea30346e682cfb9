"""The client's file system for ACP `fs/read_text_file` and `fs/write_text_file`.

The agent may only touch files under the session cwd and any `--allow-dir`. Paths are resolved
with symlinks (realpath) before the check, so neither `..` nor a symlink pointing outside gets
through. Writes are atomic (a temp file in the same directory, then `os.replace`), so an editor or
build watching the file never sees half of it.

A directory swapped for a symlink between the check and the open cannot redirect a read or a
write: the resolved path is opened one name at a time with O_NOFOLLOW, and the file is opened,
written and renamed relative to its directory's descriptor. Not defended against: a directory
*moved* out of the roots while a write is under way (the descriptor follows it). The agent's own
tools run with the user's rights anyway; this is about honest mistakes and prompt-injected
paths, not a sandbox.
"""

from __future__ import annotations

import contextlib
import errno
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
    "FsOsError",
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


class FsOsError(FsError, OSError):
    """Another OS error (a name too long, no space left, ...), with a plain message."""


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

    def read_text(
        self, path: str | os.PathLike[str], line: int | None = None, limit: int | None = None
    ) -> str:
        """Read a UTF-8 text file, optionally from 1-based `line` for at most `limit` lines.

        Bytes that are not valid UTF-8 are decoded as U+FFFD rather than refused, so an agent can
        still read a mostly-text file. Line endings are kept as they are (CRLF stays CRLF). A
        `line` one past the last line gives "", further is an error. Never more than
        `max_read_bytes` is held, even for a "line" with no newline in it.
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
        except FsError:
            raise
        except OSError as exc:
            raise FsOsError(f"cannot read {path}: {os_reason(exc)}") from exc

    def _read_lines(self, f: io.BufferedReader, path: object, start: int, limit: int | None) -> str:
        # Skip the lines before `start` in bounded pieces: a line may be any length.
        skipped = 0
        partial = False  # the bytes skipped last ended inside a line
        buffer = bytearray(_SKIP_BYTES) if start else bytearray()
        while skipped < start:
            size = f.readinto(buffer)
            if not size:
                count = skipped + (1 if partial else 0)  # a last line without a newline counts
                if start > count:
                    raise FsRangeError(
                        f"line {start + 1} is past the end of {path}, which has {count} lines"
                    )
                return ""
            pos = 0
            while skipped < start and (newline := buffer.find(b"\n", pos, size)) >= 0:
                skipped += 1
                pos = newline + 1
            if skipped == start:
                f.seek(pos - size, os.SEEK_CUR)  # a regular file: fstat said so
            partial = pos < size
        out: list[bytes] = []
        size = 0
        lines = 0
        while limit is None or lines < limit:
            # At most one byte more than may still fit: enough to know the cap is passed.
            piece = f.readline(self.max_read_bytes - size + 1)
            if not piece:
                break
            size += len(piece)
            if size > self.max_read_bytes:
                raise FsTooLargeError(
                    f"the requested lines of {path} are larger than {self.max_read_bytes} bytes; "
                    "ask for fewer lines"
                )
            out.append(piece)
            if piece.endswith(b"\n"):
                lines += 1
        return b"".join(out).decode("utf-8", "replace")

    def write_text(self, path: str | os.PathLike[str], content: str) -> None:
        """Write `content` as UTF-8, atomically, creating missing parent directories.

        An existing file keeps its permission bits; a symlink (inside the roots) keeps pointing at
        the file it names, which is the one replaced. A read-only file is refused rather than
        replaced behind the user's back.

        The resolved path is opened one directory at a time from `/` with O_NOFOLLOW, and the
        temp file is written and renamed relative to the last directory's descriptor: a
        directory swapped for a symlink after the check makes the write fail, it cannot send
        it elsewhere.
        """
        real = self.resolve(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FsInvalidContentError(
                f"content for {path} is not valid Unicode (lone surrogate at index {exc.start})"
            ) from exc
        try:
            with _walk_to_parent(real, path, create=True) as dir_fd:
                _write_in(dir_fd, real.name, data, path)
        except FsError:
            raise
        except PermissionError as exc:
            raise FsPermissionError(f"permission denied writing {path}") from exc
        except (NotADirectoryError, FileExistsError) as exc:
            raise FsNotAFileError(
                f"cannot write {path}: a parent of it exists and is not a directory"
            ) from exc
        except OSError as exc:
            raise FsOsError(f"cannot write {path}: {os_reason(exc)}") from exc


_SKIP_BYTES = 1024 * 1024
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_OS_REASONS = {
    errno.ENAMETOOLONG: "the path, or a name in it, is too long",
    errno.ELOOP: "too many symbolic links, or a symlink where a directory was",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files in the system",
    errno.EIO: "an input/output error",
    errno.EFBIG: "the file would be too large",
    errno.ETXTBSY: "the file is a running program",
    errno.EISDIR: "it is a directory",
    errno.EXDEV: "it is on another device",
}


def os_reason(error: OSError) -> str:
    """A short, plain reason for an OS error, without Python's `[Errno N] ...: 'path'` text."""
    if error.errno in _OS_REASONS:
        return _OS_REASONS[error.errno]
    if error.errno:
        return os.strerror(error.errno).lower()
    return "the operating system refused"


class _DirFd(contextlib.AbstractContextManager[int]):
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def _walk_to_parent(real: Path, shown: object, *, create: bool) -> _DirFd:
    """A descriptor on the parent of `real`, opened from `/` one name at a time.

    `real` is a resolved path, so none of its directories is a symlink: O_NOFOLLOW on each one
    turns a symlink that appeared since the check into an error instead of a detour. With
    `create`, missing directories are made (relative to their parent's descriptor).
    """
    fd = os.open("/", os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for name in real.parent.parts[1:]:
            try:
                child = os.open(
                    name, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=fd
                )
            except FileNotFoundError:
                if not create:
                    raise FsFileNotFoundError(f"file not found: {shown}") from None
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                child = os.open(
                    name, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=fd
                )
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PathOutsideRootsError(
                        f"access denied: a directory on the way to {shown} was replaced by a "
                        "symlink while it was opened"
                    ) from exc
                if exc.errno == errno.ENOTDIR and not create:
                    raise FsFileNotFoundError(f"file not found: {shown}") from exc
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return _DirFd(fd)


def _write_in(dir_fd: int, name: str, data: bytes, shown: object) -> None:
    """Replace `name` in the directory `dir_fd` with `data`, through a temp file and a rename."""
    try:
        st: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise PathOutsideRootsError(
            f"access denied: {shown} was replaced by a symlink while it was written"
        )
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise FsNotAFileError(f"cannot write {shown}: it is not a regular file")
    # Mode bits too, not just access(): root may write anything, yet a file marked read-only
    # should not be replaced behind the user's back.
    if st is not None and (not st.st_mode & 0o222 or not os.access(name, os.W_OK, dir_fd=dir_fd)):
        raise FsPermissionError(f"cannot write {shown}: the file is read-only")
    tmp = f".{name}.{secrets.token_hex(4)}.tmp"
    # O_EXCL and O_NOFOLLOW: never follow or reuse something planted at the temp name. 0o666
    # lets the umask apply, as for any newly created file.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC
    fd = os.open(tmp, flags, 0o666, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def _open_regular(real: Path, shown: object) -> io.BufferedReader:
    """Open `real` for reading through the same no-follow walk as writes use.

    O_NONBLOCK, so that a FIFO put in the workspace cannot hang the open; `fstat` then refuses
    anything but a regular file.
    """
    try:
        parent = _walk_to_parent(real, shown, create=False)
    except NotADirectoryError as exc:
        raise FsFileNotFoundError(f"file not found: {shown}") from exc
    with parent as dir_fd:
        try:
            fd = os.open(
                real.name, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd
            )
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise FsFileNotFoundError(f"file not found: {shown}") from exc
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathOutsideRootsError(
                    f"access denied: {shown} was replaced by a symlink while it was opened"
                ) from exc
            if exc.errno == errno.EISDIR:
                raise FsNotAFileError(f"cannot read {shown}: it is a directory") from exc
            raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise FsNotAFileError(f"cannot read {shown}: it is {kind}")
        os.set_blocking(fd, True)
        return io.BufferedReader(io.FileIO(fd, "rb"), buffer_size=_SKIP_BYTES)
    except BaseException:
        os.close(fd)
        raise
