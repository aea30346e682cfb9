"""Session logs: one append-only JSONL file per session, the durable form of its events.

Layout: `<session dir>/<session id>.jsonl`. The first line is a header
`{"type": "session", "version": 1, "id", "cwd", "created", "title"}`; every later line is one
event (`agent.events`) plus `seq` and `time`. The session dir is `--session-dir`, else
`$DSH_SESSION_DIR`, else `platformdirs.user_data_dir("dsh-agent")/sessions`.

The file and its header are written at `session/new`, so a client can `session/load` a
session it created but never prompted (a CLI queue owner does exactly that); `session/list`
leaves such header-only logs out, as there is nothing in them to resume.
Each line is flushed before the event reaches the client. On load a torn last line (a crash
mid-write) is dropped, and a tool call left without a result, or a turn left open, is closed
by appended events, so the log always describes a finished conversation. While a process
has a session open it holds an exclusive lock on the file, so two agents never append to it.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import platformdirs

from agent.events import (
    Event,
    EventError,
    Title,
    ToolCall,
    ToolFinished,
    TurnEnd,
    TurnStart,
    UserMessage,
    event_from_json,
    event_to_json,
)
from dsh_common.private_files import open_private, private_dir

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no cross-process lock
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

SESSION_DIR_ENV = "DSH_SESSION_DIR"
LOG_VERSION = 1
OUTCOME_UNKNOWN = (
    "Error: outcome unknown: dsh-agent stopped before this call finished, so it may or may "
    "not have taken effect."
)
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


class LogError(Exception):
    """A session log that cannot be used; the message says why, for the client to show."""


class SessionNotFound(LogError):
    """No log exists for the requested session id."""


class SessionLocked(LogError):
    """Another process has this session open."""


class CwdMismatch(LogError):
    """The session was started in another directory than the one it is loaded in."""


def default_session_dir(env: Mapping[str, str] | None = None) -> Path:
    """$DSH_SESSION_DIR, else the per-user data directory."""
    env = os.environ if env is None else env
    override = env.get(SESSION_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("dsh-agent")) / "sessions"


def now_iso() -> str:
    """UTC time in ISO 8601 with milliseconds, the form ACP's `updatedAt` uses."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def valid_session_id(session_id: str) -> bool:
    """Ids become file names: only letters, digits, `_` and `-` are accepted."""
    return _SESSION_ID.fullmatch(session_id) is not None


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of a log."""

    id: str
    cwd: str
    created: str
    title: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "session",
            "version": LOG_VERSION,
            "id": self.id,
            "cwd": self.cwd,
            "created": self.created,
            "title": self.title,
        }

    @classmethod
    def from_json(cls, record: Any) -> Header:
        if not isinstance(record, dict) or record.get("type") != "session":
            raise LogError("the first line is not a session header")
        fields = (record.get("id"), record.get("cwd"), record.get("created"))
        if not all(isinstance(value, str) for value in fields):
            raise LogError("the session header lacks id, cwd or created")
        title = record.get("title")
        return cls(
            str(record["id"]),
            str(record["cwd"]),
            str(record["created"]),
            title if isinstance(title, str) else None,
        )


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One `session/list` entry."""

    id: str
    cwd: str
    title: str | None
    updated_at: str
    mtime: float
    created: str
    first_prompt: str | None = None  # the text of the session's first prompt


class SessionLog:
    """The open log of one live session: appends events, holding the file lock while open."""

    def __init__(self, path: Path, header: Header, seq: int = 0, exists: bool = False) -> None:
        self.path = path
        self.header = header
        self._seq = seq
        self._exists = exists
        self._file: IO[bytes] | None = None

    def start(self) -> None:
        """Create the file now with its header (and take the lock), before any event."""
        self._open().flush()

    def append(self, event: Event) -> None:
        """Write one event and flush it; the header first when the file does not exist yet."""
        handle = self._open()
        self._seq += 1
        record = {"seq": self._seq, "time": now_iso(), **event_to_json(event)}
        handle.write(_line(record))
        handle.flush()

    def _open(self) -> IO[bytes]:
        if self._file is not None:
            return self._file
        private_dir(self.path.parent)
        handle = open_private(self.path, "ab")
        try:
            _lock(handle, self.path)
        except BaseException:
            handle.close()
            raise
        if not self._exists:
            handle.write(_line(self.header.to_json()))
            self._exists = True
        self._file = handle
        return handle

    def close(self) -> None:
        """Release the file (and its lock); a later append reopens it."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _line(record: Mapping[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _lock(handle: IO[bytes], path: Path) -> None:
    if fcntl is None:
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionLocked(f"session log {path} is in use by another dsh-agent") from None


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """A session read back from disk, repaired, and open for appending."""

    header: Header
    events: list[Event]
    log: SessionLog


def _recovery_events(events: list[Event]) -> list[Event]:
    """Close what a crash left open: calls without a result, then a turn without an end."""
    open_calls: dict[str, str] = {}
    turn_open = False
    for event in events:
        if isinstance(event, TurnStart):
            turn_open = True
        elif isinstance(event, TurnEnd):
            turn_open = False
        elif isinstance(event, ToolCall):
            open_calls[event.call_id] = event.name
        elif isinstance(event, ToolFinished):
            open_calls.pop(event.call_id, None)
    closing: list[Event] = [
        ToolFinished(call_id, name, OUTCOME_UNKNOWN, True, {"code": "TOOL_OUTCOME_UNKNOWN"})
        for call_id, name in open_calls.items()
    ]
    if turn_open:
        closing.append(TurnEnd("interrupted"))
    return closing


class SessionStore:
    """All session logs under one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise SessionNotFound(f"invalid session id {session_id!r}")
        return self.root / f"{session_id}.jsonl"

    def create(self, session_id: str, cwd: str) -> SessionLog:
        """A log for a new session, its header written at once so `load` can find it.

        A disk that refuses the header does not refuse the session: the failure is logged
        and the next append tries again (as for every event).
        """
        session_log = SessionLog(self.path_for(session_id), Header(session_id, cwd, now_iso()))
        try:
            session_log.start()
        except (OSError, LogError) as error:
            log.error("cannot write the session log %s: %s", session_log.path, error)
        return session_log

    def load(self, session_id: str, cwd: str | None = None) -> LoadedSession:
        """Read, lock and repair a session log.

        With `cwd`, a log started elsewhere raises CwdMismatch before anything is written.
        Also raises SessionNotFound, SessionLocked and LogError.
        """
        path = self.path_for(session_id)
        try:
            handle = path.open("r+b")
        except FileNotFoundError:
            raise SessionNotFound(f"no session {session_id} in {self.root}") from None
        except OSError as error:
            raise LogError(f"cannot open {path}: {error.strerror or error}") from None
        try:
            _lock(handle, path)
            header, events, good_end = _read(handle, path)
            if header.id != session_id:
                raise LogError(f"{path} belongs to session {header.id}")
            if cwd is not None and os.path.normpath(header.cwd) != os.path.normpath(cwd):
                raise CwdMismatch(
                    f"cwd mismatch: session {session_id} was started in {header.cwd}, not {cwd}"
                )
            handle.seek(0, os.SEEK_END)
            if handle.tell() != good_end:
                log.warning("%s: dropping a torn last line", path)
                handle.truncate(good_end)
            handle.seek(good_end)
        except BaseException:
            handle.close()
            raise
        session_log = SessionLog(path, header, seq=len(events), exists=True)
        session_log._file = handle
        for event in _recovery_events(events):
            session_log.append(event)
            events.append(event)
        return LoadedSession(header, events, session_log)

    def fork(self, source_id: str, fork_id: str, cwd: str) -> LoadedSession:
        """A new log `fork_id` holding `source_id`'s events so far, started in `cwd`.

        The source is read, never locked or changed: it may be open in this process or in
        another. The fork's log is written whole and released, so whichever process prompts
        it next (this one, or another that loads it) takes its lock then. Raises
        SessionNotFound and LogError.
        """
        path = self.path_for(source_id)
        try:
            with path.open("rb") as handle:
                header, events, _ = _read(handle, path)
        except FileNotFoundError:
            raise SessionNotFound(f"no session {source_id} in {self.root}") from None
        except OSError as error:
            raise LogError(f"cannot read {path}: {error.strerror or error}") from None
        if header.id != source_id:
            raise LogError(f"{path} belongs to session {header.id}")
        events.extend(_recovery_events(events))
        titles = [event.title for event in events if isinstance(event, Title)]
        title = header.title or (titles[0] if titles else None)
        # Named apart from its source in a picker (a header's title outranks the events').
        fork_header = Header(fork_id, cwd, now_iso(), None if title is None else f"{title} (fork)")
        fork_log = SessionLog(self.path_for(fork_id), fork_header)
        try:
            for event in events:
                fork_log.append(event)
            fork_log.start()  # the header alone when there were no events
        except OSError as error:
            raise LogError(f"cannot write {fork_log.path}: {error.strerror or error}") from None
        finally:
            fork_log.close()
        return LoadedSession(fork_header, events, fork_log)

    def list(self, cwd: str | None = None) -> list[SessionSummary]:
        """Every readable session (in `cwd` if given), most recently updated first."""
        summaries: list[SessionSummary] = []
        try:
            paths = list(self.root.glob("*.jsonl"))
        except OSError:
            return []
        for path in paths:
            try:
                summary = _summary(path)
            except (OSError, LogError, ValueError) as error:
                log.warning("skipping unreadable session log %s: %s", path, error)
                continue
            if summary is not None and (cwd is None or summary.cwd == cwd):
                summaries.append(summary)
        summaries.sort(key=lambda summary: (summary.mtime, summary.created), reverse=True)
        return summaries


def _read(handle: IO[bytes], path: Path) -> tuple[Header, list[Event], int]:
    """Parse a whole log: (header, events, offset just past the last complete line)."""
    header: Header | None = None
    events: list[Event] = []
    offset = good_end = 0
    for line in handle:
        offset += len(line)
        if not line.endswith(b"\n"):
            break  # torn: the process died mid-write
        good_end = offset
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:  # also invalid UTF-8
            log.warning("%s: skipping a line that is not JSON", path)
            continue
        if header is None:
            header = Header.from_json(record)
            continue
        try:
            events.append(event_from_json(record))
        except EventError as error:
            log.warning("%s: skipping a bad event line: %s", path, error)
    if header is None:
        raise LogError(f"{path} has no session header")
    return header, events, good_end


def _summary(path: Path) -> SessionSummary | None:
    """Header, first prompt and first title event, without parsing every line (the first
    prompt is the log's second or third line; the title follows it)."""
    mtime = path.stat().st_mtime
    title_marker = f'"type":"{Title.type}"'.encode()
    prompt_marker = f'"type":"{UserMessage.type}"'.encode()
    with path.open("rb") as handle:
        first = handle.readline()
        if not first.endswith(b"\n"):
            return None
        header = Header.from_json(json.loads(first))
        second = handle.readline()
        if not second.strip():
            return None  # never prompted: a header and nothing to resume
        title = header.title
        prompt: str | None = None
        for line in itertools.chain((second,), handle):
            if not line.endswith(b"\n") or not (
                (prompt is None and prompt_marker in line)
                or (title is None and title_marker in line)
            ):
                continue
            try:
                event = event_from_json(json.loads(line))
            except (ValueError, EventError):
                continue
            if isinstance(event, UserMessage) and prompt is None:
                prompt = event.text
            elif isinstance(event, Title) and title is None:
                title = event.title
            if prompt is not None and title is not None:
                break
    updated = datetime.fromtimestamp(mtime, UTC).isoformat(timespec="milliseconds")
    updated_at = updated.replace("+00:00", "Z")
    return SessionSummary(header.id, header.cwd, title, updated_at, mtime, header.created, prompt)


__all__ = [
    "OUTCOME_UNKNOWN",
    "SESSION_DIR_ENV",
    "CwdMismatch",
    "Header",
    "LoadedSession",
    "LogError",
    "SessionLocked",
    "SessionLog",
    "SessionNotFound",
    "SessionStore",
    "SessionSummary",
    "default_session_dir",
    "now_iso",
    "valid_session_id",
]
