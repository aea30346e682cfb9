"""The inline permission prompt: the tool call, a preview of what it does, the agent's options."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from tui.diff import line_numbers
from tui.diff.diffing import DiffContent
from tui.diff.text import relative_path
from tui.permissions import PendingPermission
from tui.sanitize import sanitize_text
from tui.state import block_text
from tui.terminal.labels import display_cwd
from tui.widgets.cards.tool_card import KIND_ICONS, ToolCard, raw_json
from tui.widgets.diff.panel import DiffPanel

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import FileEditToolCallContent

PREVIEW_LINES = 8
# Below this many screen rows the panel is compact: a few preview lines, no spacer row, so a
# question at 80×24 leaves the transcript room (and the plan folds, tui/widgets/transcript/plan.py).
COMPACT_BELOW_ROWS = 30
COMPACT_PREVIEW_LINES = 2  # and a third that says how many more
# The agent's option kinds in a word each, for an options row too narrow for their names.
SHORT_LABELS = {
    "allow_once": "allow",
    "allow_always": "always",
    "reject_once": "reject",
    "reject_always": "never",
}
# How the panel's keys are reached: typing never answers (it goes to the prompt); Tab moves
# the keys to the panel, or a click on an option answers with it.
FOCUS_HINT = "tab answers"


def preview_text(
    request: PendingPermission,
    cwd: Path,
    card_content: list[Any],
    *,
    title: str | None = None,
    terminal_cwd: str | None = None,
    max_lines: int = PREVIEW_LINES,
) -> Text:
    """At most `max_lines` lines of what the call carries: diffs first, else text or input.

    Agents often send the request without content, since the card already has it; the
    card's content (`card_content`) is shown then. A terminal is shown as the command it
    runs (the call's `title`, as its pane names it) and where, if not in the session
    directory (`terminal_cwd`): its id is the agent's handle, nothing to decide on.
    """
    from acp.schema import ContentToolCallContent, FileEditToolCallContent, TerminalToolCallContent

    lines: list[tuple[str, str]] = []
    for item in request.tool_call.content or card_content:
        if isinstance(item, FileEditToolCallContent):
            badge = " (new file)" if item.old_text is None else ""
            lines.append((relative_path(item.path, cwd) + badge, "bold"))
            for old in (item.old_text or "").splitlines():
                lines.append(("- " + old, "red"))
            for new in item.new_text.splitlines():
                lines.append(("+ " + new, "green"))
        elif isinstance(item, ContentToolCallContent):
            lines += [(line, "") for line in block_text(item.content).splitlines()]
        elif isinstance(item, TerminalToolCallContent):
            where = display_cwd(terminal_cwd, cwd)
            command = title or request.tool_call.title
            if command:
                lines.append((f"❯ {command}" + (f"   in {where}" if where else ""), "bold"))
            elif where:
                lines.append((f"runs in {where}", "dim"))
    if not lines and request.tool_call.raw_input is not None:
        lines += [(line, "dim") for line in raw_json(request.tool_call.raw_input).splitlines()]
    text = Text()
    for line, style in lines[:max_lines]:
        text.append(sanitize_text(line)[:500] + "\n", style=style)
    if len(lines) > max_lines:
        text.append(f"… {len(lines) - max_lines} more lines", style="dim italic")
    text.rstrip()
    return text or Text("(no preview)", style="dim")


def diff_items(
    request: PendingPermission, card_content: list[Any]
) -> list[FileEditToolCallContent]:
    from acp.schema import FileEditToolCallContent

    content = request.tool_call.content or card_content
    return [item for item in content if isinstance(item, FileEditToolCallContent)]


class OptionsRow(Static):
    """The panel's keys on one row: the agent's option names when they fit, else a word for
    each, cut with an ellipsis only as a last resort. Never wrapped: a second row would be
    taken from the transcript. A click on an option chooses it."""

    def __init__(self, panel: PermissionPanel, *, classes: str) -> None:
        super().__init__(classes=classes)
        self.panel = panel
        self._spans: list[tuple[int, int, str]] = []

    def render(self) -> Text:
        spans: list[tuple[int, int, str]] = []
        text = self.panel.options_text(spans)
        if text.cell_len > self.size.width:
            spans = []
            text = self.panel.short_options_text(spans)
        self._spans = spans
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, option_id in self._spans:
            if start <= event.x < end:
                event.stop()
                self.panel.request.choose(option_id)
                return


class PermissionPanel(Vertical, can_focus=True):
    """Above the prompt while open. Typing goes on to the prompt: the option keys answer only
    once the panel has focus (Tab, or a click), and a click on an option answers with it.
    Esc cancels the turn (session/cancel, and every open question answered cancelled)."""

    DEFAULT_CSS = """
    PermissionPanel {
        height: auto;
        max-height: 16;
        margin: 0;
        padding: 0 1;
        border: round $warning 60%;
        border-title-color: $warning;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
    }
    PermissionPanel:focus {
        border: heavy $warning;
        background-tint: $warning 8%;
        border-subtitle-color: $warning;
        border-subtitle-style: bold;
    }
    PermissionPanel > .preview { color: $text; height: auto; max-height: 9; }
    PermissionPanel > DiffPanel.preview { background: $surface; }
    PermissionPanel > .options { margin-top: 1; height: 1; }
    PermissionPanel.-compact > .options { margin-top: 0; }
    """

    # Esc cancels the turn, as everywhere else: the spec defines the `cancelled` outcome as
    # "the turn was cancelled", so answering it without session/cancel would tell the agent
    # something that did not happen. Rejecting only this call is the agent's reject option.
    BINDINGS = [("escape", "app.cancel_turn", "Cancel turn")]

    class ReviewRequested(Message):
        def __init__(self, panel: PermissionPanel, request: PendingPermission) -> None:
            super().__init__()
            self.panel = panel
            self.request = request

        @property
        def control(self) -> PermissionPanel:
            return self.panel

    def __init__(
        self,
        request: PendingPermission,
        cwd: Path,
        card_content: list[Any] | None = None,
    ) -> None:
        super().__init__()
        self.request = request
        self.cwd = cwd
        self.card_content = card_content or []
        self._anchoring: line_numbers.Anchoring | None = None
        kind = request.tool_call.kind or "other"
        # Already one safe line (tui/agent_text.py); Content, because a str border title is
        # parsed as markup, and `[@click=app.quit]` in a tool title would be a live action.
        # The call id is the agent's handle, not a name: without a title the card's title
        # (found at compose) or the kind stands in.
        title = request.tool_call.title or kind
        self.border_title = Content(f"Permission · {KIND_ICONS.get(kind, '•')} {title}")
        self.border_subtitle = FOCUS_HINT

    def on_focus(self) -> None:
        self.border_subtitle = "keys answer · tab back to the prompt"
        self.query_one(OptionsRow).refresh()

    def on_blur(self) -> None:
        self.border_subtitle = FOCUS_HINT
        self.query_one(OptionsRow).refresh()

    @property
    def compact(self) -> bool:
        """A short screen: the preview is cut to a few lines and loses its spacer row."""
        return self.app.size.height < COMPACT_BELOW_ROWS

    def compose(self) -> ComposeResult:
        compact = self.compact
        self.set_class(compact, "-compact")
        preview_lines = COMPACT_PREVIEW_LINES if compact else PREVIEW_LINES
        items = self.review_items()
        if items:
            # The same panel as the card and the review screen: the same line numbers and
            # the same `‹`/`›` marks for lines wider than the panel. Keys stay with the prompt.
            preview = DiffPanel(
                items,
                self.cwd,
                anchoring=self.anchoring,
                max_height=preview_lines + 1,
                view="unified",
                classes="preview",
            )
            preview.can_focus = False
            yield preview
        else:
            card = self._card()
            title = self.request.tool_call.title or (card.entry.title if card else None)
            terminal = card.entry.terminal if card is not None else None
            text = preview_text(
                self.request,
                self.cwd,
                self.card_content,
                title=title,
                terminal_cwd=terminal.cwd if terminal is not None else None,
                max_lines=preview_lines,
            )
            if title and not self.request.tool_call.title:
                kind = self.request.tool_call.kind or "other"
                self.border_title = Content(f"Permission · {KIND_ICONS.get(kind, '•')} {title}")
            yield Static(text, classes="preview")
        yield OptionsRow(self, classes="options")

    def _card(self) -> ToolCard | None:
        call_id = self.request.tool_call.tool_call_id
        # Its own session's card: another tab's agent can use the same tool call ids.
        root = self.query_ancestor(".session-pane")
        for card in root.query(ToolCard):
            if card.entry.tool_call_id == call_id:
                return card
        return None

    @property
    def anchoring(self) -> line_numbers.Anchoring:
        """The card's placement of its diff blocks, told that a question is open; a panel
        for a call without a card on screen places them on its own, the same way."""
        cached = self._anchoring
        if cached is None:
            card = self._card()
            if card is not None:
                card.note_permission_asked()
                cached = card.anchoring()
            else:
                files = (
                    line_numbers.NoFiles()
                    if self._wire_only()
                    else line_numbers.WorkspaceFiles(line_numbers.roots_of(self.app, self.cwd))
                )
                cached = line_numbers.Anchoring("before", files)
            self._anchoring = cached
        return cached

    def _wire_only(self) -> bool:
        """Whether the call came from history or a replay (its files are not at hand)."""
        controller = getattr(self.app, "controller", None)
        conversation = getattr(controller, "conversation", None)
        calls = getattr(conversation, "tool_calls", {})
        entry = calls.get(self.request.tool_call.tool_call_id) if isinstance(calls, dict) else None
        return bool(getattr(entry, "wire_only", False)) or bool(
            getattr(conversation, "wire_only", False)
        )

    def review_items(self) -> list[DiffContent]:
        """The request's diff blocks (else the card's), with their `_meta` start lines."""
        return line_numbers.diff_items(self.diff_items())

    def options_text(self, spans: list[tuple[int, int, str]] | None = None) -> Text:
        """The keys with the agent's own option names: `[a] Allow once   [r] Reject ...`,
        after `tab ▸` while the panel does not have the keys. `spans` gets each option's
        cells, for a click."""
        text = self._lead()
        for key, option in self.request.keyed_options:
            style = "green" if option.kind.startswith("allow") else "red"
            start = text.cell_len
            text.append(f"[{key}] ", style=f"bold {style}")
            text.append(option.name)  # one safe line already (tui/agent_text.py)
            if spans is not None:
                spans.append((start, text.cell_len, option.option_id))
            text.append("   ")
        text.append("esc cancel turn", style="dim")
        if diff_items(self.request, self.card_content):
            text.append("   ⏎ full review", style="dim")
        return text

    def short_options_text(self, spans: list[tuple[int, int, str]] | None = None) -> Text:
        """The keys with a word each, for a row too narrow for the names:
        `a allow · A always · r reject · esc cancel`. A kind the spec does not name keeps
        its name."""
        text = self._lead()
        for key, option in self.request.keyed_options:
            style = "green" if option.kind.startswith("allow") else "red"
            start = text.cell_len
            text.append(key, style=f"bold {style}")
            text.append(" " + SHORT_LABELS.get(option.kind, option.name))
            if spans is not None:
                spans.append((start, text.cell_len, option.option_id))
            text.append(" · ", style="dim")
        text.append("esc cancel", style="dim")
        if diff_items(self.request, self.card_content):
            text.append(" · ⏎ review", style="dim")
        return text

    def _lead(self) -> Text:
        """`tab ▸ ` while the keys are the prompt's: the option keys are not live yet."""
        if self.has_focus:
            return Text()
        return Text.assemble(("tab", "bold"), (" ▸ ", "dim"))

    def on_key(self, event: events.Key) -> None:
        """Only while the panel has focus: an option's key answers, Enter opens the review.
        Any other printable key goes on to the app, which gives it to the prompt."""
        key = event.character if event.character and event.character.isprintable() else event.key
        if event.key == "enter" and diff_items(self.request, self.card_content):
            self.post_message(self.ReviewRequested(self, self.request))
        else:
            for option_key, option in self.request.keyed_options:
                if key == option_key:
                    self.request.choose(option.option_id)
                    break
            else:
                return
        event.stop()
        event.prevent_default()

    def diff_items(self) -> list[FileEditToolCallContent]:
        return diff_items(self.request, self.card_content)
