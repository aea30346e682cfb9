"""A model that plays a scenario file: for tests, the bundled demo and reproducible bug reports.

Scenario format (JSON; see SCENARIOS.md beside this file for the long version)::

    {
      "name": "demo",                     # optional; the model is called "scripted:<name>"
      "description": "what it shows",     # optional
      "steps": [STEP, ...]                # played again on every prompt
      # or, instead of "steps":
      "turns": [[STEP, ...], ...]         # turn n (the n-th user message) plays turns[n-1]
    }

    STEP = [ITEM, ...]                    # what one model call streams, in order
    ITEM = {"text": "Markdown"}           # streamed as word-sized TextDelta chunks
         | {"text": ["exact", " chunks"]} # ...or as exactly these chunks
         | {"reasoning": "..."}           # ReasoningDelta chunks (string or list, as text)
         | {"tool_call": {"name": "bash", "arguments": {...}, "id": "optional"}}
         | {"usage": {"input_tokens": 10, "output_tokens": 5}}
         | {"notice": "shown to the user, e.g. a retry"}
         | {"delay": 0.5}                 # pause (seconds), e.g. to cancel mid-stream
         | {"finish": "length", "message": "optional"}   # last item only: override the finish

Step k of a turn is played on the k-th model call since the last user message (counted from
the assistant messages after it), so a scenario needs no state and replays identically. Calls
past the last step finish "stop" with no output. Without a "finish" item a step finishes
"tool_calls" when it made tool calls, else "stop". Every string may contain `${CWD}`, replaced
by the session cwd so scenario files are portable. Tool `arguments` may be an object or a raw
JSON string (to reproduce malformed calls). Tool call ids default to `call_<n>`, numbered over
the whole conversation. Keys starting with "_" are comments and ignored.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeAlias, cast, get_args

from agent.models.base import (
    ChatMessage,
    Finish,
    FinishReason,
    ModelDelta,
    NoticeDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    UsageDelta,
    call_id,
    json_arguments,
    prior_tool_call_count,
    steps_since_user,
    word_chunks,
)

CWD_TOKEN = "${CWD}"
_FINISH_REASONS: tuple[str, ...] = get_args(FinishReason)


class ScenarioError(ValueError):
    """A scenario that cannot be played; the message names the file and the offending place."""


@dataclass(frozen=True, slots=True)
class Say:
    """Text or reasoning, already cut into the chunks to stream."""

    kind: str  # "text" | "reasoning"
    chunks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call; `arguments` is an object, or a raw JSON string passed through verbatim."""

    name: str
    arguments: Mapping[str, Any] | str
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class Notice:
    text: str


@dataclass(frozen=True, slots=True)
class Delay:
    seconds: float


Item: TypeAlias = Say | Call | Usage | Notice | Delay


@dataclass(frozen=True, slots=True)
class Step:
    items: tuple[Item, ...]
    finish: Finish | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """A parsed scenario: either the same `steps` every turn, or one step list per turn."""

    name: str
    description: str
    steps: tuple[Step, ...] | None
    turns: tuple[tuple[Step, ...], ...] | None
    source: str

    def steps_for_turn(self, turn: int) -> tuple[Step, ...]:
        """The steps of the 1-based `turn`; a turn past the script has none."""
        if self.steps is not None:
            return self.steps
        assert self.turns is not None
        return self.turns[turn - 1] if 0 < turn <= len(self.turns) else ()


# --- loading --------------------------------------------------------------------------------


def _fail(source: str, where: str, problem: str) -> ScenarioError:
    return ScenarioError(
        f"scenario {source}: {where}: {problem}" if where else f"scenario {source}: {problem}"
    )


def _check_keys(
    source: str,
    where: str,
    obj: Mapping[str, Any],
    allowed: AbstractSet[str],
    required: AbstractSet[str] = frozenset(),
) -> None:
    keys = {key for key in obj if not key.startswith("_")}
    unknown = sorted(keys - allowed)
    if unknown:
        raise _fail(
            source, where, f"unknown key {unknown[0]!r} (expected {', '.join(sorted(allowed))})"
        )
    missing = sorted(required - keys)
    if missing:
        raise _fail(source, where, f"missing key {missing[0]!r}")


def _parse_say(source: str, where: str, kind: str, value: Any) -> Say:
    if isinstance(value, str):
        return Say(kind, tuple(word_chunks(value)))
    if isinstance(value, list) and all(isinstance(chunk, str) for chunk in value):
        return Say(kind, tuple(chunk for chunk in value if chunk))
    raise _fail(source, where, f"{kind!r} must be a string or a list of strings")


def _parse_int(source: str, where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(source, where, "must be a non-negative integer")
    return value


def _parse_item(source: str, where: str, raw: Any) -> Item | Finish:
    if not isinstance(raw, dict):
        raise _fail(source, where, 'an item must be an object such as {"text": "..."}')
    kinds = [key for key in raw if not key.startswith("_") and key != "message"]
    if len(kinds) != 1:
        raise _fail(
            source,
            where,
            "an item needs exactly one of text, reasoning, tool_call, usage, notice, delay, "
            f"finish (got {', '.join(kinds) or 'none'})",
        )
    kind = kinds[0]
    value = raw[kind]
    if "message" in raw and kind != "finish":
        raise _fail(source, where, "'message' belongs to a finish item")
    if kind in ("text", "reasoning"):
        return _parse_say(source, where, kind, value)
    if kind == "tool_call":
        if not isinstance(value, dict):
            raise _fail(source, where, "'tool_call' must be an object with name and arguments")
        _check_keys(source, f"{where}.tool_call", value, {"name", "arguments", "id"}, {"name"})
        name, arguments, ident = value["name"], value.get("arguments", {}), value.get("id")
        if not isinstance(name, str) or not name:
            raise _fail(source, f"{where}.tool_call.name", "must be a non-empty string")
        if not isinstance(arguments, dict | str):
            raise _fail(
                source, f"{where}.tool_call.arguments", "must be an object or a JSON string"
            )
        if ident is not None and not isinstance(ident, str):
            raise _fail(source, f"{where}.tool_call.id", "must be a string")
        return Call(name, arguments, ident)
    if kind == "usage":
        if not isinstance(value, dict):
            raise _fail(source, where, "'usage' must be an object")
        _check_keys(
            source,
            f"{where}.usage",
            value,
            {"input_tokens", "output_tokens"},
            {"input_tokens", "output_tokens"},
        )
        return Usage(
            _parse_int(source, f"{where}.usage.input_tokens", value["input_tokens"]),
            _parse_int(source, f"{where}.usage.output_tokens", value["output_tokens"]),
        )
    if kind == "notice":
        if not isinstance(value, str):
            raise _fail(source, where, "'notice' must be a string")
        return Notice(value)
    if kind == "delay":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise _fail(source, where, "'delay' must be a non-negative number of seconds")
        return Delay(float(value))
    if kind == "finish":
        message = raw.get("message")
        if value not in _FINISH_REASONS:
            raise _fail(source, where, f"'finish' must be one of {', '.join(_FINISH_REASONS)}")
        if message is not None and not isinstance(message, str):
            raise _fail(source, where, "'message' must be a string")
        return Finish(cast(FinishReason, value), message)
    raise _fail(
        source,
        where,
        f"unknown item {kind!r} "
        "(expected text, reasoning, tool_call, usage, notice, delay or finish)",
    )


def _parse_step(source: str, where: str, raw: Any) -> Step:
    if not isinstance(raw, list):
        raise _fail(source, where, "a step must be a list of items")
    items: list[Item] = []
    finish: Finish | None = None
    for index, raw_item in enumerate(raw):
        item = _parse_item(source, f"{where}[{index}]", raw_item)
        if isinstance(item, Finish):
            if index != len(raw) - 1:
                raise _fail(
                    source, f"{where}[{index}]", "'finish' must be the last item of its step"
                )
            finish = item
        else:
            items.append(item)
    return Step(tuple(items), finish)


def _parse_steps(source: str, where: str, raw: Any) -> tuple[Step, ...]:
    if not isinstance(raw, list):
        raise _fail(source, where, "must be a list of steps (each a list of items)")
    return tuple(_parse_step(source, f"{where}[{index}]", step) for index, step in enumerate(raw))


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    """Validate decoded JSON into a Scenario; errors name `source` and the JSON path."""
    if not isinstance(data, dict):
        raise _fail(source, "", 'the top level must be an object with "steps" or "turns"')
    _check_keys(source, "", data, {"name", "description", "steps", "turns"})
    if ("steps" in data) == ("turns" in data):
        raise _fail(source, "", 'give exactly one of "steps" or "turns"')
    name = data.get("name", Path(source).stem if source != "<scenario>" else "scenario")
    description = data.get("description", "")
    if not isinstance(name, str) or not isinstance(description, str):
        raise _fail(source, "", '"name" and "description" must be strings')
    steps = turns = None
    if "steps" in data:
        steps = _parse_steps(source, "steps", data["steps"])
    else:
        raw_turns = data["turns"]
        if not isinstance(raw_turns, list):
            raise _fail(source, "turns", "must be a list of turns (each a list of steps)")
        turns = tuple(_parse_steps(source, f"turns[{i}]", turn) for i, turn in enumerate(raw_turns))
    return Scenario(name, description, steps, turns, source)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"scenario {source}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"scenario {source}: not UTF-8 text") from None
    return _decode(text, source)


def _decode(text: str, source: str) -> Scenario:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError(
            f"scenario {source}: invalid JSON at line {error.lineno} "
            f"column {error.colno}: {error.msg}"
        ) from None
    return parse_scenario(data, source)


def bundled_scenario(name: str) -> Scenario:
    """A scenario shipped in agent/models/scenarios/, e.g. "demo"."""
    resource = resources.files("agent.models").joinpath("scenarios", f"{name}.json")
    if not resource.is_file():
        raise ScenarioError(f"scenario {name!r}: no such bundled scenario")
    return _decode(resource.read_text(encoding="utf-8"), f"{name}.json")


# --- playing --------------------------------------------------------------------------------


def _substitute(value: Any, cwd: str) -> Any:
    """Replace ${CWD} in every string of a JSON value."""
    if isinstance(value, str):
        return value.replace(CWD_TOKEN, cwd)
    if isinstance(value, Mapping):
        return {key: _substitute(item, cwd) for key, item in value.items()}
    if isinstance(value, list):
        return [_substitute(item, cwd) for item in value]
    return value


class ScriptedModel:
    """Plays a Scenario; stateless, so one instance can serve several sessions."""

    def __init__(self, scenario: Scenario | str | Path) -> None:
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)

    @property
    def name(self) -> str:
        return f"scripted:{self.scenario.name}"

    def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], *, cwd: str
    ) -> AsyncIterator[ModelDelta]:
        return self._play(messages, cwd)

    async def _play(self, messages: Sequence[ChatMessage], cwd: str) -> AsyncIterator[ModelDelta]:
        turn = sum(1 for message in messages if message.get("role") == "user")
        steps = self.scenario.steps_for_turn(turn)
        index = steps_since_user(messages)
        if index >= len(steps):
            yield Finish("stop")
            return
        step = steps[index]
        next_number = prior_tool_call_count(messages) + 1
        made_calls = False
        for item in step.items:
            if isinstance(item, Say):
                for chunk in item.chunks:
                    text = chunk.replace(CWD_TOKEN, cwd)
                    yield TextDelta(text) if item.kind == "text" else ReasoningDelta(text)
            elif isinstance(item, Call):
                arguments = _substitute(item.arguments, cwd)
                yield ToolCallDelta(
                    item.id or call_id(next_number),
                    item.name,
                    arguments if isinstance(arguments, str) else json_arguments(arguments),
                )
                next_number += 1
                made_calls = True
            elif isinstance(item, Usage):
                yield UsageDelta(item.input_tokens, item.output_tokens)
            elif isinstance(item, Notice):
                yield NoticeDelta(item.text.replace(CWD_TOKEN, cwd))
            else:
                await asyncio.sleep(item.seconds)
        if step.finish is not None:
            message = step.finish.message
            yield Finish(
                step.finish.reason, message.replace(CWD_TOKEN, cwd) if message else message
            )
        else:
            yield Finish("tool_calls" if made_calls else "stop")
