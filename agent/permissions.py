"""Permission modes and the per-call decision: allow, ask the user, or refuse.

The policy is a pure function of the mode, the tool, its arguments, the session cwd and the
grants the user gave with "allow always", so it is tested as a table. Modes:

- `ask` (default): edits and commands ask; reads inside the workspace do not.
- `accept-edits`: edits inside the workspace are allowed; commands ask.
- `full-access`: nothing inside the workspace asks.
- `read-only`: write, edit and bash are refused with a clear message.

A path outside the session cwd (a read, write or edit target, or bash's `workdir`) always
asks, in every mode, or is refused in `read-only`. Symlinks are resolved first, so a link
inside the workspace that points out of it counts as outside. Asking fails closed: an unknown
option id, a cancelled request or a failed request is a rejection.
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

from agent.tools.base import Tool

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
    ModeInfo("full-access", "Full access", "Never ask inside the workspace"),
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


def is_inside(path: str, cwd: str) -> bool:
    """Whether `path` (absolute, or relative to `cwd`) is `cwd` or below it, links resolved."""
    target = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    root = os.path.realpath(cwd)
    try:
        rel = os.path.relpath(target, root)
    except ValueError:  # another drive (Windows)
        return False
    return rel != os.pardir and not rel.startswith(os.pardir + os.sep)


def tool_path(tool_name: str, args: Mapping[str, object]) -> str | None:
    """The path a call touches, as given, when the tool has one and it is a string."""
    key = _PATH_ARGS.get(tool_name)
    value = args.get(key) if key else None
    return value if isinstance(value, str) and value else None


@dataclass
class Grants:
    """ "Allow always" answers of one session: tool name -> whether it covers outside paths."""

    tools: dict[str, bool] = field(default_factory=dict)

    def covers(self, tool_name: str, outside: bool) -> bool:
        anywhere = self.tools.get(tool_name)
        return anywhere is not None and (anywhere or not outside)

    def grant(self, tool_name: str, outside: bool) -> None:
        """A grant given for an outside path covers the tool everywhere; else the workspace."""
        self.tools[tool_name] = self.tools.get(tool_name, False) or outside


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one call, and the reason shown when asking or refusing."""

    verdict: Verdict
    reason: str = ""
    outside: bool = False


def decide(
    mode: Mode,
    tool_name: str,
    tool: Tool,
    args: Mapping[str, object],
    cwd: str,
    grants: Grants,
) -> Decision:
    """The policy table (see the module docstring)."""
    path = tool_path(tool_name, args)
    outside = path is not None and not is_inside(path, cwd)
    where = f"{path} is outside the workspace {cwd}"
    if mode == "read-only":
        if not tool.read_only:
            return Decision(
                "refuse",
                f"refused in read-only mode: {tool_name} can change files or run commands. "
                "Switch modes (/mode) to allow it.",
                outside,
            )
        if outside:
            return Decision("refuse", f"refused in read-only mode: {where}.", True)
        return Decision("allow")
    if outside:
        if grants.covers(tool_name, outside=True):
            return Decision("allow", outside=True)
        return Decision("ask", where, True)
    if tool.read_only or mode == "full-access" or grants.covers(tool_name, outside=False):
        return Decision("allow")
    if mode == "accept-edits" and tool_name in EDIT_TOOLS:
        return Decision("allow")
    if tool_name in EDIT_TOOLS:
        return Decision("ask", f"{tool_name} changes a file")
    return Decision("ask", f"{tool_name} runs a command" if tool_name == "bash" else tool_name)


def permission_options(tool_name: str) -> list[PermissionOption]:
    """Allow once, allow always (this tool, this session), reject."""
    return [
        PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
        PermissionOption(
            option_id=ALLOW_ALWAYS,
            name=f"Always allow {tool_name} in this session",
            kind="allow_always",
        ),
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
    "decide",
    "is_inside",
    "mode_info",
    "parse_mode",
    "permission_options",
    "read_answer",
    "tool_path",
]
