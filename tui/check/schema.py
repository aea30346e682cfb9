"""Every message from the agent, validated against the SDK's schema models.

Unknown fields and `_meta` are allowed (the models ignore them). The models are lenient on
purpose: a malformed optional field falls back to its default and a malformed list item is
dropped (`acp._deserialize`), so a client can carry on. A conformance check must see those
repairs: while it validates, `strict_models` records each one as a violation instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from acp import schema
from pydantic import BaseModel, TypeAdapter, ValidationError

from tui.check.results import Result
from tui.check.wire_log import Run
from tui.check.wire_view import exchanges, where

CHECK = "schema"

Validator = Callable[[Any], object]


def _model(model: type[BaseModel]) -> Validator:
    return model.model_validate


def _union(kind: Any) -> Validator:
    return TypeAdapter(kind).validate_python


# What the agent may ask of the client, and what it may tell it.
AGENT_REQUESTS: dict[str, Validator] = {
    "session/request_permission": _model(schema.RequestPermissionRequest),
    "fs/read_text_file": _model(schema.ReadTextFileRequest),
    "fs/write_text_file": _model(schema.WriteTextFileRequest),
    "terminal/create": _model(schema.CreateTerminalRequest),
    "terminal/output": _model(schema.TerminalOutputRequest),
    "terminal/release": _model(schema.ReleaseTerminalRequest),
    "terminal/wait_for_exit": _model(schema.WaitForTerminalExitRequest),
    "terminal/kill": _model(schema.KillTerminalRequest),
    "elicitation/create": _union(schema.CreateElicitationRequest),
}
AGENT_NOTIFICATIONS: dict[str, Validator] = {
    "session/update": _model(schema.SessionNotification),
    "elicitation/complete": _model(schema.CompleteElicitationNotification),
}
# The agent's answers to the client's requests, by the request's method.
RESULTS: dict[str, type[BaseModel]] = {
    "initialize": schema.InitializeResponse,
    "authenticate": schema.AuthenticateResponse,
    "session/new": schema.NewSessionResponse,
    "session/load": schema.LoadSessionResponse,
    "session/resume": schema.ResumeSessionResponse,
    "session/prompt": schema.PromptResponse,
    "session/list": schema.ListSessionsResponse,
    "session/set_mode": schema.SetSessionModeResponse,
    "session/set_config_option": schema.SetSessionConfigOptionResponse,
    "session/close": schema.CloseSessionResponse,
}
_error = schema.Error.model_validate


class Repaired(Exception):
    """A part of a message the lenient models would have replaced or dropped."""


@contextlib.contextmanager
def strict_models() -> Iterator[list[str]]:
    """While it lasts, the SDK's repairs are recorded (in the list it yields) instead of
    silently applied: the check then reports what a lenient client would have papered over."""
    repairs: list[str] = []
    salvage, skip = getattr(schema, "salvage_on_error"), getattr(schema, "skip_invalid_items")  # noqa: B009

    def record(error: ValidationError) -> None:
        repairs.append(first_error(error))

    def salvage_strict(value: Any, handler: Any, fallback: Any) -> Any:
        try:
            return handler(value)
        except ValidationError as error:
            record(error)
            return fallback()

    def skip_strict(value: Any, handler: Any) -> Any:
        if not isinstance(value, list):
            return handler(value)
        kept: list[Any] = []
        for item in value:
            try:
                kept.append(handler([item])[0])
            except ValidationError as error:
                record(error)
        return kept

    setattr(schema, "salvage_on_error", salvage_strict)  # noqa: B010
    setattr(schema, "skip_invalid_items", skip_strict)  # noqa: B010
    try:
        yield repairs
    finally:
        setattr(schema, "salvage_on_error", salvage)  # noqa: B010
        setattr(schema, "skip_invalid_items", skip)  # noqa: B010


def first_error(error: ValidationError) -> str:
    details = error.errors()
    if not details:
        return str(error)
    first = details[0]
    place = ".".join(str(part) for part in first.get("loc", ()))
    return f"{place}: {first.get('msg', '')}" if place else str(first.get("msg", ""))


def validate_strictly(validate: Validator, value: Any) -> str | None:
    """The first problem with `value`, or None; repairs count as problems."""
    with strict_models() as repairs:
        try:
            validate(value)
        except ValidationError as error:
            return first_error(error)
    return repairs[0] if repairs else None


def _result_problem(method: str, answer: dict[str, Any]) -> str | None:
    has_result, has_error = "result" in answer, "error" in answer
    if has_result == has_error:
        return "a response needs exactly one of result and error"
    if has_error:
        problem = validate_strictly(_error, answer["error"])
        return None if problem is None else f"error: {problem}"
    model = RESULTS.get(method)
    if model is None:
        return None  # an unstable method this SDK has no model for (session/set_model)
    result = answer["result"]
    if result is None:
        result = {}  # a null result is an empty one where the model needs nothing
    return validate_strictly(_model(model), result)


def message_problems(run: Run) -> list[str]:
    """Each message from the agent that does not validate, with where it is and why."""
    asked = {repr(each.request.get("id")): each.method for each in exchanges(run)}
    problems: list[str] = []
    for index, line in enumerate(run.lines):
        if line.direction != "in":
            continue
        message = line.message
        here = where(run, index)
        if message is None:
            problems.append(f"{here}: not a JSON object: {line.text[:60]}")
            continue
        if message.get("jsonrpc") != "2.0":
            problems.append(f'{here}: "jsonrpc" is not "2.0"')
            continue
        method = line.method
        if method is None:
            key = repr(message.get("id"))
            if message.get("id") is None and "error" in message:
                asked[key] = ""  # an unreadable line refused (-32700, -32600): no request
            if key not in asked:
                problems.append(f"{here}: a response to no request of the client's")
                continue
            problem = _result_problem(asked[key], message)
            if problem is not None:
                problems.append(f"{here}: answer to {asked[key]}: {problem}")
            continue
        table = AGENT_REQUESTS if "id" in message else AGENT_NOTIFICATIONS
        validate = table.get(method)
        if validate is None:
            if not method.startswith("_"):
                problems.append(f"{here}: {method}: not an ACP method the agent may send")
            continue
        problem = validate_strictly(validate, message.get("params"))
        if problem is not None:
            problems.append(f"{here}: {method}: {problem}")
    return problems


def check_schema(runs: list[Run]) -> Result:
    problems: list[str] = []
    count = 0
    for run in runs:
        problems += message_problems(run)
        count += sum(1 for line in run.lines if line.direction == "in")
    if not count:
        return Result.skipped(CHECK, "no message from the agent")
    if problems:
        return Result.failed(CHECK, f"{len(problems)} of {count} messages: {problems[0]}")
    return Result.passed(CHECK, f"{count} messages from the agent validate")
