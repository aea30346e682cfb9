"""The file tools: read, write and edit.

Paths in arguments resolve against the session cwd. Cards show the path as the model wrote it
(the bridge shortens absolute titles); the model-facing text shows the absolute path. Every
read and write records a digest of the file in the session's `read_stamps`, so edit can refuse
a file that changed on disk since the agent last saw it instead of silently losing that change.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from agent.jsonvalue import JsonObject, JsonValue
from agent.tools.base import (
    ToolArgsError,
    ToolContext,
    ToolResult,
    arg_bool,
    arg_int,
    require_str,
    run_blocking,
)
from agent.tools.hunks import (
    applied_hunks,
    diffs_from_meta,
    hunks_to_meta,
    locations_from_meta,
    snippet_line,
)
from agent.views import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    ToolCallView,
    ToolResultView,
)

READ_LIMIT = 2000
"""Lines per read: the default and the maximum."""
MAX_LINE_CHARS = 2000
MAX_READ_BYTES = 50 * 1024
_SNIFF_BYTES = 8192
_LINE_PIECE_BYTES = MAX_LINE_CHARS * 4 + 4
"""What read keeps of one line: enough bytes for MAX_LINE_CHARS characters of any width."""
_SKIP_BYTES = 1024 * 1024
"""The rest of a longer line is hashed in pieces of this size and not kept."""
_INSPECT_MAX_BYTES = 16 * 1024 * 1024
"""Beyond this an edit's call card goes without a start line rather than read the file."""


class FsError(Exception):
    """A file problem worth telling the model in plain words."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _file_path(args: Mapping[str, object]) -> str:
    path = require_str(args, "file_path")
    if not path.strip():
        raise ToolArgsError("argument 'file_path' must not be empty")
    return path


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading if it is a regular file; FsError otherwise.

    Opened with O_NONBLOCK and checked with fstat before any read, so a FIFO, socket or
    device in the workspace is refused at once instead of blocking the call for ever (a FIFO
    with no writer blocks a plain open, and a read of /dev/zero never ends).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FsError(f"file not found: {path}") from None
    except OSError as exc:
        raise FsError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise FsError(f"{path} is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise FsError(
                f"{path} is not a regular file (a FIFO, socket or device); "
                "the file tools work on regular files only"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_bytes(path: Path) -> bytes:
    try:
        with open_regular(path) as handle:
            return handle.read()
    except OSError as exc:
        raise FsError(f"cannot read {path}: {exc.strerror or exc}") from None


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` by a temporary file and a rename, keeping its mode.

    A reader never sees a half-written file, and a crash leaves the old content intact. A new
    file gets the usual 0666 minus umask (the kernel applies the umask to `os.open`); a
    symlink is followed so the link itself survives.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# --- read ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ReadArgs:
    file_path: str
    offset: int | None
    limit: int | None


def _read_args(args: Mapping[str, object]) -> _ReadArgs:
    offset = arg_int(args, "offset")
    if offset is not None and offset < 1:
        raise ToolArgsError("argument 'offset' is a 1-based line number and must be at least 1")
    limit = arg_int(args, "limit")
    if limit is not None and limit < 1:
        raise ToolArgsError("argument 'limit' must be at least 1")
    return _ReadArgs(_file_path(args), offset, None if limit is None else min(limit, READ_LIMIT))


def _read_window(path: Path, offset: int, limit: int) -> tuple[str, str]:
    """Number the lines of one window; returns (model text, digest of the whole file).

    The file is streamed line by line so a huge log costs memory for the window only; the
    whole file is still hashed for the edit staleness check and counted for the footer. Each
    line is read with a bounded `readline`: past the bytes its shown part needs, the rest of a
    long line is hashed in pieces and never held, so a one-line 300 MB file costs no more
    memory than a short one.
    """
    digest = hashlib.sha256()
    shown: list[str] = []
    used = 0
    capped = False
    total = 0
    try:
        with open_regular(path) as handle:
            if b"\0" in handle.read(_SNIFF_BYTES):
                raise FsError(f"{path} is a binary file; read shows text files only")
            handle.seek(0)
            while raw := handle.readline(_LINE_PIECE_BYTES):
                digest.update(raw)
                total += 1
                cut = len(raw) == _LINE_PIECE_BYTES and not raw.endswith(b"\n")
                while cut and (rest := handle.readline(_SKIP_BYTES)):
                    digest.update(rest)
                    if rest.endswith(b"\n"):
                        break
                if total < offset or len(shown) >= limit or capped:
                    continue
                try:
                    # A cut piece may end inside a character: keep the complete ones.
                    line = (
                        codecs.getincrementaldecoder("utf-8")().decode(raw, final=False)
                        if cut
                        else raw.decode("utf-8")
                    )
                except UnicodeDecodeError:
                    raise FsError(
                        f"{path} is not valid UTF-8 text (line {total}); "
                        "read shows UTF-8 text files only"
                    ) from None
                line = line.removesuffix("\n").removesuffix("\r")
                if len(line) > MAX_LINE_CHARS:
                    line = (
                        line[:MAX_LINE_CHARS]
                        + f"... (line truncated to {MAX_LINE_CHARS} characters)"
                    )
                numbered = f"{total}: {line}"
                size = len(numbered.encode("utf-8")) + 1
                if shown and used + size > MAX_READ_BYTES:
                    capped = True
                    continue
                shown.append(numbered)
                used += size
    except OSError as exc:
        raise FsError(f"cannot read {path}: {exc.strerror or exc}") from None

    if total and offset > total:
        raise FsError(f"offset {offset} is past the end of {path} ({total} lines)")
    last = offset + len(shown) - 1
    if capped:
        footer = (
            f"(Output capped at {MAX_READ_BYTES // 1024} KiB. Showing lines {offset}-{last} "
            f"of {total}. Use offset={last + 1} to continue.)"
        )
    elif last < total:
        footer = f"(Showing lines {offset}-{last} of {total}. Use offset={last + 1} to continue.)"
    else:
        footer = f"(End of file - total {total} lines)"
    body = "".join(line + "\n" for line in shown)
    text = f"<path>{path}</path>\n<type>file</type>\n<content>\n{body}\n{footer}\n</content>"
    return text, digest.hexdigest()


class ReadTool:
    """`read {file_path, offset?, limit?}`: numbered lines of a text file, in windows."""

    name = "read"
    read_only = True
    description = (
        "Read a UTF-8 text file. Returns numbered lines ('N: text'). By default the first "
        f"{READ_LIMIT} lines; use offset (1-based line) and limit to page through larger "
        f"files. Lines longer than {MAX_LINE_CHARS} characters are cut and output is capped "
        f"at {MAX_READ_BYTES // 1024} KiB; the footer says how to continue. Read a file "
        "before editing it."
    )
    parameters: JsonObject = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to read, absolute or relative to the session cwd.",
            },
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "The 1-based line to start at (default 1).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": READ_LIMIT,
                "description": f"How many lines to read (default and maximum {READ_LIMIT}).",
            },
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }

    def present_call(self, args: Mapping[str, object]) -> ToolCallView | None:
        try:
            parsed = _read_args(args)
        except ToolArgsError:
            return None
        title = f"Read {parsed.file_path}"
        start = parsed.offset or 1
        if parsed.limit is not None:
            title += f" ({start} - {start + parsed.limit - 1})"
        elif parsed.offset is not None:
            title += f" (from line {parsed.offset})"
        return GenericCallView(
            card="generic",
            title=title,
            kind="read",
            locations=(FileLocation(parsed.file_path, start),),
        )

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None:
        return None

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        try:
            parsed = _read_args(args)
            path = ctx.resolve(parsed.file_path)
            text, digest = await run_blocking(
                _read_window, path, parsed.offset or 1, parsed.limit or READ_LIMIT
            )
        except (ToolArgsError, FsError) as exc:
            return ToolResult.error(str(exc))
        ctx.read_stamps[str(path)] = digest
        return ToolResult(text)


# --- write ---------------------------------------------------------------------------------


def _write_args(args: Mapping[str, object]) -> tuple[str, str]:
    return _file_path(args), require_str(args, "content")


def _write_file(path: Path, content: str) -> tuple[str | None, bool, str]:
    """Write and return (before text or None when absent/binary, existed, new digest)."""
    if path.is_dir():
        raise FsError(f"{path} is a directory, not a file")
    before: str | None = None
    existed = path.exists()
    if existed:
        try:  # a FIFO, socket or device is refused here, before anything replaces it
            before = _lf(_read_bytes(path).decode("utf-8"))
        except UnicodeDecodeError:
            before = None
    data = content.encode("utf-8")
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise FsError(f"cannot write {path}: {exc.strerror or exc}") from None
    return before, existed, _digest(data)


class WriteTool:
    """`write {file_path, content}`: create or replace a whole file, atomically."""

    name = "write"
    read_only = False
    description = (
        "Write a whole file: creates it (and missing parent directories) or replaces its "
        "content. Prefer edit for changing part of an existing file."
    )
    parameters: JsonObject = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to write, absolute or relative to the session cwd.",
            },
            "content": {"type": "string", "description": "The complete new content."},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }

    def present_call(self, args: Mapping[str, object]) -> ToolCallView | None:
        try:
            file_path, content = _write_args(args)
        except ToolArgsError:
            return None
        # Pure and args-only: the old content is unknown here, so it renders as a new file.
        return DiffCallView(
            card="diff",
            title=f"Write {file_path}",
            diffs=(FileDiff(file_path, None, content),),
            locations=(FileLocation(file_path),),
        )

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None:
        if result.is_error:
            return None
        try:
            file_path, content = _write_args(args)
        except ToolArgsError:
            return None
        # A create, an identical overwrite or a binary before-image has no hunks: show the
        # whole file rather than letting the result text replace the diff card.
        hunks = diffs_from_meta(result.meta)
        if hunks is None:
            whole = (FileDiff(file_path, None, content),)
            return DiffResultView(card="diff", title=f"Write {file_path}", diffs=whole)
        return DiffResultView(
            card="diff",
            title=f"Write {file_path}",
            diffs=hunks,
            locations=locations_from_meta(result.meta),
        )

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        try:
            file_path, content = _write_args(args)
            path = ctx.resolve(file_path)
            before, existed, digest = await run_blocking(_write_file, path, content)
        except (ToolArgsError, FsError) as exc:
            return ToolResult.error(str(exc))
        ctx.read_stamps[str(path)] = digest
        hunks = [] if before is None else applied_hunks(file_path, before, _lf(content))
        verb = "Updated" if existed else "Created"
        return ToolResult(f"{verb} file {path}", meta=hunks_to_meta(hunks))


# --- edit ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _EditArgs:
    file_path: str
    old_string: str
    new_string: str
    replace_all: bool


def _edit_args(args: Mapping[str, object]) -> _EditArgs:
    return _EditArgs(
        _file_path(args),
        require_str(args, "old_string"),
        require_str(args, "new_string"),
        arg_bool(args, "replace_all"),
    )


def _to_crlf(text: str) -> str:
    return _lf(text).replace("\n", "\r\n")


def _replaced(text: str, parsed: _EditArgs, path: Path) -> tuple[str, int]:
    """The text after the edit, and how many places it replaces. Raises FsError."""
    old, new = parsed.old_string, parsed.new_string
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old:
        # The model writes LF; a CRLF file should still match, and keep its line endings.
        old, new = _to_crlf(old), _to_crlf(new)
        count = text.count(old)
    if count == 0:
        raise FsError(
            f"old_string was not found in {path}. It must match the file exactly, including "
            "whitespace and indentation; read the file again if unsure."
        )
    if count > 1 and not parsed.replace_all:
        raise FsError(
            f"old_string matches {count} places in {path}. Add surrounding lines to make it "
            "unique, or set replace_all to true to replace every occurrence."
        )
    after = text.replace(old, new) if parsed.replace_all else text.replace(old, new, 1)
    return after, count


def _edit_file(path: Path, parsed: _EditArgs, last_seen: str | None) -> tuple[str, str, int, str]:
    """Apply the edit; returns (before, after, occurrences replaced, new digest)."""
    data = _read_bytes(path)
    if last_seen is not None and _digest(data) != last_seen:
        raise FsError(
            f"{path} has changed on disk since you last read it. "
            "Read it again before editing, so that change is not lost."
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FsError(f"{path} is not valid UTF-8 text; edit works on UTF-8 text only") from None
    after, count = _replaced(text, parsed, path)
    encoded = after.encode("utf-8")
    try:
        atomic_write(path, encoded)
    except OSError as exc:
        raise FsError(f"cannot write {path}: {exc.strerror or exc}") from None
    return text, after, count, _digest(encoded)


class EditTool:
    """`edit {file_path, old_string, new_string, replace_all?}`: exact string replacement."""

    name = "edit"
    read_only = False
    description = (
        "Replace an exact string in a file. old_string must match the file exactly (including "
        "whitespace) and exactly once, unless replace_all is true. Include enough surrounding "
        "lines to make it unique. Fails if the file changed on disk since you last read it."
    )
    parameters: JsonObject = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to edit, absolute or relative to the session cwd.",
            },
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {
                "type": "string",
                "description": "The replacement; must differ from old_string.",
            },
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence instead of exactly one (default false).",
            },
        },
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    }

    def inspect_call(self, args: Mapping[str, object], ctx: ToolContext) -> JsonValue:
        """`{"line": N}`: where `old_string` starts in the file now, if it matches once; for a
        `replace_all` that matches several places, the hunks it would apply now (the
        `hunks_to_meta` form), so the card and the permission question show every site.

        Read when the call is received and logged with it (see `CallInspector`), so the
        snippet card carries a true start line, live and on replay.
        """
        try:
            parsed = _edit_args(args)
            path = ctx.resolve(parsed.file_path)
            if path.stat().st_size > _INSPECT_MAX_BYTES:
                return None
            with open_regular(path) as handle:  # never blocks on a FIFO: this runs in the loop
                text = handle.read(_INSPECT_MAX_BYTES + 1).decode("utf-8")
        except (ToolArgsError, FsError, OSError, UnicodeDecodeError):
            return None
        if parsed.replace_all and parsed.old_string and parsed.old_string != parsed.new_string:
            try:
                after, count = _replaced(text, parsed, path)
            except FsError:
                return None
            if count > 1:
                return hunks_to_meta(applied_hunks(parsed.file_path, _lf(text), _lf(after)))
        line = snippet_line(text, parsed.old_string)
        return None if line is None else {"line": line}

    def present_call(
        self, args: Mapping[str, object], call_meta: JsonValue = None
    ) -> ToolCallView | None:
        try:
            parsed = _edit_args(args)
        except ToolArgsError:
            return None
        sites = diffs_from_meta(call_meta)  # a replace_all over several places
        if sites is not None:
            return DiffCallView(
                card="diff",
                title=f"Edit {parsed.file_path}",
                diffs=sites,
                locations=locations_from_meta(call_meta) or (FileLocation(parsed.file_path),),
            )
        line = call_meta.get("line") if isinstance(call_meta, dict) else None
        if not isinstance(line, int) or isinstance(line, bool) or line < 1 or not parsed.old_string:
            line = None
        diff = FileDiff(parsed.file_path, parsed.old_string or None, parsed.new_string, line, line)
        return DiffCallView(
            card="diff",
            title=f"Edit {parsed.file_path}",
            diffs=(diff,),
            locations=(FileLocation(parsed.file_path),),
        )

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None:
        if result.is_error:
            return None
        try:
            parsed = _edit_args(args)
        except ToolArgsError:
            return None
        diffs = diffs_from_meta(result.meta)
        if diffs is None:
            return None  # no args fallback: the result text says what happened
        return DiffResultView(
            card="diff",
            title=f"Edit {parsed.file_path}",
            diffs=diffs,
            locations=locations_from_meta(result.meta),
        )

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        try:
            parsed = _edit_args(args)
            if not parsed.old_string:
                raise ToolArgsError(
                    "old_string must not be empty; use write to create or replace a whole file"
                )
            if parsed.old_string == parsed.new_string:
                raise ToolArgsError("old_string and new_string are identical; nothing to change")
            path = ctx.resolve(parsed.file_path)
            before, after, count, digest = await run_blocking(
                _edit_file, path, parsed, ctx.read_stamps.get(str(path))
            )
        except (ToolArgsError, FsError) as exc:
            return ToolResult.error(str(exc))
        ctx.read_stamps[str(path)] = digest
        hunks = applied_hunks(parsed.file_path, _lf(before), _lf(after))
        if parsed.replace_all:
            text = (
                f"The file {path} has been updated. "
                f"All {count} occurrences were successfully replaced."
            )
        else:
            text = f"The file {path} has been updated successfully."
        return ToolResult(text, meta=hunks_to_meta(hunks))
