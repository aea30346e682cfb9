"""What every tool is: a schema for the model, pure presenters for the UI, and `execute`.

Presenters run live and again on session-log replay, so they depend only on their inputs and
answer `None` (generic fallback) for arguments they cannot read. `execute` validates strictly
and reports problems as an error `ToolResult` whose text starts with `Error: `, which is what
both the model and the user see.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from agent.jsonvalue import JsonObject, JsonValue
from agent.tools.procs import JobRegistry
from agent.views import PlanItem, ToolCallView, ToolResultView

ERROR_PREFIX = "Error: "
_T = TypeVar("_T")


def error_text(message: str) -> str:
    """Prefix `message` with `Error: ` once, so error results read the same everywhere."""
    return message if message.startswith(ERROR_PREFIX) else ERROR_PREFIX + message


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call.

    `output` is the model-facing text. `meta` is a tool-private JSON value persisted with the
    result in the session log and handed back to `present_result` on replay, so a result card
    is read back, never recomputed from a file that may have changed since.
    """

    output: str
    is_error: bool = False
    meta: JsonValue = None

    @classmethod
    def error(cls, message: str, meta: JsonValue = None) -> ToolResult:
        """An error result whose text carries the `Error: ` prefix exactly once."""
        return cls(error_text(message), True, meta)


@dataclass(slots=True)
class ToolContext:
    """What a call may use besides its arguments.

    `read_stamps` is shared by every call of one session (absolute path -> content digest at
    the last read or write), so edit can refuse a file that changed behind the agent's back.
    `cancel` is set to abort the call; `on_output` receives live output text as it arrives.
    """

    cwd: Path
    read_stamps: dict[str, str] = field(default_factory=dict)
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    on_output: Callable[[str], None] | None = None
    jobs: JobRegistry = field(default_factory=JobRegistry)
    """The session's bash jobs still running (background ones, and leftovers), killed at
    the session's end."""
    resolved: Mapping[str, str] = field(default_factory=dict)
    """Path arguments the permission policy already resolved (argument -> `resolve_path`
    result): the tool opens exactly the path that was judged."""

    def resolve(self, path: str) -> Path:
        """Resolve a tool path argument once (`resolve_path`), or take the policy's result.

        Raises PathArgError (a ToolArgsError) for a path that cannot name a file."""
        known = self.resolved.get(path)
        return Path(known if known is not None else resolve_path(str(self.cwd), path))


async def run_blocking(func: Callable[..., _T], *args: object) -> _T:
    """Run blocking file work in a daemon thread and await its result.

    Unlike `asyncio.to_thread`, a call that never returns (a hung file system) holds no
    executor thread that interpreter exit would wait for, so the agent still exits when its
    client goes away, and the awaiting call can be abandoned (cancelled) at any time.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(value: _T | None, error: BaseException | None) -> None:
        if future.done():
            return  # abandoned
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def work() -> None:
        try:
            value = func(*args)
        except BaseException as error:
            with contextlib.suppress(RuntimeError):  # the loop is gone
                loop.call_soon_threadsafe(settle, None, error)
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, value, None)

    threading.Thread(target=work, name="dsh-tool-io", daemon=True).start()
    return await future


class Tool(Protocol):
    """A tool the model can call. Implementations are stateless; state lives in the context."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> JsonObject:
        """The JSON schema of the arguments, as OpenAI function calling expects it."""
        ...

    @property
    def read_only(self) -> bool:
        """True when the tool changes nothing, so it can run without asking permission."""
        ...

    def present_call(self, args: Mapping[str, object]) -> ToolCallView | None: ...

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None: ...

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult: ...


@runtime_checkable
class PlanTool(Protocol):
    """A tool whose result also replaces the agent's plan (the ACP `plan` update)."""

    def present_plan(
        self, args: Mapping[str, object], result: ToolResult
    ) -> list[PlanItem] | None: ...


# --- argument readers ----------------------------------------------------------------------
# One set of readers serves both paths: `execute` turns ToolArgsError into an error result and
# the presenters turn it into `None`, so the two can never disagree about what is well formed.


class ToolArgsError(ValueError):
    """The model's arguments do not fit the tool's schema."""


class PathArgError(ToolArgsError):
    """A path argument that cannot name a file (e.g. it holds a NUL byte)."""


def resolve_path(cwd: str, path: str) -> str:
    """The one resolution of a tool path: absolute kept, relative joined to `cwd`, then every
    symlink and `..` resolved on the real file system (`os.path.realpath`).

    The permission policy and the tool both use this result, so what was judged is what is
    opened: a lexical `normpath` would turn `link/../x` into `x`, while the kernel follows
    `link` first and climbs from where it leads.
    """
    if "\0" in path:
        raise PathArgError("the path contains a NUL byte, which no file name can hold")
    return os.path.realpath(os.path.join(cwd, path))


def arg_str(args: Mapping[str, object], key: str, *, required: bool = True) -> str | None:
    """A string argument; `None` when optional and absent (or null)."""
    value = args.get(key)
    if value is None:
        if required:
            raise ToolArgsError(f"missing required argument {key!r}")
        return None
    if not isinstance(value, str):
        raise ToolArgsError(f"argument {key!r} must be a string")
    return value


def require_str(args: Mapping[str, object], key: str) -> str:
    """A required string argument."""
    value = arg_str(args, key)
    assert value is not None
    return value


def arg_int(args: Mapping[str, object], key: str) -> int | None:
    """An optional integer argument; JSON numbers like `5.0` count, booleans do not."""
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ToolArgsError(f"argument {key!r} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise ToolArgsError(f"argument {key!r} must be an integer")


def arg_bool(args: Mapping[str, object], key: str) -> bool:
    """An optional boolean argument, false when absent."""
    value = args.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ToolArgsError(f"argument {key!r} must be true or false")
    return value
