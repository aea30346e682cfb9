"""Session logs: lazy creation, the header, torn lines, crash recovery, listing, locking."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.events import (
    StepEnd,
    TextChunk,
    Title,
    ToolCall,
    ToolFinished,
    TurnEnd,
    TurnStart,
    UserMessage,
)
from agent.log import (
    OUTCOME_UNKNOWN,
    CwdMismatch,
    SessionLocked,
    SessionNotFound,
    SessionStore,
    default_session_dir,
)

CWD = "/work/space"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_header_is_written_at_create_so_an_unprompted_session_loads(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    log = store.create("s1", CWD)
    [header] = lines(log.path)  # before any event: session/load must find it
    assert store.list() == []  # ... but there is nothing to resume in the list
    log.close()
    loaded = store.load("s1", CWD)
    assert loaded.events == []
    log = loaded.log
    log.append(TurnStart(1))
    log.append(UserMessage("fix the tests"))
    log.close()
    header, *events = lines(log.path)
    assert header["type"] == "session" and header["version"] == 1
    assert (header["id"], header["cwd"], header["title"]) == ("s1", CWD, None)
    assert isinstance(header["created"], str)
    assert [(e["seq"], e["type"]) for e in events] == [(1, "turn/start"), (2, "user/message")]


def test_events_are_on_disk_as_soon_as_they_are_appended(tmp_path: Path) -> None:
    log = SessionStore(tmp_path).create("s1", CWD)
    log.append(TurnStart(1))
    assert lines(log.path)[-1]["type"] == "turn/start"  # flushed, while still open
    log.close()


def test_load_reads_back_events_and_appends_after_them(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    log = store.create("s1", CWD)
    for event in (
        TurnStart(1),
        UserMessage("hi"),
        TextChunk("hello"),
        StepEnd("stop"),
        TurnEnd("end_turn"),
    ):
        log.append(event)
    log.close()
    loaded = store.load("s1", CWD)
    assert loaded.header.cwd == CWD
    assert loaded.events[2] == TextChunk("hello")
    loaded.log.append(TurnStart(2))
    loaded.log.close()
    assert [e["seq"] for e in lines(log.path)[1:]] == [1, 2, 3, 4, 5, 6]


def test_a_torn_last_line_is_dropped(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    log = store.create("s1", CWD)
    log.append(TurnStart(1))
    log.append(UserMessage("hi"))
    log.close()
    with log.path.open("ab") as handle:
        handle.write(b'{"seq":3,"type":"assistant/te')
    loaded = store.load("s1", CWD)
    assert loaded.events[-1] == TurnEnd("interrupted")
    loaded.log.close()
    assert all(isinstance(line, dict) for line in lines(log.path))  # the fragment is gone


def test_a_call_without_a_result_is_closed_as_outcome_unknown(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    log = store.create("s1", CWD)
    for event in (
        TurnStart(1),
        UserMessage("go"),
        ToolCall("call_1", "bash", "{}"),
        ToolCall("call_2", "read", "{}"),
        StepEnd("tool_calls"),
        ToolFinished("call_1", "bash", "ok", False),
    ):
        log.append(event)
    log.close()
    loaded = store.load("s1", CWD)
    assert loaded.events[-2:] == [
        ToolFinished("call_2", "read", OUTCOME_UNKNOWN, True, {"code": "TOOL_OUTCOME_UNKNOWN"}),
        TurnEnd("interrupted"),
    ]
    loaded.log.close()
    # The repair is logged, so a second load finds nothing left to repair.
    again = store.load("s1", CWD)
    again.log.close()
    assert again.events == loaded.events


def test_load_checks_the_cwd_before_touching_the_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    log = store.create("s1", CWD)
    log.append(TurnStart(1))
    log.close()
    before = log.path.read_bytes()
    with pytest.raises(CwdMismatch, match="cwd mismatch"):
        store.load("s1", "/elsewhere")
    assert log.path.read_bytes() == before


def test_unknown_and_malicious_ids_are_not_found(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    with pytest.raises(SessionNotFound):
        store.load("nope", CWD)
    with pytest.raises(SessionNotFound):
        store.load("../../etc/passwd", CWD)


def test_an_open_session_is_locked_against_a_second_loader(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    log = store.create("s1", CWD)
    log.append(TurnStart(1))
    with pytest.raises(SessionLocked):
        store.load("s1", CWD)
    log.close()
    store.load("s1", CWD).log.close()


def test_list_is_newest_first_with_titles_and_cwd_filter(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    for number, (session_id, cwd) in enumerate([("old", CWD), ("new", CWD), ("other", "/x")]):
        log = store.create(session_id, cwd)
        log.append(TurnStart(1, command=True))
        if session_id == "new":
            log.append(Title("Titled later"))
        log.close()
        if session_id == "old":  # a log from before headers were written at once
            header, *rest = log.path.read_text().splitlines(keepends=True)
            titled = {**json.loads(header), "title": "Old one"}
            log.path.write_text(json.dumps(titled) + "\n" + "".join(rest))
        os.utime(log.path, (1_000_000 + number, 1_000_000 + number))
    (tmp_path / "junk.jsonl").write_text("not json\n")
    (tmp_path / "notes.txt").write_text("ignored")
    summaries = store.list()
    assert [s.id for s in summaries] == ["other", "new", "old"]
    assert [s.title for s in summaries] == [None, "Titled later", "Old one"]
    assert summaries[0].updated_at.endswith("Z")
    assert [s.id for s in store.list(CWD)] == ["new", "old"]
    assert SessionStore(tmp_path / "missing").list() == []


def test_session_dir_comes_from_the_environment(tmp_path: Path) -> None:
    assert default_session_dir({"DSH_SESSION_DIR": str(tmp_path)}) == tmp_path
    assert default_session_dir({}).name == "sessions"
