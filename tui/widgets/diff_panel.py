"""The diff panel: ACP `diff` content as a unified or split, syntax-highlighted Line API view.

One widget draws every line through `render_line`, never a widget per line, and only the rows
on screen are built (`RowLayout.row`) and highlighted (per block of lines, cached on the
`Doc`). The diff itself is computed in a thread the first time a set of items is seen, then
kept in a small module-level cache, so the `tool_call_update`s that resend a card's content
reuse the model, its highlighting and its intraline ranges.

Long lines scroll horizontally rather than wrap: one row per line keeps `y → row` a lookup
(a 10,000-line file needs no per-line height measuring), keeps the two halves of the split
view aligned, and keeps line numbers next to the line they number.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pygments.token import Token
from rich.segment import Segment
from textual import events, work
from textual.binding import Binding, BindingType
from textual.content import Content, Span
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style

from tui.diffing import (
    CONTEXT,
    HIGHLIGHT_BLOCK,
    MARKERS,
    DiffItem,
    DiffModel,
    Doc,
    FileDiff,
    FileHeaderRow,
    FoldRow,
    GapRow,
    LineRow,
    Row,
    RowLayout,
    SplitRow,
    build_diff,
    relative_path,
)
from tui.line_numbers import Anchoring

__all__ = ["ASCII_GLYPHS", "UNICODE_GLYPHS", "DiffPanel", "Glyphs", "ViewMode"]

_SIGNS = {"context": " ", "added": "+", "removed": "-"}
UNKNOWN_LINE = "?"
"""The gutter's number for a line whose place in the file is unknown."""
UNKNOWN_NOTE = "line numbers unknown"
"""The header's note when some block of the file could not be placed."""

ViewMode = Literal["auto", "unified", "split"]

# Textual's own highlight theme (so code follows the app theme), minus what fights the diff
# colours: error backgrounds and underlined function names.
TOKEN_STYLES: dict[tuple[str, ...], str] = {
    **{tuple(token): style for token, style in HighlightTheme.STYLES.items()},
    tuple(Token.Error): "$text-error",
    tuple(Token.Generic.Error): "$text-error",
    tuple(Token.Name.Function): "$text-warning",
    tuple(Token.Name.Function.Magic): "$text-warning",
}


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The panel's own symbols, swappable for terminals without good Unicode fonts."""

    fold: str = "\u22ef"
    minus: str = "\u2212"
    divider: str = "\u2502"
    filler: str = "\u2571"
    gap: str = "\u2504"
    more_left: str = "\u2039"
    more_right: str = "\u203a"
    dot: str = "\u00b7"


UNICODE_GLYPHS = Glyphs()
ASCII_GLYPHS = Glyphs("...", "-", "|", "/", "-", "<", ">", "-")

_MODEL_CACHE: OrderedDict[tuple[DiffItem, ...], DiffModel] = OrderedDict()
MODEL_CACHE_SIZE = 16
LINE_CACHE_SIZE = 600
"""Rendered lines kept (a few screens of both halves): strips are many small GC-tracked
objects, and a large cache lengthens every full garbage collection in the app."""
LONG_LINE = 512
"""Lines longer than this (in characters) render only their visible slice."""


def _cached_model(items: tuple[DiffItem, ...]) -> DiffModel | None:
    model = _MODEL_CACHE.get(items)
    if model is not None:
        _MODEL_CACHE.move_to_end(items)
    return model


def _remember(items: tuple[DiffItem, ...], model: DiffModel) -> None:
    _MODEL_CACHE[items] = model
    _MODEL_CACHE.move_to_end(items)
    while len(_MODEL_CACHE) > MODEL_CACHE_SIZE:
        _MODEL_CACHE.popitem(last=False)


def build_model(items: tuple[DiffItem, ...], split: bool = False, rows: int = 50) -> DiffModel:
    """Diff, resolve languages and highlight the first screenful; runs in a worker thread."""
    model = build_diff(items)
    for row in RowLayout(model, split=split, expanded=frozenset()).rows(0, rows):
        lines = [row.left, row.right] if isinstance(row, SplitRow) else [row]
        for line in lines:
            if isinstance(line, LineRow):
                line.doc.spans(line.index)
    return model


def _locate(anchoring: Anchoring, items: tuple[DiffItem, ...]) -> tuple[DiffItem, ...]:
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

    DEFAULT_CSS = """
    DiffPanel {
        height: auto;
        background: $surface;
        scrollbar-size: 1 1;
    }
    DiffPanel > .diff-panel--header { background: $panel; color: $foreground; }
    DiffPanel:focus > .diff-panel--header { background: $primary 30%; }
    DiffPanel > .diff-panel--path { color: $foreground; text-style: bold; }
    DiffPanel > .diff-panel--badge { background: $success 25%; color: $text-success; }
    DiffPanel > .diff-panel--note { color: $foreground-muted; }
    DiffPanel > .diff-panel--added-count { color: $text-success; text-style: bold; }
    DiffPanel > .diff-panel--removed-count { color: $text-error; text-style: bold; }
    DiffPanel > .diff-panel--gutter { color: $text-muted; }
    DiffPanel > .diff-panel--gutter-added { background: $success 22%; color: $text-success; }
    DiffPanel > .diff-panel--gutter-removed { background: $error 22%; color: $text-error; }
    DiffPanel > .diff-panel--added { background: $success 12%; }
    DiffPanel > .diff-panel--removed { background: $error 12%; }
    DiffPanel > .diff-panel--added-word { background: $success 30%; }
    DiffPanel > .diff-panel--removed-word { background: $error 30%; }
    DiffPanel > .diff-panel--filler { background: $foreground 4%; color: $foreground 12%; }
    DiffPanel > .diff-panel--fold { background: $primary 10%; color: $text-muted; }
    DiffPanel > .diff-panel--fold-hover { background: $primary 30%; color: $text; }
    DiffPanel > .diff-panel--gap { color: $text-muted; }
    DiffPanel > .diff-panel--control { color: $text-error; text-style: bold; }
    DiffPanel > .diff-panel--more { color: $foreground-muted; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-panel--header",
        "diff-panel--path",
        "diff-panel--badge",
        "diff-panel--note",
        "diff-panel--added-count",
        "diff-panel--removed-count",
        "diff-panel--gutter",
        "diff-panel--gutter-added",
        "diff-panel--gutter-removed",
        "diff-panel--added",
        "diff-panel--removed",
        "diff-panel--added-word",
        "diff-panel--removed-word",
        "diff-panel--filler",
        "diff-panel--fold",
        "diff-panel--fold-hover",
        "diff-panel--gap",
        "diff-panel--control",
        "diff-panel--more",
    }

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
        items: Sequence[DiffItem],
        cwd: Path,
        *,
        anchoring: Anchoring | None = None,
        max_height: int | None = None,
        view: ViewMode = "auto",
        glyphs: Glyphs = UNICODE_GLYPHS,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.cwd = cwd
        self.glyphs = glyphs
        self._items: tuple[DiffItem, ...] = tuple(items)
        self._anchoring = anchoring
        located = self._located_now()
        self._model: DiffModel | None = None if located is None else _cached_model(located)
        self._expanded: frozenset[int] = frozenset()
        self._layout: RowLayout | None = None
        self._hover: int | None = None
        self._failed = False
        self._ready = asyncio.Event()
        self._unlexed: set[tuple[Doc, int]] = set()
        self._lexing = False
        self._line_cache: dict[tuple[int, bool], Strip] = {}
        self._styles: dict[str, Style] = {}
        self._token_styles: dict[tuple[str, ...], Style] = {}
        self.set_reactive(DiffPanel.view, view)
        if max_height is not None:
            self.styles.max_height = max_height

    # -- public API ------------------------------------------------------------------------

    @property
    def items(self) -> tuple[DiffItem, ...]:
        """The items as given (before anchoring)."""
        return self._items

    @property
    def anchoring(self) -> Anchoring | None:
        """How items without start lines are placed in their files (`tui.line_numbers`)."""
        return self._anchoring

    def _located_now(self) -> tuple[DiffItem, ...] | None:
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

    @property
    def row_count(self) -> int:
        return 0 if self._layout is None else self._layout.height

    def set_items(self, items: Sequence[DiffItem], anchoring: Anchoring | None = None) -> None:
        """Show new items in place. Free when unchanged; cached models apply at once.

        A new `anchoring` (the card's call completed, say) places the same items again.
        """
        new = tuple(items)
        if new == self._items and anchoring is self._anchoring:
            return
        self._items = new
        self._anchoring = anchoring
        located = self._located_now()
        cached = None if located is None else _cached_model(located)
        if not self.is_mounted:
            self._model = cached  # on_mount applies it, or builds
        elif cached is not None:
            self._apply(cached)
        else:
            self._ready.clear()
            self._build(new, anchoring)

    async def wait_ready(self) -> None:
        """Wait until the current items are diffed and laid out (for tests and the bench)."""
        await self._ready.wait()

    def rows(self) -> list[Row]:
        """The rows of the current view, top to bottom (tests; builds every row)."""
        return [] if self._layout is None else self._layout.rows()

    # -- lifecycle -------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self._model is not None:
            self._apply(self._model)
        else:
            self._relayout()
            self._build(self._items, self._anchoring)

    def _current(self, items: tuple[DiffItem, ...], anchoring: Anchoring | None) -> bool:
        return items == self._items and anchoring is self._anchoring

    @work(exclusive=True, group="diff-panel")
    async def _build(self, items: tuple[DiffItem, ...], anchoring: Anchoring | None) -> None:
        width, height = self._expected_size()
        split = self._split_at(width)
        try:
            located = (
                items if anchoring is None else await asyncio.to_thread(_locate, anchoring, items)
            )
            model = _cached_model(located)
            if model is None:
                model = await asyncio.to_thread(build_model, located, split, height)
        except Exception as error:  # a bad diff must not take the app down with it
            self.log.error("diff build failed", error)
            if self._current(items, anchoring):
                self._failed = True
                self._ready.set()
                self.refresh()
            return
        _remember(located, model)
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
        self._line_cache.clear()
        self._hover = None
        self._update_virtual_size()
        self.refresh()

    def watch_view(self) -> None:
        self._relayout()

    def on_resize(self, event: events.Resize) -> None:
        if self._layout is not None and self._layout.split != self.is_split:
            self._relayout()
        else:
            self._line_cache.clear()
            self._update_virtual_size()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._token_styles.clear()
        self._line_cache.clear()

    def on_focus(self) -> None:
        self._styles.clear()
        self.refresh()

    def on_unmount(self) -> None:
        # Widgets sit in reference cycles and wait for a full GC pass; dropping the caches
        # now frees them at once instead of growing that pause.
        self._line_cache.clear()
        self._layout = None

    def on_blur(self) -> None:
        self._styles.clear()
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

    # -- styles ----------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_visual_style(f"diff-panel--{name}")
        return style

    def _inline(self, name: str) -> Style:
        """A component's own colours, for spans: translucent backgrounds blend with the row."""
        key = f"inline:{name}"
        style = self._styles.get(key)
        if style is None:
            styles = self.get_component_styles(f"diff-panel--{name}")
            text_style = styles.text_style
            style = self._styles[key] = Style(
                styles.background if styles.has_rule("background") else None,
                styles.color if styles.has_rule("color") else None,
                bold=text_style.bold,
                italic=text_style.italic,
            )
        return style

    def _token_style(self, token: tuple[str, ...]) -> Style:
        style = self._token_styles.get(token)
        if style is None:
            key = token
            spec = TOKEN_STYLES.get(key)
            while spec is None and key:
                key = key[:-1]
                spec = TOKEN_STYLES.get(key)
            style = self._token_styles[token] = Style.parse(spec) if spec else Style.null()
        return style

    # -- highlighting off the event loop ----------------------------------------------------

    def _lex_later(self, doc: Doc, index: int) -> None:
        """Queue a line's block for the lexing thread; its rows show plain until then."""
        self._unlexed.add((doc, index // HIGHLIGHT_BLOCK))
        if not self._lexing:
            self._lexing = True
            self.call_later(self._lex)

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
                self._line_cache.clear()
                self.refresh()
        finally:
            self._lexing = False

    async def wait_highlighted(self) -> None:
        """Wait until the rows drawn so far have their syntax colours (tests)."""
        await self.wait_ready()
        while self._lexing or self._unlexed:
            await asyncio.sleep(0.005)

    # -- rendering -------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        layout = self._layout
        if layout is None:
            return self._placeholder(width) if y == 0 else Strip.blank(width, self.rich_style)
        index = scroll_y + y
        if index >= layout.height:
            return Strip.blank(width, self.rich_style)
        header_y, file = layout.file_at(index)
        if y == 0 and scroll_y > 0 and header_y != index:
            return self._header(file, width)  # sticky: the file's header stays on top
        row = layout.row(index)
        if isinstance(row, FileHeaderRow):
            return self._header(row.file, width)
        if isinstance(row, FoldRow):
            return self._fold(row, index, width)
        if isinstance(row, GapRow):
            return self._gap(row, width)
        digits = self._number_width()
        if isinstance(row, SplitRow):
            half = (width - 1) // 2
            divider = Strip([Segment(self.glyphs.divider, self._style("gutter").rich_style)], 1)
            return Strip.join(
                [
                    self._half(row.left, (index, False), file.new_file, digits, scroll_x, half),
                    divider,
                    self._half(
                        row.right, (index, True), file.new_file, digits, scroll_x, width - 1 - half
                    ),
                ]
            )
        old, new = self._numbers(row)
        gutter = self._line(
            Content(f"{old:>{digits}} {new:>{digits}} {_SIGNS[row.kind]} "),
            2 * digits + 4,
            self._gutter_style(row),
        )
        code = self._code_strip(
            row, (index, False), file.new_file, scroll_x, width - gutter.cell_length
        )
        return Strip.join([gutter, code])

    def _half(
        self,
        line: LineRow | None,
        key: tuple[int, bool],
        preview: bool,
        digits: int,
        scroll_x: int,
        width: int,
    ) -> Strip:
        """One side of a split row: its own gutter and code column, or a hatched filler."""
        if line is None:
            return self._line(Content(self.glyphs.filler * width), width, self._style("filler"))
        number = self._numbers(line)[1 if key[1] else 0]
        gutter = self._line(
            Content(f"{number:>{digits}} {_SIGNS[line.kind]} "),
            digits + 3,
            self._gutter_style(line),
        )
        code = self._code_strip(line, key, preview, scroll_x, width - gutter.cell_length)
        return Strip.join([gutter, code])

    @staticmethod
    def _numbers(line: LineRow) -> tuple[str, str]:
        """The gutter's old and new numbers; `?` on the sides a line exists on when its place
        in the file is unknown, so no snippet is ever counted from 1."""
        if line.unknown:
            return (
                "" if line.kind == "added" else UNKNOWN_LINE,
                "" if line.kind == "removed" else UNKNOWN_LINE,
            )
        return (
            "" if line.old_no is None else str(line.old_no),
            "" if line.new_no is None else str(line.new_no),
        )

    def _gap(self, row: GapRow, width: int) -> Strip:
        """Between two blocks of one file: how many lines lie between them, when known."""
        if row.between is None:
            return self._line(Content(self.glyphs.gap * width), width, self._style("gap"))
        count = row.between
        label = f"{self.glyphs.fold} {count:,} unchanged line{'s' if count != 1 else ''} not shown"
        digits = self._number_width()
        indent = digits + 3 if self._layout is not None and self._layout.split else 2 * digits + 4
        return self._line(Content(" " * indent + label), width, self._style("fold"))

    def _line(self, content: Content, width: int, base: Style) -> Strip:
        """Content on a base style, cut or padded to exactly `width` cells."""
        strip = Strip(content.render_segments(base), content.cell_length)
        return strip.crop(0, width).extend_cell_length(width, base.rich_style)

    def _placeholder(self, width: int) -> Strip:
        path = relative_path(self._items[0].path, self.cwd) if self._items else ""
        status = "  diff unavailable" if self._failed else f"  {self.glyphs.fold}"
        content = Content.assemble(
            (f" {path}", self._inline("path")), (status, self._inline("note"))
        )
        return self._line(content, width, self._style("header"))

    def _header(self, file: FileDiff, width: int) -> Strip:
        parts: list[tuple[str, Style] | str] = [
            (f" {relative_path(file.path, self.cwd)}", self._inline("path"))
        ]
        if file.new_file:
            parts += ["  ", (" new file ", self._inline("badge"))]
        parts += [
            "  ",
            (f"+{file.added}", self._inline("added-count")),
            " ",
            (f"{self.glyphs.minus}{file.removed}", self._inline("removed-count")),
        ]
        if file.eol_note:
            parts += ["  ", (file.eol_note, self._inline("note"))]
        if file.unnumbered:
            parts += ["  ", (UNKNOWN_NOTE, self._inline("note"))]
        left = Content.assemble(*parts)
        mode = "split" if self._layout is not None and self._layout.split else "unified"
        # `s` is offered only where it changes something.
        key = f" {self.glyphs.dot} s" if self.can_split else ""
        right = Content.styled(f"{mode}{key} ", self._inline("note"))
        gap = width - left.cell_length - right.cell_length
        if gap >= 2:
            left = Content.assemble(left, " " * gap, right)
        return self._line(left, width, self._style("header"))

    def _fold(self, row: FoldRow, index: int, width: int) -> Strip:
        count = row.fold.equal.count
        hot = index == self._hover or (self.has_focus and index == self._enter_target())
        hint = "  (enter or click to expand)" if hot else ""
        label = f"{self.glyphs.fold} {count:,} unchanged line{'s' if count != 1 else ''}{hint}"
        digits = self._number_width()
        indent = digits + 3 if self._layout is not None and self._layout.split else 2 * digits + 4
        style = self._style("fold-hover" if hot else "fold")
        return self._line(Content(" " * indent + label), width, style)

    def _gutter_style(self, line: LineRow) -> Style:
        if line.kind == "context":
            return self._style("gutter")
        return self._style("gutter-added" if line.kind == "added" else "gutter-removed")

    def _row_style(self, line: LineRow, preview: bool) -> Style:
        """Row background. A new file reads as a preview: only its gutter is green."""
        if line.kind == "context" or preview:
            return self.visual_style
        return self._style("added" if line.kind == "added" else "removed")

    def _code(
        self, line: LineRow, base: Style, start: int = 0, end: int | None = None
    ) -> tuple[Strip, bool]:
        """Characters `start:end` of a line on the row background, and whether it is fully
        highlighted (False: shown plain while its block is lexed in a thread)."""
        full = line.text
        text = full[start:end]
        stop = start + len(text)

        def clip(a: int, b: int, style: Style) -> Span | None:
            a, b = max(a, start), min(b, stop)
            return Span(a - start, b - start, style) if a < b else None

        tokens = line.doc.cached_spans(line.index)
        if tokens is None:
            self._lex_later(line.doc, line.index)
        found = [clip(a, b, self._token_style(t)) for a, b, t in tokens or ()]
        if line.changes:
            word = self._inline("added-word" if line.kind == "added" else "removed-word")
            found += [clip(a, b, word) for a, b in line.changes]
        if MARKERS.search(text) is not None:
            control = self._inline("control")
            found += [Span(m.start(), m.end(), control) for m in MARKERS.finditer(text)]
        content = Content(text, [span for span in found if span is not None])
        return Strip(content.render_segments(base), content.cell_length), tokens is not None

    def _code_strip(
        self, line: LineRow, key: tuple[int, bool], preview: bool, scroll_x: int, width: int
    ) -> Strip:
        """The visible part of a line: `‹` / `›` at the edges say it goes on that way.

        Long lines (minified code, data) render only their visible slice: building the whole
        of a 4,000-character line for every row on screen is what makes them slow. Their
        horizontal offset counts characters, which differs from cells only with wide
        characters.
        """
        base = self._row_style(line, preview)
        text = line.text
        windowed = len(text) > LONG_LINE
        length = len(text) if windowed else -1
        strip = None if windowed else self._line_cache.get(key)
        if strip is None and not windowed:
            if len(self._line_cache) > LINE_CACHE_SIZE:
                self._line_cache.clear()
            strip, complete = self._code(line, base)
            if complete:
                self._line_cache[key] = strip
        if strip is not None:
            length = strip.cell_length
        left = scroll_x > 0 and length > 0 and width > 2
        right = length > scroll_x + width and width > 2
        start = scroll_x + 1 if left else scroll_x
        end = scroll_x + width - 1 if right else scroll_x + width
        rich_base = base.rich_style
        if strip is None:  # at most 2 cells a character: 2 × width characters fill the row
            visible = self._code(line, base, start, start + 2 * (end - start))[0]
            visible = visible.crop(0, end - start)
        else:
            visible = strip.crop(start, end)
        parts = [visible.extend_cell_length(end - start, rich_base)]
        more_style = (base + self._inline("more")).rich_style
        if left:
            parts.insert(0, Strip([Segment(self.glyphs.more_left, more_style)], 1))
        if right:
            parts.append(Strip([Segment(self.glyphs.more_right, more_style)], 1))
        return Strip.join(parts) if len(parts) > 1 else parts[0]

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

    def action_toggle_view(self) -> None:
        self.view = "unified" if self.is_split else "split"

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
