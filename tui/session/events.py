"""What a `SessionController` tells its observer, as typed records (no Textual here).

The session pane carries each up as one Textual message (`SessionPane.Event`); a demo side
reads the few it needs directly. The transcript's own changes go by
`SessionObserver.conversation_changed`, synchronously and in order, since a flood of chunks
must not wait on a message queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from tui.state import SessionChanged

if TYPE_CHECKING:
    from tui.connection import AgentConnection
    from tui.launch import AgentFailed, LaunchSpec
    from tui.permissions import PendingPermission
    from tui.state import Change

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class Connecting:
    """The agent is starting with this spec."""

    spec: LaunchSpec


@dataclass(frozen=True)
class Connected:
    """The session is open; `conversation` holds its modes, options and (on a load) history."""

    session: AgentConnection


@dataclass(frozen=True)
class Failed:
    """The agent failed or exited; queued prompts and open questions are still the
    observer's to take back (`take_back_all`), the calls left running are settled."""

    failure: AgentFailed


@dataclass(frozen=True)
class TurnStarted:
    text: str


@dataclass(frozen=True)
class TurnEnded:
    """A prompt turn is over: the agent answered, was cancelled, or the connection ended."""

    stop_reason: str | None


@dataclass(frozen=True)
class QueueChanged:
    """The prompts waiting to be sent, as they should be shown (none while one is about to be
    sent to an idle session)."""

    waiting: tuple[str, ...]


@dataclass(frozen=True)
class PermissionAsked:
    """The first request in the queue is waiting for the user's answer."""

    request: PendingPermission


@dataclass(frozen=True)
class PermissionClosed:
    """A request was answered; `following` is the next one to show, if any."""

    request: PendingPermission
    following: PendingPermission | None


@dataclass(frozen=True)
class Notify:
    """Something to tell the user in passing (a setting the agent refused, say)."""

    message: str
    severity: Severity = "information"
    timeout: float | None = None


SessionEvent = (
    Connecting
    | Connected
    | Failed
    | TurnStarted
    | TurnEnded
    | QueueChanged
    | PermissionAsked
    | PermissionClosed
    | Notify
    | SessionChanged
)


class SessionObserver(Protocol):
    def conversation_changed(self, changes: list[Change]) -> None:
        """Transcript changes, in order, as `Conversation` returned them."""

    def session_event(self, event: SessionEvent) -> None:
        """Anything else the controller's state did."""
