"""F1: every key of the app, the app's own bindings read from the app plus the prompt's keys."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tui.web_keys import BROWSER_KEEPS, alternative_keys, kept
from tui.widgets.transcript.keys import CONVERSATION_KEYS

# Keys the prompt and the panels handle themselves, not app bindings (docs/client.md, "Keys").
OTHER_KEYS: list[tuple[str, str]] = [
    ("ctrl+p", "the command palette: the app's actions"),
    ("enter", "send the prompt (queued until the agent is ready)"),
    ("ctrl+j / shift+enter", "a new line in the prompt"),
    ("up / down", "earlier prompts of this workspace"),
    ("/ then tab", "complete one of the agent's slash commands"),
    ("@ then tab / enter", "attach a workspace file: choose its path (up / down)"),
    ("!command", "run it here, in the workspace, without the agent; esc kills it"),
    ("ctrl+u", "clear the whole prompt (ctrl+z brings it back)"),
    ("ctrl+x ctrl+e", "edit the prompt in $VISUAL / $EDITOR (vi); it comes back unsent"),
    ("space / . / e", "replaying with --step: next message or tool call, one message, the rest"),
    ("end", "on an empty prompt: the end of the transcript (or click '↓ N new below')"),
    ("tab", "with a permission question open: the question takes the keys; tab again, back"),
    (
        "a / A / r / R",
        "in a question that has the keys (after tab): allow, allow always, reject, reject "
        "always; or click an option. Typing never answers: text goes to the prompt",
    ),
    ("any letter", "wherever focus is, typing goes to the prompt (and focus with it)"),
    ("s / enter", "on a diff: unified or split, the full review"),
    ("click a card title", "collapse or expand the card"),
    ("/ i c enter", "in the traffic inspector: filter, initialize, the card, open"),
    ("r / q", "on the 'agent failed' screen: retry or quit"),
]

# Longer words than the footer's for the app's actions.
LONG = {
    "cancel_turn": "cancel the turn and ! commands; queued prompts come back",
    "quit": "quit (the agent is reaped first)",
    "capabilities": "what the client advertised and the agent answered",
    "next_mode": "the agent's next mode",
    "pick_model": "pick the model",
    "resume": "resume an earlier session",
    "complete_command": "complete the slash command; else give an open question the keys",
    "page_transcript(-1)": "page up through the transcript",
    "page_transcript(1)": "page down through the transcript",
    "transcript_end": "the end of the transcript, followed again",
    "help": "this screen",
    "inspector": "the traffic inspector: every message on the wire",
    "new_tab": "a new tab: another session (which agent, which directory)",
    "close_tab": "close this tab (asks while a turn runs); its agent is stopped",
    "step_tab(1)": "the next tab",
    "step_tab(-1)": "the previous tab",
    "jump_waiting": "the tab whose question has waited longest",
}
# Alt+1…9 are nine bindings, one row here.
TAB_DIGITS = ("alt+1 … alt+9", "tab 1 to 9")

NAMES = {
    "escape": "esc",
    "pageup": "page up",
    "pagedown": "page down",
    "ctrl+pageup": "ctrl+page up",
    "ctrl+pagedown": "ctrl+page down",
    "alt+pageup": "alt+page up",
    "alt+pagedown": "alt+page down",
}


def key_name(key: str) -> str:
    return " / ".join(NAMES.get(part, part) for part in key.split(","))


def binding_rows(bindings: list[BindingType], web: bool = False) -> list[tuple[str, str]]:
    """One row per key: a key bound twice (Esc cancels a turn, or stops a `!` command when no
    turn runs) is described by its first binding's long words, which say both. In a browser,
    a key the browser keeps is followed by its Alt twin (tui/keys.py binds it)."""
    rows = []
    seen: set[str] = set()
    for binding in bindings:
        if isinstance(binding, Binding) and binding.action.startswith("goto_tab("):
            if TAB_DIGITS not in rows:
                rows.append(TAB_DIGITS)
            continue
        if isinstance(binding, Binding) and binding.description and binding.key not in seen:
            seen.add(binding.key)
            twin = alternative_keys(binding.key) if web else None
            keys = binding.key if twin is None else f"{binding.key},{twin}"
            rows.append((key_name(keys), LONG.get(binding.action, binding.description)))
    return rows


def browser_rows(bindings: list[BindingType]) -> list[tuple[str, str]]:
    """What a page does with the keys its browser keeps: which are kept, and whether any action
    of the app needed a twin."""
    plain = ", ".join(key_name(key) for key in BROWSER_KEEPS if "shift" not in key)
    twins = [
        f"{key} → {BROWSER_KEEPS[key]}"
        for binding in bindings
        if isinstance(binding, Binding)
        for key in kept(binding.key)
    ]
    rows = [
        (
            "kept keys",
            f"{plain} and their shift forms: the browser keeps them for its tabs and "
            "windows, they never reach dsh-tui",
        )
    ]
    if twins:
        rows.append(("alt twins", "bound here instead, listed above: " + ", ".join(twins)))
    else:
        rows.append(("", "dsh-tui binds none of them: every key on this screen works here"))
    return rows


def help_table(bindings: list[BindingType], web: bool = False) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    if web:
        table.add_row(Text("In a browser", style="bold underline"), "")
        for key, what in browser_rows(bindings):
            table.add_row(key, what)
        table.add_row("", "")
    table.add_row(Text("App", style="bold underline"), "")
    for key, what in binding_rows(bindings, web):
        table.add_row(key, what)
    table.add_row("", "")
    table.add_row(Text("Prompt and cards", style="bold underline"), "")
    for key, what in OTHER_KEYS:
        table.add_row(key, what)
    table.add_row("", "")
    table.add_row(Text("Conversation tools", style="bold underline"), "")
    for key, what in CONVERSATION_KEYS:
        table.add_row(key, what)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "close", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: round $accent;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    """

    def __init__(self, bindings: list[BindingType], web: bool = False) -> None:
        super().__init__()
        self.bindings_shown = bindings
        self.web = web

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Keys"
            yield Static(help_table(self.bindings_shown, self.web))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
