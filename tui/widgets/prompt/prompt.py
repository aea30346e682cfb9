"""The prompt: a multi-line input where Enter sends and a modified Enter adds a line.

A TextArea, not an Input, so that a pasted block keeps every line and the box grows with
what is typed (up to MAX_LINES, then it scrolls). Up on the first line and Down on the last
recall earlier prompts; Up on an empty prompt first takes back the newest queued prompt.
While the slash-command menu is open, Up and Down move its highlight instead, and Enter takes
the highlighted command (it sends once the prompt is exactly that command). The `@` menu
(tui/widgets/prompt/mention_menu.py) comes first: while it is open, Up, Down and Enter are its own.
The border's subtitle lists the prompt's mentions as chips, `@src/app.py`: what will be attached.
Ctrl+U clears the whole draft (Ctrl+Z brings it back); Ctrl+X then Ctrl+E asks the app to edit
the draft in `$EDITOR` (Ctrl+X alone still cuts: at once with a selection, else the line once the
next key shows it was not the chord).

Whatever enters the prompt (keys, a paste, a completed path, a recalled or queued prompt) is
cleaned as agent prose is, on its way into the document: a TextArea draws its text to the
terminal as it is, and a pasted or recalled escape sequence would act on it. The chips are
plain content, never markup: a path may hold `[@click=app.quit]`.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from tui.prompt.history import PromptHistory
from tui.prompt.mentions.parse import find_mentions
from tui.sanitize import clean_prose
from tui.widgets.prompt.command_menu import CommandMenu
from tui.widgets.prompt.mention_menu import MentionMenu, apply_to_text_area

# Keys that insert a newline. Shift+Enter only reaches the app from terminals that report it
# (the kitty keyboard protocol, which Textual asks for); Ctrl+J works everywhere.
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j", "alt+enter"})
MAX_LINES = 8
KEYS_HINT = "enter send · ctrl+j or shift+enter new line · up history"
CLEAR_KEY = "ctrl+u"
CHORD_KEYS = ("ctrl+x", "ctrl+e")
CHORD_HINT = "ctrl+x … (ctrl+e: edit in $EDITOR)"


class PromptArea(TextArea):
    DEFAULT_CSS = f"""
    PromptArea {{
        height: auto;
        min-height: 3;
        max-height: {MAX_LINES + 2};
        border: round $primary;
        padding: 0 1;
        background: $surface;
    }}
    PromptArea:focus {{ border: round $primary; }}
    PromptArea:blur {{ border: round $primary 40%; border-title-color: $text-muted; }}
    PromptArea:disabled {{ border: round $panel-lighten-2; }}
    """
    BINDINGS = [
        # The transcript pages from the prompt: the prompt keeps focus while reading back.
        Binding("pageup", "app.page_transcript(-1)", "Scroll up", show=False),
        Binding("pagedown", "app.page_transcript(1)", "Scroll down", show=False),
    ]

    class Submitted(Message):
        """Enter was pressed: the app decides whether to send or queue the text."""

        def __init__(self, prompt: PromptArea, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

        @property
        def control(self) -> PromptArea:
            return self.prompt

    class EndRequested(Message):
        """End on an empty prompt: go to the transcript's end and follow it again."""

    class EditorRequested(Message):
        """Ctrl+X Ctrl+E: the app edits the draft in the user's editor."""

    def __init__(
        self,
        history: PromptHistory,
        take_queued: Callable[[], str | None] | None = None,
        *,
        placeholder: str = "",
        menu: CommandMenu | None = None,
        mention_menu: MentionMenu | None = None,
        on_submit: Callable[[PromptArea, str], None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=placeholder,
            highlight_cursor_line=False,
            id=id,
        )
        self.prompt_history = history
        self.take_queued = take_queued
        self.command_menu = menu
        self.mention_menu = mention_menu
        self.chord_pending = False
        # Called at the Enter itself, not from a message: keys that came in the same read as
        # the Enter are already queued to this widget, and a Submitted message handled after
        # them would find the next prompt's first letters typed onto this one.
        self.on_submit = on_submit
        # Where the cursor was left after a completed `@` path and its space (see take_mention).
        self._space_after_mention: tuple[int, int] | None = None
        # Printable keys that are the app's now, not text: Alt+digit is the character macOS's
        # Option+digit types, and switches tabs while there are several (tui/tabbed_app.py).
        self.yielded_keys: frozenset[str] = frozenset()

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return key not in self.yielded_keys and super().check_consume_key(key, character)

    def on_focus(self) -> None:
        self.border_title = None

    def on_blur(self) -> None:
        # Where the keys went is not always visible (the transcript, say): the prompt says
        # that they are elsewhere, and that typing brings them back (tui/key_routing.py).
        if not self.disabled:
            self.border_title = "keys elsewhere · type to come back"

    def edit(self, edit: Edit) -> EditResult:
        """Every change of the text comes here: what it inserts is cleaned first."""
        edit.text = clean_prose(edit.text)
        return super().edit(edit)

    def load_text(self, text: str) -> None:
        super().load_text(clean_prose(text))

    def load(self, text: str) -> None:
        """Replace the text and put the cursor at its end, as recall does."""
        self.text = text
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        if self._editing_key(event):
            event.stop()
            event.prevent_default()
            return
        after_mention, self._space_after_mention = self._space_after_mention, None
        if event.key == "space" and after_mention == self.cursor_location:
            event.stop()
            event.prevent_default()
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            if self.take_command():
                return
            self.submit()
            return
        if self._mention_key(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            start, end = self.selection
            self.replace("\n", start, end, maintain_selection_offset=False)
            return
        await super()._on_key(event)

    def _editing_key(self, event: events.Key) -> bool:
        """Ctrl+U and the Ctrl+X Ctrl+E chord; True when the key was used up here."""
        if self.chord_pending:
            self.chord_pending = False
            self.border_title = None
            if event.key == CHORD_KEYS[1]:
                self.post_message(self.EditorRequested())
                return True
            self.action_cut()  # not the chord: the Ctrl+X held back cuts the line, as it would
        if event.key == CLEAR_KEY:
            self.clear()  # one edit: Ctrl+Z undoes it
            return True
        if event.key == CHORD_KEYS[0] and self.selection.start == self.selection.end:
            self.chord_pending = True
            self.border_title = CHORD_HINT
            return True
        return False

    def submit(self) -> None:
        """The text goes to `on_submit` now (or as a Submitted message, for a host without)."""
        if self.on_submit is not None:
            self.on_submit(self, self.text)
        else:
            self.post_message(self.Submitted(self, self.text))

    def take_command(self) -> bool:
        """Enter with the command menu open: the highlighted command replaces the `/prefix`.
        Not when the prompt already is that command: then Enter sends it. With the `@` menu
        open, Enter takes its highlighted path instead."""
        if self.take_mention():
            return True
        menu = self.command_menu_now()
        completion = menu.completion() if menu is not None else None
        if completion is None or completion.rstrip() == self.text:
            return False
        self.load(completion)
        return True

    def command_menu_now(self) -> CommandMenu | None:
        """The command menu, told the text as it is now: the keys of one burst (the rest of a
        command line, then Enter or Tab) reach the prompt before the Changed messages that
        tell the menu, which would still offer the command their first letters began."""
        menu = self.command_menu
        if menu is not None:
            menu.typed = self.text
        return menu

    def _mention_key(self, key: str) -> bool:
        """Up, Down and Tab while the `@` menu is open, handled here as keys, not as bindings:
        a binding runs once the key has bubbled back up to the app, after a Tab typed just
        behind it, which would then take the path the highlight was leaving."""
        menu = self.mention_menu
        if menu is None or not menu.is_open or key not in ("up", "down", "tab"):
            return False
        if key == "tab":
            return self.take_mention()
        menu.move(-1 if key == "up" else 1)
        return True

    def take_mention(self) -> bool:
        """The `@` menu's highlighted path in place of the mention being typed, if it is open."""
        if self.mention_menu and (taken := self.mention_menu.take()):
            apply_to_text_area(self, *taken)
            text, cursor = taken
            if text[cursor - 1 : cursor] == " ":
                # The completion ends the mention with a space: a space typed next is that one.
                self._space_after_mention = self.cursor_location
            return True
        return False

    def show_mentions(self) -> None:
        """The mentions in the text as chips on the border: what the prompt will attach."""
        chips = [f"@{mention.path}" for mention in find_mentions(self.text)]
        self.border_subtitle = Content(" ".join(dict.fromkeys(chips)))

    def _menu_move(self, delta: int, select: bool) -> bool:
        if not select and self.mention_menu and self.mention_menu.is_open:
            self.mention_menu.move(delta)
            return True
        menu = self.command_menu_now()
        if select or menu is None or not menu.is_open:
            return False
        menu.move(delta)
        return True

    def action_cursor_up(self, select: bool = False) -> None:
        if self._menu_move(-1, select):
            return
        if not select and self.cursor_at_first_line:
            queued = self.take_queued() if self.take_queued and not self.text else None
            recalled = queued if queued is not None else self.prompt_history.previous(self.text)
            if recalled is not None:
                self.load(recalled)
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if self._menu_move(1, select):
            return
        if not select and self.cursor_at_last_line:
            recalled = self.prompt_history.next()
            if recalled is not None:
                self.load(recalled)
                return
        super().action_cursor_down(select)

    def action_cursor_line_end(self, select: bool = False) -> None:
        if not select and not self.text:
            self.post_message(self.EndRequested())
            return
        super().action_cursor_line_end(select)
