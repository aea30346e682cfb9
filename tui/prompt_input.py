"""What the app does with the prompt's text: the `@` menu following it, its chips, Tab, and
a submitted prompt sent to the agent or, starting with `!`, run as the user's command.

Kept apart from tui/app.py so the app stays the screen's composition and keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TextArea

from tui import conversation_tools
from tui.prompt.shell_command import shell_command
from tui.widgets.prompt.command_menu import CommandMenu
from tui.widgets.prompt.mention_menu import MentionMenu, follow_text_area
from tui.widgets.prompt.prompt import PromptArea

if TYPE_CHECKING:
    from tui.app import DshApp


def text_changed(app: DshApp, area: TextArea) -> None:
    """The prompt's text or cursor moved: the menus and the mention chips follow."""
    if not isinstance(area, PromptArea):
        return
    follow_text_area(app.query_one(MentionMenu), area)
    app.query_one(CommandMenu).typed = area.text
    area.show_mentions()


def can_complete(app: DshApp) -> bool:
    """Tab completes a slash command; while the `@` menu is open the prompt takes Tab itself
    (tui/widgets/prompt/prompt.py), in order with the Up and Down typed before it."""
    if app.query_one(MentionMenu).is_open:
        return False
    return app.query_one(CommandMenu).completion() is not None


def complete(app: DshApp) -> None:
    completion = app.query_one(CommandMenu).tab_completion()
    if completion is not None:
        app.query_one(PromptArea).load(completion)


def submit(app: DshApp, prompt: PromptArea, text: str) -> None:
    """Queue the prompt: it is sent once the session is ready and no turn runs, so what is
    typed before the agent answers, or during a turn, is never lost. `!command` runs at once
    on this machine instead, never sent; `!` alone does nothing."""
    text = text.strip()
    if not text:
        if app.controller.permissions:
            # Enter is never an answer: say where the question's keys are.
            app.notify("A question is open: Tab gives it the keys (a allow, r reject).")
        return
    if conversation_tools.client_command(app, text):  # `/export`, `/new`: never sent
        prompt.clear()
        app.history.add(text)
        return
    command = shell_command(text)
    if command == "":
        return
    if command is not None and app.controller.session is None:
        # Kept in the prompt, not queued: a command runs when asked, or not at all.
        app.notify("Not connected yet: a ! command runs once the session is open.")
        return
    prompt.clear()
    app.history.add(text)
    app.hide_welcome()
    app.transcript.jump_to_end()  # what is sent shows, however far back the user was reading
    if command is None:
        app.controller.submit_prompt(text)
        return
    app.run_worker(app.controller.shells.run(command), group="user-shell")


def edit_in_editor(app: DshApp) -> None:
    """Ctrl+X Ctrl+E: suspend the app, edit the draft in the user's editor, and put what was
    saved back in the prompt (tui/prompt/external_editor.py). A failed editor leaves the draft as it
    was and says why."""
    from textual.app import SuspendNotSupported

    from tui.prompt.external_editor import edit_text

    prompt = app.query_one(PromptArea)
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
