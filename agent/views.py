"""The render-intent union: how a tool asks for its call and result to be shown.

A tool declares ONE intent per call and per result, tagged by a required `card`. The union is
closed on purpose: `agent.bridge` matches on it with `assert_never`, so adding a card kind fails
type checking until the bridge can render it. Nothing here knows about ACP, so tools stay
provider-neutral and the same views serve live streaming and session-log replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from agent.jsonvalue import JsonObject

ToolCallKind = Literal["read", "edit", "delete", "move", "search", "execute", "fetch", "other"]
PlanStatus = Literal["pending", "in_progress", "completed"]


def _check_card(view: object, expected: str) -> None:
    """Reject a mislabelled view at construction, so the tag can be trusted downstream."""
    card = getattr(view, "card", None)
    if card != expected:
        raise ValueError(f"{type(view).__name__}.card must be {expected!r}, got {card!r}")


@dataclass(frozen=True, slots=True)
class TextBlock:
    """A text content block."""

    text: str


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image a tool returned (an MCP server's), base64 `data` with its MIME type."""

    data: str
    mime_type: str


@dataclass(frozen=True, slots=True)
class ResourceBlock:
    """A resource a tool returned: embedded text (`text` set), or a link to it (`text` None).

    A binary embedded resource travels as a link with its MIME type: the client shows the
    link, and the model was told its size."""

    uri: str
    text: str | None = None
    mime_type: str | None = None


ContentBlock: TypeAlias = TextBlock | ImageBlock | ResourceBlock
"""What a result card may show besides diffs and terminals; the bridge maps each kind to
the matching ACP content block."""


@dataclass(frozen=True, slots=True)
class FileLocation:
    """A file a tool touches; `line` is 1-based. The path is kept raw so editors open it."""

    path: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One diff block; `old_text=None` means a new file (or no before-image at call time).

    `old_line` / `new_line` are the 1-based lines where the block starts in the file before
    and after the change, when known. ACP's `diff` has no start line, so without them a client
    can only guess (or count a snippet from 1, which is wrong); the bridge sends them as
    `_meta["dsh.line"]`. Both are set or neither.
    """

    path: str
    old_text: str | None
    new_text: str
    old_line: int | None = None
    new_line: int | None = None


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One entry of the agent's plan (todo list); ACP priority is not modelled, always medium."""

    content: str
    status: PlanStatus


# --- call views (present_call) -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GenericCallView:
    """Any call: a title plus optional kind, the tool's arguments, text and follow-along locations.

    `raw_input` is the tool's argument object, never a bare string or list: ACP clients that
    validate strictly reject a `rawInput` that is not an object, and lose the whole card.
    """

    card: Literal["generic"]
    title: str
    kind: ToolCallKind | None = None
    raw_input: JsonObject | None = None
    content: tuple[TextBlock, ...] = ()
    locations: tuple[FileLocation, ...] = ()

    def __post_init__(self) -> None:
        _check_card(self, "generic")


@dataclass(frozen=True, slots=True, kw_only=True)
class TerminalCallView:
    """A shell command: the title IS the command; `cwd` may be relative to the session cwd."""

    card: Literal["terminal"]
    title: str
    description: str | None = None
    cwd: str | None = None

    def __post_init__(self) -> None:
        _check_card(self, "terminal")


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffCallView:
    """A file mutation shown as diffs derived from the call arguments alone."""

    card: Literal["diff"]
    title: str
    diffs: tuple[FileDiff, ...]
    locations: tuple[FileLocation, ...] = ()

    def __post_init__(self) -> None:
        _check_card(self, "diff")


ToolCallView: TypeAlias = GenericCallView | TerminalCallView | DiffCallView


# --- result views (present_result) ---------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GenericResultView:
    """A plain result; `content=None` means "show the raw result text", never a blank card."""

    card: Literal["generic"]
    title: str | None = None
    content: tuple[ContentBlock, ...] | None = None
    not_run: bool = False  # a command that never started (rejected, refused, cancelled first)

    def __post_init__(self) -> None:
        _check_card(self, "generic")


@dataclass(frozen=True, slots=True, kw_only=True)
class TerminalResultView:
    """A finished command; the bridge derives the console fallback from `output` itself."""

    card: Literal["terminal"]
    title: str | None = None
    output: str | None = None
    exit_code: int | None = None
    signal: str | None = None
    duration_ms: int | None = None  # how long the command ran, as measured when it ran
    # A line the text fallback starts with ("Error: command aborted"); a pane says it with its
    # exit badge instead.
    headline: str | None = None

    def __post_init__(self) -> None:
        _check_card(self, "terminal")


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffResultView:
    """The change actually applied (contextual hunks), replacing the call-time snippet."""

    card: Literal["diff"]
    title: str | None = None
    diffs: tuple[FileDiff, ...] = ()
    locations: tuple[FileLocation, ...] = ()
    """One per hunk, at its first changed line: editors follow along with these."""

    def __post_init__(self) -> None:
        _check_card(self, "diff")


ToolResultView: TypeAlias = GenericResultView | TerminalResultView | DiffResultView


def fence_console(output: str) -> str:
    """Wrap command output as a fenced console block, stripping only trailing newlines.

    Lives here, not in the bridge, because both the bridge (terminal fallback) and the bash
    tool (background and error cards) need the exact same bytes without tools importing ACP.
    """
    return "```console\n" + output.rstrip("\n") + "\n```"
