"""The tool-call rules, over the live updates of each session (load replays aside):

* ids are unique within a session, and every update names a call already made;
* status moves forward only: pending, then in_progress, then completed or failed;
* no call is left unfinished when a turn ends (a cancelled turn aside: the client marks it);
* diff content and locations name absolute paths, as do the agent's fs and terminal requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from tui.check.results import Result
from tui.check.wire_log import Run
from tui.check.wire_view import Update, agent_requests, turns, updates, where

IDS, KNOWN, STATUS, FINISHED, PATHS = (
    "tool calls: unique ids",
    "tool calls: known ids",
    "tool calls: status forward",
    "tool calls: finished",
    "absolute paths",
)
RANK = {"pending": 0, "in_progress": 1, "completed": 2, "failed": 2}
FINAL = ("completed", "failed")


def live_calls(run: Run) -> list[Update]:
    return [
        each
        for each in updates(run)
        if not each.replayed and each.kind in ("tool_call", "tool_call_update")
    ]


def _id(update: Update) -> str:
    return str(update.update.get("toolCallId"))


def _any_call(runs: Sequence[Run]) -> bool:
    return any(live_calls(run) for run in runs)


def _none(check: str) -> Result:
    return Result.skipped(check, "the agent made no tool call")


def check_unique_ids(runs: Sequence[Run]) -> Result:
    made = 0
    for run in runs:
        seen: set[tuple[str, str]] = set()
        for each in live_calls(run):
            if each.kind != "tool_call":
                continue
            made += 1
            key = (each.session_id, _id(each))
            if key in seen:
                return Result.failed(
                    IDS, f"{where(run, each.index)}: tool call id {key[1]!r} made again"
                )
            seen.add(key)
    return Result.passed(IDS, f"{made} calls, no id made twice") if made else _none(IDS)


def check_known_ids(runs: Sequence[Run]) -> Result:
    count = 0
    for run in runs:
        made: set[tuple[str, str]] = set()
        for each in live_calls(run):
            key = (each.session_id, _id(each))
            if each.kind == "tool_call":
                made.add(key)
            elif key not in made:
                return Result.failed(
                    KNOWN, f"{where(run, each.index)}: an update for {key[1]!r}, never made"
                )
            else:
                count += 1
    if not _any_call(runs):
        return _none(KNOWN)
    return Result.passed(KNOWN, f"{count} updates, each for a call already made")


def check_status_forward(runs: Sequence[Run]) -> Result:
    moves = 0
    for run in runs:
        status: dict[tuple[str, str], str] = {}
        for each in live_calls(run):
            key = (each.session_id, _id(each))
            new = each.update.get("status")
            if each.kind == "tool_call":  # a call made (again): it starts over
                status[key] = new if isinstance(new, str) else "pending"
                continue
            if not isinstance(new, str) or key not in status:
                continue
            old = status[key]
            if new == old:
                continue
            moves += 1
            backward = RANK.get(new, -1) < RANK.get(old, -1) or old in FINAL
            if backward:
                return Result.failed(
                    STATUS, f"{where(run, each.index)}: {key[1]!r} went from {old} to {new}"
                )
            status[key] = new
    if not _any_call(runs):
        return _none(STATUS)
    return Result.passed(STATUS, f"{moves} status changes, all forward")


def check_finished(runs: Sequence[Run]) -> Result:
    ended = 0
    for run in runs:
        status: dict[tuple[str, str], str] = {}
        calls = live_calls(run)
        position = 0
        for turn in turns(run):
            if turn.prompt.answer_index is None:
                continue
            while position < len(calls) and calls[position].index < turn.prompt.answer_index:
                each = calls[position]
                position += 1
                new = each.update.get("status")
                key = (each.session_id, _id(each))
                if each.kind == "tool_call":
                    status[key] = new if isinstance(new, str) else "pending"
                elif isinstance(new, str):
                    status[key] = new
            if turn.stop_reason == "cancelled" or turn.prompt.error is not None:
                status.clear()  # what a cancel or a failure left open is the client's to mark
                continue
            ended += 1
            open_ = [key for key, value in status.items() if key[0] == turn.session_id]
            open_ = [key for key in open_ if status[key] not in FINAL]
            if open_:
                said = ", ".join(f"{key[1]!r} ({status[key]})" for key in open_[:3])
                answer = where(run, turn.prompt.answer_index)
                return Result.failed(FINISHED, f"{answer}: the turn ended with {said} open")
    if not _any_call(runs):
        return _none(FINISHED)
    return Result.passed(FINISHED, f"{ended} turns ended with every call completed or failed")


def absolute(path: object) -> bool:
    if not isinstance(path, str):
        return False
    return PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()


def _paths(update: dict[str, Any]) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for item in update.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "diff":
            found.append(("diff path", item.get("path")))
    for location in update.get("locations") or []:
        if isinstance(location, dict):
            found.append(("location", location.get("path")))
    return found


def check_paths(runs: Sequence[Run]) -> Result:
    count = 0
    for run in runs:
        for each in updates(run):
            if each.kind not in ("tool_call", "tool_call_update"):
                continue
            for what, path in _paths(each.update):
                count += 1
                if not absolute(path):
                    return Result.failed(
                        PATHS, f"{where(run, each.index)}: {what} {path!r} is not absolute"
                    )
        for index, line in agent_requests(run):
            params = line.message.get("params") if line.message else None
            if not isinstance(params, dict):
                continue
            method = line.method or ""
            key = (
                "path" if method.startswith("fs/") else "cwd" if method == "terminal/create" else ""
            )
            if key and key in params:
                count += 1
                if not absolute(params[key]):
                    return Result.failed(
                        PATHS,
                        f"{where(run, index)}: {method} {key} {params[key]!r} is not absolute",
                    )
    if not count:
        return Result.skipped(PATHS, "no diff, location or fs path was sent")
    return Result.passed(PATHS, f"{count} paths, all absolute")
