"""The diff panel: ACP `diff` content as a unified or split, syntax-highlighted Line API view.

One widget draws every line through `render_line`, never a widget per line, and only the rows
on screen are built (`RowLayout.row`), highlighted (per block of lines, cached on the `Doc`)
and drawn (`RowPainter`, in `tui.widgets.diff.render`). The diff itself is computed in a thread
the first time a set of items is seen, then kept in a small least-recently-used cache, so the
`tool_call_update`s that resend a card's content reuse the model, its highlighting and its
intraline ranges.

Long lines scroll horizontally rather than wrap: one row per line keeps `y → row` a lookup
(a 10,000-line file needs no per-line height measuring), keeps the two halves of the split
view aligned, and keeps line numbers next to the line they number.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from textual import events, work
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.diff.diffing import CONTEXT, DiffContent, build_model
from tui.diff.doc import HIGHLIGHT_BLOCK, Doc
from tui.diff.line_numbers import Anchoring
from tui.diff.model import DiffModel
from tui.diff.rows import FileHeaderRow, FoldRow, GapRow, Row, RowLayout, SplitRow
from tui.widgets.diff.render import (
    ASCII_GLYPHS,
    COMPONENTS,
    PANEL_CSS,
    UNICODE_GLYPHS,
    Glyphs,
    RowPainter,
)

__all__ = ["ASCII_GLYPHS", "UNICODE_GLYPHS", "DiffPanel", "Glyphs", "ViewMode"]

ViewMode = Literal["auto", "unified", "split"]

MODEL_CACHE_SIZE = 16
_MODEL_CACHE: LRUCache[tuple[DiffContent, ...], DiffModel] = LRUCache(MODEL_CACHE_SIZE)
"""Built models by their located items: a card's updates resend the same content."""


def _locate(anchoring: Anchoring, items: tuple[DiffContent, ...]) -> tuple[DiffContent, ...]:
    """Place the items in their files (may read them); runs in a worker thread."""
    located = anchoring.resolve(items)
    assert located is not None  # with io allowed, resolve always answers
    return located


def _lex_blocks(blocks: list[tuple[Doc, int]]) -> None:
    for doc, block in blocks:
        doc.spans(block * HIGHLIGHT_BLOCK)


class DiffPanel(ScrollView, can_focus=True):
    """A diff of one or more ACP diff items, grouped into one view per file path.

    `max_height` bounds the widget (it scrolls inside); None lets it grow to its content,
    or fill its container when the CSS gives it a height (as the review screen does).
    """

    DEFAULT_CSS = PANEL_CSS
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"diff-panel--{name}" for name in COMPONENTS}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "toggle_view", "Split/unified"),
        Binding("enter", "expand", "Expand folded lines", show=False),
        Binding("e", "expand_all", "Expand all", show=False),
        Binding("n", "next_change", "Next change", show=False),
        Binding("p", "previous_change", "Previous change", show=False),
    ]

    AUTO_SPLIT_WIDTH: ClassVar[int] = 140
    """In "auto" view, the split view is used from this many columns."""

    view: var[ViewMode] = var[ViewMode]("auto")
    """"auto" picks split when wide enough; "unified" and "split" force one."""

    def __init__(
        self,
        items: Sequence[DiffContent],
        cwd: Path,
        *,
        anchoring: Anchoring | None = None,
        max_height: int | None = None,
        view: ViewMode | None = None,
        glyphs: Glyphs = UNICODE_GLYPHS,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._items: tuple[DiffContent, ...] = tuple(items)
        self._anchoring = anchoring
        located = self._located_now()
        self._model: DiffModel | None = None if located is None else _MODEL_CACHE.get(located)
        self._expanded: frozenset[int] = frozenset()
        self._layout: RowLayout | None = None
        self._hover: int | None = None
        self._failed = False
        self._ready = asyncio.Event()
        self._unlexed: set[tuple[Doc, int]] = set()
        self._lexing = False
        self._painter = RowPainter(self, glyphs, cwd, self._lex_later)
        # None: the view the user chose last (the app's `diff_view`, kept between runs).
        self._view_given = view is not None
        self.set_reactive(DiffPanel.view, view or "auto")
        if max_height is not None:
            self.styles.max_height = max_height

    # -- public API ------------------------------------------------------------------------

    @property
    def cwd(self) -> Path:
        """The session directory: paths inside it are shown relative to it."""
        return self._painter.cwd

    @property
    def glyphs(self) -> Glyphs:
        return self._painter.glyphs

    @property
    def items(self) -> tuple[DiffContent, ...]:
        """The items as given (before anchoring)."""
        return self._items

    @property
    def anchoring(self) -> Anchoring | None:
        """How items without start lines are placed in their files (`tui.diff.line_numbers`)."""
        return self._anchoring

    def _located_now(self) -> tuple[DiffContent, ...] | None:
        """The items with their start lines, if that needs no file read; else None."""
        if self._anchoring is None:
            return self._items
        return self._anchoring.resolve(self._items, io=False)

    @property
    def model(self) -> DiffModel | None:
        """The diff being shown, or None while the first build runs."""
        return self._model

    @property
    def is_split(self) -> bool:
        """Whether the split view is showing (resolving "auto" against the current width)."""
        return self._split_at(self.size.width)

    @property
    def can_split(self) -> bool:
        """False when every file is new: with no old side, half a split view is hatching."""
        return not all(self._new_files().values())

    def _new_files(self) -> dict[str, bool]:
        """Each path shown, and whether it is a new file (no item with an old side)."""
        new: dict[str, bool] = {}
        for item in self._items:
            new[item.path] = new.get(item.path, True) and item.old_text is None
        return new

    def _split_at(self, width: int) -> bool:
        """A new file is never split: a panel of only new files stays unified, and "auto"
        splits only when no file in the panel is new; "split" splits the edited files."""
        new = self._new_files()
        if all(new.values()):
            return False
        if self.view == "auto":
            return width >= self.AUTO_SPLIT_WIDTH and not any(new.values())
        return self.view == "split"

    def set_items(self, items: Sequence[DiffContent], anchoring: Anchoring | None = None) -> None:
        """Show new items in place. Free when unchanged; cached models apply at once.

        A new `anchoring` (the card's call completed, say) places the same items again.
        """
        new = tuple(items)
        if new == self._items and anchoring is self._anchoring:
            return
        self._items = new
        self._anchoring = anchoring
        located = self._located_now()
        cached = None if located is None else _MODEL_CACHE.get(located)
        if not self.is_mounted:
            self._model = cached  # on_mount applies it, or builds
        elif cached is not None:
            self._apply(cached)
        else:
            self._ready.clear()
            self._build(new, anchoring)

    async def wait_ready(self) -> None:
        """Wait until the current items are diffed and laid out."""
        await self._ready.wait()

    # -- lifecycle -------------------------------------------------------------------------

    def on_mount(self) -> None:
        preferred = getattr(self.app, "diff_view", None)
        if not self._view_given and preferred in ("unified", "split"):
            self.set_reactive(DiffPanel.view, preferred)
        if self._model is not None:
            self._apply(self._model)
        else:
            self._relayout()
            self._build(self._items, self._anchoring)

    def _current(self, items: tuple[DiffContent, ...], anchoring: Anchoring | None) -> bool:
        return items == self._items and anchoring is self._anchoring

    @work(exclusive=True, group="diff-panel")
    async def _build(self, items: tuple[DiffContent, ...], anchoring: Anchoring | None) -> None:
        width, height = self._expected_size()
        split = self._split_at(width)
        try:
            located = (
                items if anchoring is None else await asyncio.to_thread(_locate, anchoring, items)
            )
            model = _MODEL_CACHE.get(located)
            if model is None:
                model = await asyncio.to_thread(build_model, located, split, height)
        except Exception as error:  # a bad diff must not take the app down with it
            self.log.error("diff build failed", error)
            if self._current(items, anchoring):
                self._failed = True
                self._ready.set()
                self.refresh()
            return
        _MODEL_CACHE.set(located, model)
        if self._current(items, anchoring):
            self._apply(model)

    def _expected_size(self) -> tuple[int, int]:
        """The size the panel will have, guessed from the app before the first layout, so the
        build thread highlights what the first paint shows."""
        if self.size.area:
            return self.size.width, self.size.height
        width, height = self.app.size
        max_height = self.styles.max_height
        if max_height is not None and max_height.is_cells:
            height = min(height, int(max_height.value))
        return width, height

    def _apply(self, model: DiffModel) -> None:
        if model is not self._model:
            self._expanded = frozenset()
        self._model = model
        self._failed = False
        self._relayout()
        self._ready.set()

    def _relayout(self) -> None:
        if self._model is None:
            self._layout = None
        else:
            self._layout = RowLayout(self._model, split=self.is_split, expanded=self._expanded)
        self._painter.lines.clear()
        self._hover = None
        self._update_virtual_size()
        self.refresh()

    def watch_view(self) -> None:
        self._relayout()

    def on_resize(self, event: events.Resize) -> None:
        if self._layout is not None and self._layout.split != self.is_split:
            self._relayout()
        else:
            self._painter.lines.clear()
            self._update_virtual_size()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._painter.styles.clear()
        self._painter.lines.clear()

    def on_focus(self) -> None:
        self._painter.styles.clear(tokens=False)
        self.refresh()

    def on_unmount(self) -> None:
        # Widgets sit in reference cycles and wait for a full GC pass; dropping the caches
        # now frees them at once instead of growing that pause.
        self._painter.lines.clear()
        self._layout = None

    def on_blur(self) -> None:
        self._painter.styles.clear(tokens=False)
        self.refresh()

    # -- geometry --------------------------------------------------------------------------

    def _number_width(self) -> int:
        if self._model is None or not self._model.files:
            return 1
        return max(f.number_width for f in self._model.files)

    def _code_width(self) -> int:
        """Columns available to code (per half in the split view)."""
        width = self.size.width
        digits = self._number_width()
        if self._layout is not None and self._layout.split:
            return max(1, (width - 1) // 2 - (digits + 3))
        return max(1, width - (2 * digits + 4))

    def _update_virtual_size(self) -> None:
        rows = 1 if self._layout is None else self._layout.height
        files = () if self._model is None else self._model.files
        widest = max((f.max_width for f in files), default=0)
        overflow = max(0, widest + 1 - self._code_width())
        # Without overflow the width is 0, not the current width: a vertical scrollbar
        # appearing later would otherwise make that width overflow by one column.
        self.virtual_size = Size(self.size.width + overflow if overflow else 0, rows)

    # -- highlighting off the event loop ----------------------------------------------------

    def _lex_later(self, doc: Doc, index: int) -> None:
        """Queue a line's block for the lexing thread; its rows show plain until then."""
        self._unlexed.add((doc, index // HIGHLIGHT_BLOCK))
        if not self._lexing:
            self._lexing = True
            self._lex()  # a worker: it runs once this frame is drawn, and lexes all it queued

    @work(group="diff-highlight")
    async def _lex(self) -> None:
        """Lex queued blocks in a thread, batch after batch, and repaint with their colours.

        A jump to the middle of a big diff needs a few blocks per side (about 5 ms each):
        done on the loop, that would stall it; here the rows appear plain for a moment.
        """
        try:
            while self._unlexed:
                batch = sorted(self._unlexed, key=lambda item: item[1])
                self._unlexed.clear()
                await asyncio.to_thread(_lex_blocks, batch)
                self._painter.lines.clear()
                self.refresh()
        finally:
            self._lexing = False

    # -- rendering -------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        layout = self._layout
        painter = self._painter
        if layout is None:
            if y:
                return Strip.blank(width, self.rich_style)
            path = self._items[0].path if self._items else ""
            return painter.placeholder(path, self._failed, width)
        index = scroll_y + y
        if index >= layout.height:
            return Strip.blank(width, self.rich_style)
        header_y, file = layout.file_at(index)
        sticky = y == 0 and scroll_y > 0 and header_y != index  # the file's header stays on top
        row = FileHeaderRow(file) if sticky else layout.row(index)
        digits = self._number_width()
        if isinstance(row, FileHeaderRow):
            return painter.header(row.file, width, split=layout.split, can_split=self.can_split)
        if isinstance(row, FoldRow):
            hot = index == self._hover or (self.has_focus and index == self._enter_target())
            return painter.fold(row, width, digits=digits, split=layout.split, hot=hot)
        if isinstance(row, GapRow):
            return painter.gap(row, width, digits=digits, split=layout.split)
        if isinstance(row, SplitRow):
            return painter.split_row(row, index, file.new_file, digits, scroll_x, width)
        return painter.line_row(row, index, file.new_file, digits, scroll_x, width)

    # -- interaction -----------------------------------------------------------------------

    def _enter_target(self) -> int | None:
        """The fold row `enter` expands: the first one on screen."""
        if self._layout is None:
            return None
        top = round(self.scroll_y)
        for index in range(top, min(top + self.size.height, self._layout.height)):
            if isinstance(self._layout.row(index), FoldRow):
                return index
        return None

    def _row(self, index: int) -> Row | None:
        if self._layout is None or not 0 <= index < self._layout.height:
            return None
        return self._layout.row(index)

    def _row_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or self._layout is None:
            return None
        if offset.y == 0 and self.scroll_y > 0:
            return None  # the sticky header
        index = round(self.scroll_y) + offset.y
        return index if index < self._layout.height else None

    def _expand(self, index: int | None) -> bool:
        if index is None or self._layout is None:
            return False
        row = self._layout.row(index)
        if not isinstance(row, FoldRow):
            return False
        self._expanded = self._expanded | {row.fold.fold_id}
        self._relayout()
        return True

    def on_click(self, event: events.Click) -> None:
        if self._expand(self._row_at(event)):
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._row_at(event)
        if index is not None and not isinstance(self._row(index), FoldRow):
            index = None
        if index != self._hover:
            self._hover = index
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    class ViewChosen(Message):
        """The user switched this panel's view: the app keeps it for the panels to come."""

        def __init__(self, view: ViewMode) -> None:
            super().__init__()
            self.view = view

    def action_toggle_view(self) -> None:
        self.view = "unified" if self.is_split else "split"
        self.post_message(self.ViewChosen(self.view))

    def action_expand(self) -> None:
        self._expand(self._enter_target())

    def action_expand_all(self) -> None:
        if self._model is not None and self._model.fold_count:
            self._expanded = frozenset(range(self._model.fold_count))
            self._relayout()

    def _jump(self, forward: bool) -> None:
        if self._layout is None:
            return
        top = round(self.scroll_y)
        # Land each change with its context in view, below the sticky header.
        targets = [max(0, start - CONTEXT - 1) for start in self._layout.change_starts]
        candidates = [t for t in targets if (t > top if forward else t < top)]
        if candidates:
            target = candidates[0] if forward else candidates[-1]
            self.scroll_to(y=target, animate=False)

    def action_next_change(self) -> None:
        self._jump(True)

    def action_previous_change(self) -> None:
        self._jump(False)
