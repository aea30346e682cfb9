"""One session on screen: its `SessionController`, transcript, prompt, plan and permission
questions, composed and kept up to date from the controller's events.

The pane is the controller's observer. Each event (tui/session/events.py) is shown here, then
bubbles to the app as a `SessionPane.Event` for what is the app's (the failure screen, the
start-up heap, the tab bar). Each tab of the app is one `SessionPane`; only the shown one is
displayed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Footer
from textual.worker import Worker

from tui import chrome
from tui.config import AppConfig
from tui.permission_flow import PermissionFlow
from tui.prompt.history import PromptHistory
from tui.prompt_input import PromptInput
from tui.sanitize import clean_line
from tui.session.controller import SessionController
from tui.session.events import (
    Connected,
    Connecting,
    Failed,
    Notify,
    PermissionAsked,
    PermissionClosed,
    QueueChanged,
    SessionEvent,
    TurnEnded,
    TurnStarted,
)
from tui.session.prompts import FirstPrompts, prompts_path
from tui.state import (
    Change,
    CommandsChanged,
    ModeChanged,
    PlanChanged,
    SettingsChanged,
    TitleChanged,
    UsageChanged,
)
from tui.transcript.text import runs_of
from tui.widgets.header import SessionHeader
from tui.widgets.prompt.command_menu import CommandMenu
from tui.widgets.prompt.mention_menu import MentionMenu
from tui.widgets.prompt.prompt import KEYS_HINT, PromptArea
from tui.widgets.prompt.queued import QueuedPrompts
from tui.widgets.status import StatusLine
from tui.widgets.transcript.conversation import ConversationView
from tui.widgets.transcript.new_below import NewBelow
from tui.widgets.transcript.plan import PlanView
from tui.widgets.welcome import Welcome

if TYPE_CHECKING:  # loaded with the first question (tui/widgets/deferred.py)
    from tui.widgets.permission import PermissionPanel

CONNECTING_PLACEHOLDER = "Connecting to the agent… type ahead: enter queues the prompt"
READY_PLACEHOLDER = f"Message the agent · {KEYS_HINT}"
WORKING_PLACEHOLDER = "Working… esc cancels · enter queues the next prompt"
# A client terminal's pty: the transcript's content width less a card's margin (a pane's
# lines are as wide as the card's inside); rows generous: the pane scrolls, nothing redraws.
PANE_MARGIN = 1
PTY_ROWS = 50


class SessionPane(Vertical):
    """The widgets of one session, and the observer of its controller."""

    class Event(Message):
        """A controller's event, after this pane has shown it."""

        def __init__(self, event: SessionEvent, pane: SessionPane) -> None:
            super().__init__()
            self.event = event
            self.pane = pane  # which tab's session (tui/tab_host.py)

    def __init__(
        self,
        config: AppConfig,
        *,
        history: PromptHistory | None = None,
        first_prompts: FirstPrompts | None = None,
        id: str | None = None,
    ) -> None:
        """`history` and `first_prompts` default to the workspace's own files."""
        super().__init__(id=id, classes="session-pane")
        self.config = config
        self.controller = SessionController(self, clock=config.clock)
        # The worker that connects to the agent and runs every prompt (tui/app.py).
        self.acp_worker: Worker[None] | None = None
        # Held, not queried: every streamed update goes to it.
        self.transcript = ConversationView(config.cwd, id="conversation")
        if history is None:
            history = PromptHistory.for_workspace(config.cwd)
        self.history = history
        if first_prompts is None:
            first_prompts = FirstPrompts(prompts_path(config.cwd))
        self.first_prompts = first_prompts
        self.permission_flow = PermissionFlow(self, self.controller, config.cwd)
        self.prompt_input = PromptInput(
            self, self.controller, self.history, self.transcript, on_sent=self.hide_welcome
        )

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="header")
        yield Welcome(id="welcome")
        yield self.transcript
        with Vertical(id="bottom"):
            yield PlanView(id="plan")
            yield (menu := CommandMenu(id="commands"))
            yield (mentions := MentionMenu(self.config.cwd, id="mentions"))
            yield (below := NewBelow(self.transcript.jump_to_end, id="new-below"))
            self.transcript.on_new_below = below.show
            yield QueuedPrompts(id="queued")
            yield PromptArea(
                self.history,
                self.controller.take_back_queued,
                placeholder=CONNECTING_PLACEHOLDER,
                menu=menu,
                mention_menu=mentions,
                on_submit=self.prompt_input.submit,
                id="prompt",
            )
            yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        # The prompt has focus from the first frame: what is typed before the agent answers
        # is kept. (Not App.AUTO_FOCUS: pushed screens would look for a prompt too.) A tab
        # opened out of sight leaves the keyboard where it is.
        if self.display:
            self.screen.set_focus(self.query_one(PromptArea))
        self.controller.shells.on_change = self.app.refresh_bindings  # Esc stops a `!` command
        for notice in self.config.notices:  # the settings file's problems (tui/user_config.py)
            self.controller.notice(notice, "warning")

    # -- what the controller says (tui/session/events.py) ---------------------------------

    def conversation_changed(self, changes: list[Change]) -> None:
        self.transcript.apply(changes)

    def session_event(self, event: SessionEvent) -> None:
        if isinstance(event, Connected):
            # Before any update of the first turn reaches the transcript: its cards look
            # their terminals up here.
            self.transcript.terminals = event.session.client.terminals
            self.transcript.run_lookup = runs_of(event.session.client.terminals)
            self._size_terminals()
        self.post_message(self.Event(event, self))

    def _size_terminals(self) -> None:
        """Client terminals start on a pty as wide as a card's pane, so a command that asks
        its terminal's width (ls, progress bars) fits what the user sees."""
        if (terminals := self.transcript.terminals) is not None and self.transcript.size.width:
            terminals.pty_size = (max(20, self.transcript.size.width - PANE_MARGIN), PTY_ROWS)

    def on_resize(self, event: events.Resize) -> None:
        self._size_terminals()

    def on_session_pane_event(self, message: SessionPane.Event) -> None:
        """Show the event; it then bubbles on to the app."""
        conversation = self.controller.conversation
        match message.event:
            case Connecting(spec=spec):
                command = clean_line(spec.command_line)  # the user's, any characters
                self.query_one(SessionHeader).show_connecting(command)
            case Connected():
                if conversation.entries:
                    self.hide_welcome()
                self.refresh_header()
                prompt = self.query_one(PromptArea)
                prompt.disabled = False
                prompt.placeholder = READY_PLACEHOLDER
                if self.display:
                    prompt.focus()
            case TurnStarted(text=text):
                self.hide_welcome()  # also for a prompt submitted to the controller directly
                session = self.controller.session
                if session is not None:  # for the resume picker's rows
                    self.first_prompts.sent(session.session_id, session.resumed, text)
                self.query_one(PlanView).unpin_finished()
                self.query_one(PromptArea).placeholder = WORKING_PLACEHOLDER
                self.app.refresh_bindings()
            case TurnEnded():
                self.query_one(PromptArea).placeholder = READY_PLACEHOLDER
                self.app.refresh_bindings()
            case QueueChanged(waiting=waiting):
                self.query_one(QueuedPrompts).show(list(waiting))
                self.app.refresh_bindings()
            case PermissionAsked(request=request):
                self.permission_flow.show(request)
                self.app.refresh_bindings()
            case PermissionClosed(request=request, following=following):
                self.permission_flow.close(request, following)
                self.app.refresh_bindings()
            case Notify(message=text, severity=severity, timeout=timeout):
                self.app.notify(text, severity=severity, timeout=timeout)
            case PlanChanged():
                self.query_one(PlanView).show_plan(conversation.plan)
            case UsageChanged():
                self.query_one(StatusLine).show_usage(conversation.usage)
            case CommandsChanged():
                self.query_one(CommandMenu).commands = conversation.commands
                self.refresh_header()  # the welcome offers the agent's advertised commands
            case TitleChanged() | ModeChanged() | SettingsChanged():
                self.refresh_header()
                self.app.refresh_bindings()
            case Failed():
                self.query_one(PromptArea).disabled = True
                self.take_back_all_queued()

    def reset_conversation(self) -> None:
        """Start from an empty transcript, e.g. before a load replays a session's history."""
        self.controller.reset()
        self.transcript.clear()
        self.query_one(PlanView).show_plan([])
        self.query_one(StatusLine).show_usage(None)

    def hide_welcome(self) -> None:
        for welcome in self.query(Welcome):
            welcome.remove()

    def refresh_header(self) -> None:
        chrome.refresh_header(self, self.controller, self.config.cwd)

    def take_back_all_queued(self) -> None:
        """Return every queued prompt to the prompt box, unsent, before what is typed there."""
        taken = self.controller.take_back_all()
        if taken:
            prompt = self.query_one(PromptArea)
            prompt.load("\n".join([*taken, prompt.text]).rstrip("\n"))

    # -- the prompt and the questions -----------------------------------------------------

    def on_prompt_area_end_requested(self, event: PromptArea.EndRequested) -> None:
        self.transcript.jump_to_end()

    def on_prompt_area_editor_requested(self, event: PromptArea.EditorRequested) -> None:
        self.prompt_input.edit_in_editor()  # Ctrl+X Ctrl+E: the draft in $EDITOR

    def on_text_area_changed(self, event: PromptArea.Changed) -> None:
        self.prompt_input.text_changed(event.text_area)

    def on_text_area_selection_changed(self, event: PromptArea.SelectionChanged) -> None:
        self.prompt_input.text_changed(event.text_area)

    def on_permission_panel_review_requested(self, event: PermissionPanel.ReviewRequested) -> None:
        self.permission_flow.review(event)
