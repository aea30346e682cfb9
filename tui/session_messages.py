"""The controller's events as Textual messages: one class per event, handled as
`on_session_<event>` (e.g. `on_session_turn_ended`), so the app reacts to a type, not a string.

`message_for` wraps an event from tui/session/events.py; the message carries it as `event`.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from textual.message import Message

from tui import state
from tui.session import events

E = TypeVar("E")


class SessionMessage(Message, Generic[E], bubble=False):
    def __init__(self, event: E) -> None:
        super().__init__()
        self.event = event


class Connecting(SessionMessage[events.Connecting], namespace="session"):
    """The agent is starting."""


class Connected(SessionMessage[events.Connected], namespace="session"):
    """The session is open."""


class Failed(SessionMessage[events.Failed], namespace="session"):
    """The agent failed or exited."""


class TurnStarted(SessionMessage[events.TurnStarted], namespace="session"):
    """A prompt was sent."""


class TurnEnded(SessionMessage[events.TurnEnded], namespace="session"):
    """A prompt turn is over."""


class QueueChanged(SessionMessage[events.QueueChanged], namespace="session"):
    """The prompts waiting to be sent changed."""


class PermissionAsked(SessionMessage[events.PermissionAsked], namespace="session"):
    """A permission question is first in the queue."""


class PermissionClosed(SessionMessage[events.PermissionClosed], namespace="session"):
    """A permission question was answered."""


class Notify(SessionMessage[events.Notify], namespace="session"):
    """A passing notice for the user."""


class PlanChanged(SessionMessage[state.PlanChanged], namespace="session"):
    """The agent's plan changed."""


class TitleChanged(SessionMessage[state.TitleChanged], namespace="session"):
    """The session's title changed."""


class UsageChanged(SessionMessage[state.UsageChanged], namespace="session"):
    """The context window's use changed."""


class ModeChanged(SessionMessage[state.ModeChanged], namespace="session"):
    """The current mode changed."""


class CommandsChanged(SessionMessage[state.CommandsChanged], namespace="session"):
    """The agent's slash commands changed."""


class SettingsChanged(SessionMessage[state.SettingsChanged], namespace="session"):
    """Config options or the offered model changed."""


_MESSAGES: dict[type[Any], type[SessionMessage[Any]]] = {
    events.Connecting: Connecting,
    events.Connected: Connected,
    events.Failed: Failed,
    events.TurnStarted: TurnStarted,
    events.TurnEnded: TurnEnded,
    events.QueueChanged: QueueChanged,
    events.PermissionAsked: PermissionAsked,
    events.PermissionClosed: PermissionClosed,
    events.Notify: Notify,
    state.PlanChanged: PlanChanged,
    state.TitleChanged: TitleChanged,
    state.UsageChanged: UsageChanged,
    state.ModeChanged: ModeChanged,
    state.CommandsChanged: CommandsChanged,
    state.SettingsChanged: SettingsChanged,
}


def message_for(event: events.SessionEvent) -> SessionMessage[Any]:
    return _MESSAGES[type(event)](event)
