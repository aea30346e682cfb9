"""What a session pane does with its prompt's text: the `@` menu following it, its chips, Tab,
and a submitted prompt sent to the agent or, starting with `!`, run as the user's command.

A client command (`/export`, `/new`) is the app's: it goes up as a `ClientCommand` message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.message import Message
from textual.widgets import TextArea

from tui.client_commands import parse_client_command
from tui.prompt.shell_command import shell_command
from tui.widgets.prompt.command_menu import CommandMenu
from tui.widgets.prompt.mention_menu import MentionMenu, follow_text_area
from tui.widgets.prompt.prompt import PromptArea

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.prompt.history import PromptHistory
    from tui.session.controller import SessionController
    from tui.widgets.transcript.conversation import ConversationView


class ClientCommand(Message):
    """`/export [FILE]` or `/new` was submitted: the app runs it; it is never sent."""

    def __init__(self, name: str, argument: str) -> None:
        super().__init__()
        self.name = name
        self.argument = argument


class PromptInput:
    """The prompt of one session: `root` holds its `PromptArea` and menus."""

    def __init__(
        self,
        root: Widget,
        controller: SessionController,
        history: PromptHistory,
        transcript: ConversationView,
        *,
        on_sent: Callable[[], None],
    ) -> None:
        self.root = root
        self.controller = controller
        self.history = history
        self.transcript = transcript
        self.on_sent = on_sent

    def text_changed(self, area: TextArea) -> None:
        """The prompt's text or cursor moved: the menus and the mention chips follow."""
        if not isinstance(area, PromptArea):
            return
        follow_text_area(self.root.query_one(MentionMenu), area)
        self.root.query_one(CommandMenu).typed = area.text
        area.show_mentions()

    def can_complete(self) -> bool:
        """Tab completes a slash command; while the `@` menu is open the prompt takes Tab
        itself (tui/widgets/prompt/prompt.py), in order with the Up and Down typed before it."""
        if self.root.query_one(MentionMenu).is_open:
            return False
        menu = self.root.query_one(PromptArea).command_menu_now()
        return menu is not None and menu.completion() is not None

    def complete(self) -> None:
        menu = self.root.query_one(PromptArea).command_menu_now()
        completion = menu.tab_completion() if menu is not None else None
        if completion is not None:
            self.root.query_one(PromptArea).load(completion)

    def submit(self, prompt: PromptArea, text: str) -> None:
        """Queue the prompt: it is sent once the session is ready and no turn runs, so what
        is typed before the agent answers, or during a turn, is never lost. `!command` runs at
        once on this machine instead, never sent; `!` alone does nothing."""
        app = self.root.app
        text = text.strip()
        if not text:
            if self.controller.permissions:
                # Enter is never an answer: say where the question's keys are.
                app.notify("A question is open: Tab gives it the keys (a allow, r reject).")
            return
        if (client_command := parse_client_command(text)) is not None:  # never sent
            prompt.clear()
            self.history.add(text)
            self.root.post_message(ClientCommand(*client_command))
            return
        command = shell_command(text)
        if command == "":
            return
        if command is not None and self.controller.session is None:
            # Kept in the prompt, not queued: a command runs when asked, or not at all.
            app.notify("Not connected yet: a ! command runs once the session is open.")
            return
        prompt.clear()
        self.history.add(text)
        self.on_sent()
        self.transcript.jump_to_end()  # what is sent shows, however far back one was reading
        if command is None:
            self.controller.submit_prompt(text)
            return
        app.run_worker(self.controller.shells.run(command), group="user-shell")

    def edit_in_editor(self) -> None:
        """Ctrl+X Ctrl+E: suspend the app, edit the draft in the user's editor, and put what
        was saved back in the prompt (tui/prompt/external_editor.py). A failed editor leaves
        the draft as it was and says why."""
        from textual.app import SuspendNotSupported

        from tui.prompt.external_editor import edit_text

        app = self.root.app
        prompt = self.root.query_one(PromptArea)
        try:
            with app.suspend():
                outcome = edit_text(prompt.text)
        except SuspendNotSupported:
            app.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        if outcome.text is None:
            app.notify(outcome.problem or "The editor failed.", severity="warning")
            return
        prompt.load(outcome.text)
        prompt.focus()
