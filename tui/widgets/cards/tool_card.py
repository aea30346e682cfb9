"""The tool-call card: header (kind icon, title, status) and a body chosen by content type.

The body's parts are chosen in tui/widgets/cards/body.py, the header's words are in
tui/widgets/cards/header.py, the terminal panes' wiring in tui/widgets/cards/terminal.py, the
Markdown of text parts in tui/widgets/cards/markdown.py, long text in tui/widgets/cards/text.py.
"""

from __future__ import annotations

import logging
from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import ComposeResult, RenderResult
from textual.widget import Widget
from textual.widgets import Static

from tui.diff import line_numbers
from tui.state import ToolCallEntry
from tui.terminal.terminals import TerminalManager
from tui.widgets.cards.body import TEXT_MAX_ROWS as TEXT_MAX_ROWS  # re-exported
from tui.widgets.cards.body import Segment, body_segments, is_inline
from tui.widgets.cards.body import raw_json as raw_json  # re-exported for permission.py
from tui.widgets.cards.header import KIND_ICONS as KIND_ICONS  # re-exported for permission.py
from tui.widgets.cards.header import header_text, shown_status
from tui.widgets.cards.markdown import CardMarkdown, card_markdown
from tui.widgets.cards.terminal import (
    make_pane,
    pane_agent_durations,
    pane_clock,
    shows_terminal,
    sync_pane,
)
from tui.widgets.cards.text import CardText
from tui.widgets.diff.panel import DiffPanel
from tui.widgets.terminal.pane import TerminalPane

log = logging.getLogger(__name__)

DIFF_MAX_ROWS = 24


class ToolCard(Widget):
    """One card per tool call id. Updates touch only the part whose field changed.

    The face is the header plus a short text body. Most cards are only that, and then the card
    renders the face itself: one widget, where every widget costs a task, a style pass on mount
    and on each status change, and a place in every layout pass. A card that needs a diff, a
    terminal or long text becomes a container: the face moves into a child, the parts follow.
    """

    DEFAULT_CSS = """
    ToolCard {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $panel-lighten-2;
    }
    ToolCard.-failed { border: round $error; }
    ToolCard.-completed { border: round $success-darken-2; }
    ToolCard > .card-face { height: auto; }
    ToolCard > .card-text { height: auto; }
    ToolCard > DiffPanel, ToolCard > TerminalPane { margin-top: 1; }
    ToolCard.-collapsed > .card-body { display: none; }
    """

    def __init__(
        self, entry: ToolCallEntry, cwd: Path, terminals: TerminalManager | None = None
    ) -> None:
        super().__init__()
        self.entry = entry
        self.cwd = cwd
        self.terminals = terminals
        self.spinner_frame: int | None = None
        self._header = Text()  # built at compose, from the entry as it is by then
        # The face's short text: its Markdown source and the renderable built from it.
        self._inline_source: str | None = None
        self._inline: CardMarkdown | Text | None = None
        # The face's own widget, once the card holds other parts.
        self._face: Static | None = None
        # Body widgets by segment key, mounted only once there is something to show.
        self._parts: dict[str, Widget] = {}
        self._sources: dict[str, object] = {}
        # Diff placement: files read for anchoring, per phase (before / after the edit).
        self._files: dict[str, line_numbers.WorkspaceFiles] = {}
        self._anchorings: dict[object, line_numbers.Anchoring] = {}
        self.permission_asked = False
        self._unknown_terminals: set[str] = set()  # logged once each
        self._composed = False
        self._ready = False

    def compose(self) -> ComposeResult:
        self._composed = True
        # Built from the entry as it is now, not when the card was queued, so on_mount finds
        # nothing to change and no second layout pass is needed.
        self._set_header()
        segments = self._split_inline(body_segments(self.entry, self._knows_terminal))
        if segments:
            yield self._make_face()
            for segment in segments:
                yield self._make_part(segment)

    def render(self) -> RenderResult:
        if self._face is None:
            return self._face_content()
        return super().render()

    def _make_face(self) -> Static:
        self._face = Static(self._face_content(), classes="card-face")
        return self._face

    def on_mount(self) -> None:
        # `is_mounted` only turns true after this handler; track readiness ourselves.
        self._ready = True
        self.refresh_fields(frozenset({"title", "status", "content", "terminal"}))

    def refresh_fields(self, fields: frozenset[str]) -> None:
        if not self._ready:
            return  # on_mount refreshes everything from the entry
        self.sync_status_classes()
        face_changed = False
        if fields & {"title", "kind", "status", "locations", "permission", "terminal"}:
            face_changed = self._set_header()
        if fields & {"content", "raw_input", "raw_output", "status", "terminal", "locations"}:
            face_changed = self._refresh_body() or face_changed
        if face_changed:
            self._update_face()
        if "terminal" in fields and self.entry.terminal is not None:
            self.entry.terminal.changed()  # its exit or markers: the pane following it looks
        if fields & {"status", "permission", "terminal"}:
            for pane in self._panes():
                sync_pane(self.entry, pane)

    def _panes(self) -> list[TerminalPane]:
        return [part for part in self._parts.values() if isinstance(part, TerminalPane)]

    def sync_status_classes(self) -> None:
        """Colour the border by status. Called before mounting too, so the style pass that
        mounting does already sees the final status instead of running a second time."""
        update = self._ready
        status = shown_status(self.entry)
        self.set_class(status == "failed", "-failed", update=update)
        self.set_class(status == "completed", "-completed", update=update)

    def show_terminal_output(self) -> None:
        """Display-terminal output came (`_meta.terminal_output`): the pane following the
        terminal has it already; a terminal that output named first gets its pane now."""
        terminal = self.entry.terminal
        if terminal is None or not self._composed:
            return  # compose builds the pane
        if f"term:{terminal.terminal_id}" not in self._parts and self._refresh_body():
            self._update_face()

    def _split_inline(self, segments: list[Segment]) -> list[Segment]:
        """Take a leading short text segment into the face (rebuilt only when its source
        changed); return the segments that need widgets of their own."""
        if segments and is_inline(segments[0]):
            first, segments = segments[0], segments[1:]
            if first.markdown != self._inline_source:
                self._inline_source = first.markdown
                self._inline = card_markdown(first.markdown, self)
        elif self._inline_source is not None:
            self._inline_source = None
            self._inline = None
        return segments

    def _refresh_body(self) -> bool:
        """Bring the body widgets in line with the entry; True when the face's text changed."""
        before = self._inline_source
        segments = self._split_inline(body_segments(self.entry, self._knows_terminal))
        keys = [segment.key for segment in segments]
        for key in [key for key in self._parts if key not in keys]:
            self._parts.pop(key).remove()
            self._sources.pop(key, None)
        if segments and self._face is None:
            # The card becomes a container: the face moves into its own widget, first.
            self.mount_all([self._make_face(), *map(self._make_part, segments)])
            return self._inline_source != before
        previous: Widget | None = self._face
        for segment in segments:
            part = self._parts.get(segment.key)
            if part is None:
                part = self._make_part(segment)
                self.mount(part, after=previous)
            else:
                self._update_part(segment, part)
            previous = part
        return self._inline_source != before

    def _face_content(self) -> Text | Group:
        if self._inline is None or self.collapsed:
            return self._header
        if isinstance(self._inline, Text):
            # One Text measures its height by wrapping; a Group has to be rendered for it.
            return Text("\n").join([self._header, self._inline])
        return Group(self._header, self._inline)

    def _update_face(self, layout: bool = True) -> None:
        if self._face is None:
            self.refresh(layout=layout)
        else:
            self._face.update(self._face_content(), layout=layout)

    def _knows_terminal(self, terminal_id: str) -> bool:
        known = self.terminals is not None and shows_terminal(
            self.entry, terminal_id, self.terminals
        )
        if not known and terminal_id not in self._unknown_terminals:
            self._unknown_terminals.add(terminal_id)
            log.warning(
                "tool call %r names unknown terminal %r", self.entry.tool_call_id, terminal_id
            )
        return known

    def _make_part(self, segment: Segment) -> Widget:
        part: Widget
        if segment.terminal_id is not None:
            part = self._make_pane(segment.terminal_id)
        elif segment.key == "diff":
            anchoring = self.anchoring()
            part = DiffPanel(segment.diffs, self.cwd, anchoring=anchoring, max_height=DIFF_MAX_ROWS)
            self._sources[segment.key] = (segment.diffs, anchoring)
        else:
            # Long text (a console fallback of a noisy command) scrolls inside the card.
            part = CardText(segment.markdown, tail=self.entry.kind == "execute")
            self._sources[segment.key] = segment.markdown
        part.add_class("card-body")
        self._parts[segment.key] = part
        return part

    def anchoring(self) -> line_numbers.Anchoring:
        """How this card's diff blocks without `_meta` lines are placed in their files.

        One per phase and set of locations, so a panel re-places its blocks when the call
        completes (find `newText` now) even if the content did not change; the files read
        are cached per card and phase (`tui.diff.line_numbers`). The permission panel shares it.
        """
        phase = line_numbers.card_phase(self.entry.status, self.permission_asked)
        locations = tuple((loc.path, loc.line) for loc in self.entry.locations)
        key = (phase, locations)
        found = self._anchorings.get(key)
        if found is None:
            group = "after" if phase == "after" else "before"
            files = self._files.get(group)
            if files is None:
                files = self._files[group] = (
                    line_numbers.NoFiles()
                    if self.entry.wire_only
                    else line_numbers.WorkspaceFiles(line_numbers.roots_of(self.app, self.cwd))
                )
            found = self._anchorings[key] = line_numbers.Anchoring(phase, files, locations)
        return found

    def note_permission_asked(self) -> None:
        """A permission question for this call opened: the edit is surely not applied yet, so
        `oldText` on disk places the blocks. It stays so until the call completes: the file
        read while the question was open is the one before the edit."""
        if not self.permission_asked:
            self.permission_asked = True
            if self._ready and self._refresh_body():
                self._update_face()

    def _update_part(self, segment: Segment, part: Widget) -> None:
        if isinstance(part, DiffPanel):
            anchoring = self.anchoring()
            if self._sources.get(segment.key) != (segment.diffs, anchoring):
                part.set_items(segment.diffs, anchoring)
                self._sources[segment.key] = (segment.diffs, anchoring)
            return
        if self._sources.get(segment.key) == segment.markdown:
            return
        if isinstance(part, CardText):
            part.update(segment.markdown)
            self._sources[segment.key] = segment.markdown

    def _make_pane(self, terminal_id: str) -> TerminalPane:
        return make_pane(
            self.entry,
            terminal_id,
            self.cwd,
            self.terminals,
            clock=pane_clock(self.app),
            agent_durations=pane_agent_durations(self.app),
        )

    def _set_header(self) -> bool:
        """Rebuild the header text; True when it changed."""
        header = header_text(self.entry, self.cwd, self.spinner_frame, self.collapsed)
        if header == self._header:
            return False
        self._header = header
        return True

    def tick(self, frame: int) -> None:
        """Advance the running spinners, the card's and its panes'; called by one app-wide
        timer, never a timer per card or pane."""
        for pane in self._panes():
            pane.tick(frame)
        if self.entry.status == "in_progress":
            self.spinner_frame = frame
            if self._set_header():
                # Only the spinner glyph changed: repaint without a layout pass.
                self._update_face(layout=False)

    def toggle_collapsed(self) -> None:
        self.toggle_class("-collapsed")
        self._set_header()
        self._update_face()

    @property
    def collapsed(self) -> bool:
        return self.has_class("-collapsed")

    def on_click(self, event: events.Click) -> None:
        # The header's rows (title and locations) toggle; a click in the text does not.
        target = event.widget
        if target is None:
            return
        offset = event.get_content_offset(target)
        on_face = target is self or target is self._face
        if on_face and offset is not None and offset.y < len(self._header.split("\n")):
            self.toggle_collapsed()
