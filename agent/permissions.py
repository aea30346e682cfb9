"""Permission modes and the per-call decision: allow, ask the user, or refuse.

The policy is a pure function of the mode, the tool, its arguments, the session cwd and the
grants the user gave with "allow always", so it is tested as a table. Modes:

- `ask` (default): edits and commands ask; reads inside the workspace do not.
- `accept-edits`: edits inside the workspace are allowed; commands ask.
- `full-access`: nothing inside the workspace asks.
- `read-only`: write, edit and bash are refused with a clear message.

An MCP tool counts as read-only only when its server marks it `readOnlyHint`; every other
MCP call asks unless the mode is `full-access` or the user allowed that tool always, and is
refused in `read-only`.

A path outside the session cwd (a read, write or edit target, or bash's `workdir`) always
asks, in every mode, or is refused in `read-only`. A path is resolved once, by
`resolve_path` (symlinks and `..` resolved the way the kernel does, on the real directories),
and that same resolved path is what the policy judges and what the tool opens: a link inside
the workspace that points out of it counts as outside, and `link/../..` climbs from where the
link really leads. Asking fails closed: an unknown option id, a cancelled request or a failed
request is a rejection.

bash is a shell: the policy sees its `workdir`, not what the command line does. A command run
in the workspace can still read or write any path the user can; `full-access` runs commands
without asking. "Allow always" covers a tool in the workspace, or, given for an outside path,
that one resolved path only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, get_args

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
)

from agent.tools.base import PathArgError, Tool, resolve_path

Mode: TypeAlias = Literal["ask", "accept-edits", "full-access", "read-only"]
MODE_IDS: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "ask"


@dataclass(frozen=True, slots=True)
class ModeInfo:
    id: Mode
    name: str
    description: str


MODES: tuple[ModeInfo, ...] = (
    ModeInfo("ask", "Ask", "Ask before every edit and command"),
    ModeInfo(
        "accept-edits", "Accept edits", "Edit files in the workspace freely; ask for commands"
    ),
    ModeInfo(
        "full-access",
        "Full access",
        "Never ask inside the workspace: edits, and commands (which can touch any path)",
    ),
    ModeInfo("read-only", "Read only", "Read and plan only: refuse edits and commands"),
)

EDIT_TOOLS = frozenset({"write", "edit"})
"""Tools that change files at `file_path`; `accept-edits` lets them through."""
_PATH_ARGS = {"read": "file_path", "write": "file_path", "edit": "file_path", "bash": "workdir"}

ALLOW_ONCE = "allow-once"
ALLOW_ALWAYS = "allow-always"
REJECT = "reject-once"

Verdict: TypeAlias = Literal["allow", "ask", "refuse"]
Answer: TypeAlias = Literal["allow-once", "allow-always", "reject", "cancelled"]


def parse_mode(value: str) -> Mode:
    """The mode called `value`; ValueError names the valid ones."""
    for mode in MODE_IDS:
        if value == mode:
            return mode
    raise ValueError(f"unknown mode {value!r} (choose one of {', '.join(MODE_IDS)})")


def mode_info(mode: Mode) -> ModeInfo:
    return next(info for info in MODES if info.id == mode)


def inside_root(resolved: str, cwd: str) -> bool:
    """Whether an already resolved path is `cwd` (resolved) or below it."""
    root = os.path.realpath(cwd)
    try:
        rel = os.path.relpath(resolved, root)
    except ValueError:  # another drive (Windows)
        return False
    return rel != os.pardir and not rel.startswith(os.pardir + os.sep)


def is_inside(path: str, cwd: str) -> bool:
    """Whether `path` (absolute, or relative to `cwd`) is `cwd` or below it, links resolved.

    Raises PathArgError for a path that cannot name a file."""
    return inside_root(resolve_path(cwd, path), cwd)


def tool_path(tool_name: str, args: Mapping[str, object]) -> str | None:
    """The path a call touches, as given, when the tool has one and it is a string."""
    key = _PATH_ARGS.get(tool_name)
    value = args.get(key) if key else None
    return value if isinstance(value, str) and value else None


@dataclass
class Grants:
    """ "Allow always" answers of one session.

    `workspace` holds the tools allowed inside the workspace; `outside` holds (tool, resolved
    path) pairs, so allowing one outside path never allows the tool anywhere else.
    """

    workspace: set[str] = field(default_factory=set)
    outside: set[tuple[str, str]] = field(default_factory=set)

    def covers(self, tool_name: str, outside_path: str | None) -> bool:
        """Whether a grant covers `tool_name` in the workspace (`outside_path` None) or on
        exactly that resolved outside path."""
        if outside_path is None:
            return tool_name in self.workspace
        return (tool_name, outside_path) in self.outside

    def grant(self, tool_name: str, outside_path: str | None) -> None:
        """Allow the tool in the workspace, or on that one resolved outside path."""
        if outside_path is None:
            self.workspace.add(tool_name)
        else:
            self.outside.add((tool_name, outside_path))


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one call, and the reason shown when asking or refusing.

    `path` is the resolved path judged outside the workspace (None when inside or pathless):
    the path an "allow always" answer is scoped to.
    """

    verdict: Verdict
    reason: str = ""
    outside: bool = False
    path: str | None = None


def decide(
    mode: Mode,
    tool_name: str,
    tool: Tool,
    args: Mapping[str, object],
    cwd: str,
    grants: Grants,
    *,
    resolved: str | None = None,
) -> Decision:
    """The policy table (see the module docstring).

    `resolved` is the call's path as `resolve_path` gave it, the same value the tool is handed;
    without it the path argument is resolved here (PathArgError when it cannot name a file).
    """
    path = tool_path(tool_name, args)
    if path is not None and resolved is None:
        resolved = resolve_path(cwd, path)
    outside = resolved is not None and not inside_root(resolved, cwd)
    outside_path = resolved if outside else None
    where = f"{path} is outside the workspace {cwd}"
    if outside and resolved is not None and resolved != path:
        where = f"{path} (resolved: {resolved}) is outside the workspace {cwd}"
    if mode == "read-only":
        if not tool.read_only:
            return Decision(
                "refuse",
                f"refused in read-only mode: {tool_name} can change files or run commands. "
                "Switch modes (/mode) to allow it.",
                outside,
                outside_path,
            )
        if outside:
            return Decision("refuse", f"refused in read-only mode: {where}.", True, outside_path)
        return Decision("allow")
    if outside:
        if grants.covers(tool_name, outside_path):
            return Decision("allow", outside=True, path=outside_path)
        return Decision("ask", where, True, outside_path)
    if tool.read_only or mode == "full-access" or grants.covers(tool_name, None):
        return Decision("allow")
    if mode == "accept-edits" and tool_name in EDIT_TOOLS:
        return Decision("allow")
    if tool_name in EDIT_TOOLS:
        return Decision("ask", f"{tool_name} changes a file")
    if tool_name.startswith("mcp__"):
        return Decision("ask", f"{tool_name} calls a tool of an MCP server")
    return Decision("ask", f"{tool_name} runs a command" if tool_name == "bash" else tool_name)


def permission_options(tool_name: str, outside_path: str | None = None) -> list[PermissionOption]:
    """Allow once, allow always (this tool, this session; for an outside path, that path
    only), reject."""
    always = (
        f"Always allow {tool_name} in this session"
        if outside_path is None
        else f"Always allow {tool_name} on {outside_path} in this session"
    )
    return [
        PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
        PermissionOption(option_id=ALLOW_ALWAYS, name=always, kind="allow_always"),
        PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
    ]


def read_answer(response: RequestPermissionResponse) -> Answer:
    """The user's answer; anything but one of our allow options is a rejection."""
    outcome = response.outcome
    if not isinstance(outcome, AllowedOutcome):
        return "cancelled"
    if outcome.option_id == ALLOW_ONCE:
        return "allow-once"
    if outcome.option_id == ALLOW_ALWAYS:
        return "allow-always"
    return "reject"


__all__ = [
    "ALLOW_ALWAYS",
    "ALLOW_ONCE",
    "DEFAULT_MODE",
    "EDIT_TOOLS",
    "MODES",
    "MODE_IDS",
    "REJECT",
    "Answer",
    "Decision",
    "Grants",
    "Mode",
    "ModeInfo",
    "PathArgError",
    "decide",
    "inside_root",
    "is_inside",
    "mode_info",
    "parse_mode",
    "permission_options",
    "read_answer",
    "resolve_path",
    "tool_path",
]
