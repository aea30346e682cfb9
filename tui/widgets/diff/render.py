"""The diff panel's rows drawn as strips: gutters, code in its colours, folds, gaps and headers.

The widget (`tui.widgets.diff.panel`) decides which row goes on which screen line (scrolling,
the sticky header, hover and focus); `RowPainter` turns one row into one `Strip`, with the
panel's component styles and a bounded cache of drawn code lines.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pygments.token import Token
from rich.segment import Segment
from textual.cache import LRUCache
from textual.content import Content, Span
from textual.highlight import HighlightTheme
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from tui.diff.doc import Doc
from tui.diff.model import FileView
from tui.diff.rows import FoldRow, GapRow, LineRow, SplitRow
from tui.diff.text import MARKERS, relative_path
from tui.glyphs import ASCII_GLYPHS, UNICODE_GLYPHS, Glyphs

__all__ = [
    "ASCII_GLYPHS",
    "COMPONENTS",
    "LINE_CACHE_SIZE",
    "PANEL_CSS",
    "UNICODE_GLYPHS",
    "Glyphs",
    "PanelStyles",
    "RowPainter",
]

_SIGNS = {"context": " ", "added": "+", "removed": "-"}
UNKNOWN_LINE = "?"
"""The gutter's number for a line whose place in the file is unknown."""
UNKNOWN_NOTE = "line numbers unknown"
"""The header's note when some block of the file could not be placed."""
LINE_CACHE_SIZE = 600
"""Drawn code lines kept, least recently used dropped first (a few screens of both halves):
strips are many small GC-tracked objects, and a large cache lengthens every full garbage
collection in the app."""
LONG_LINE = 512
"""Lines longer than this (in characters) render only their visible slice."""

COMPONENTS = (
    "header",
    "path",
    "badge",
    "note",
    "added-count",
    "removed-count",
    "gutter",
    "gutter-added",
    "gutter-removed",
    "added",
    "removed",
    "added-word",
    "removed-word",
    "filler",
    "fold",
    "fold-hover",
    "gap",
    "control",
    "more",
)
"""The panel's component classes, `diff-panel--NAME`, styled by `PANEL_CSS`."""
PANEL_CSS = """
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

# Textual's own highlight theme (so code follows the app theme), minus what fights the diff
# colours: error backgrounds and underlined function names.
TOKEN_STYLES: dict[tuple[str, ...], str] = {
    **{tuple(token): style for token, style in HighlightTheme.STYLES.items()},
    tuple(Token.Error): "$text-error",
    tuple(Token.Generic.Error): "$text-error",
    tuple(Token.Name.Function): "$text-warning",
    tuple(Token.Name.Function.Magic): "$text-warning",
}


class PanelStyles:
    """The panel's `diff-panel--*` component styles and token colours, resolved on first use.

    The widget clears them when its theme or focus changes (`clear`).
    """

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        self._styles: dict[str, Style] = {}
        self._tokens: dict[tuple[str, ...], Style] = {}

    def clear(self, *, tokens: bool = True) -> None:
        self._styles.clear()
        if tokens:
            self._tokens.clear()

    def base(self, name: str) -> Style:
        """A component's full style, to draw a row on."""
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self._widget.get_visual_style(f"diff-panel--{name}")
        return style

    def inline(self, name: str) -> Style:
        """A component's own colours, for spans: translucent backgrounds blend with the row."""
        key = f"inline:{name}"
        style = self._styles.get(key)
        if style is None:
            styles = self._widget.get_component_styles(f"diff-panel--{name}")
            text_style = styles.text_style
            style = self._styles[key] = Style(
                styles.background if styles.has_rule("background") else None,
                styles.color if styles.has_rule("color") else None,
                bold=text_style.bold,
                italic=text_style.italic,
            )
        return style

    def token(self, token: tuple[str, ...]) -> Style:
        """A Pygments token's colour: its own entry, else its nearest parent's."""
        style = self._tokens.get(token)
        if style is None:
            key = token
            spec = TOKEN_STYLES.get(key)
            while spec is None and key:
                key = key[:-1]
                spec = TOKEN_STYLES.get(key)
            style = self._tokens[token] = Style.parse(spec) if spec else Style.null()
        return style


class RowPainter:
    """Draws rows for one panel. `lex_later(doc, index)` is told about lines drawn plain
    because their block is not highlighted yet; once it is, `lines` must be cleared."""

    def __init__(
        self, widget: Widget, glyphs: Glyphs, cwd: Path, lex_later: Callable[[Doc, int], None]
    ) -> None:
        self.styles = PanelStyles(widget)
        self.glyphs = glyphs
        self.cwd = cwd
        self._widget = widget
        self._lex_later = lex_later
        self.lines: LRUCache[tuple[int, bool], Strip] = LRUCache(LINE_CACHE_SIZE)
        """Drawn code lines by (row index, right half): cleared on any layout or style change."""

    # -- whole rows ------------------------------------------------------------------------

    def placeholder(self, path: str, failed: bool, width: int) -> Strip:
        """The one-line header shown until the diff is built (or when it failed)."""
        shown = relative_path(path, self.cwd) if path else ""
        status = "  diff unavailable" if failed else f"  {self.glyphs.fold}"
        content = Content.assemble(
            (f" {shown}", self.styles.inline("path")), (status, self.styles.inline("note"))
        )
        return self._cut(content, width, self.styles.base("header"))

    def header(self, file: FileView, width: int, *, split: bool, can_split: bool) -> Strip:
        inline = self.styles.inline
        parts: list[tuple[str, Style] | str] = [
            (f" {relative_path(file.path, self.cwd)}", inline("path"))
        ]
        if file.new_file:
            parts += ["  ", (" new file ", inline("badge"))]
        parts += [
            "  ",
            (f"+{file.added}", inline("added-count")),
            " ",
            (f"{self.glyphs.minus}{file.removed}", inline("removed-count")),
        ]
        if file.eol_note:
            parts += ["  ", (file.eol_note, inline("note"))]
        if file.unnumbered:
            parts += ["  ", (UNKNOWN_NOTE, inline("note"))]
        left = Content.assemble(*parts)
        mode = "split" if split else "unified"
        # `s` is offered only where it changes something.
        key = f" {self.glyphs.dot} s" if can_split else ""
        right = Content.styled(f"{mode}{key} ", inline("note"))
        gap = width - left.cell_length - right.cell_length
        if gap >= 2:
            left = Content.assemble(left, " " * gap, right)
        return self._cut(left, width, self.styles.base("header"))

    def fold(self, row: FoldRow, width: int, *, digits: int, split: bool, hot: bool) -> Strip:
        count = row.fold.equal.count
        hint = "  (enter or click to expand)" if hot else ""
        label = f"{self.glyphs.fold} {count:,} unchanged line{'s' if count != 1 else ''}{hint}"
        indent = digits + 3 if split else 2 * digits + 4
        style = self.styles.base("fold-hover" if hot else "fold")
        return self._cut(Content(" " * indent + label), width, style)

    def gap(self, row: GapRow, width: int, *, digits: int, split: bool) -> Strip:
        """Between two blocks of one file: how many lines lie between them, when known."""
        if row.between is None:
            return self._cut(Content(self.glyphs.gap * width), width, self.styles.base("gap"))
        count = row.between
        label = f"{self.glyphs.fold} {count:,} unchanged line{'s' if count != 1 else ''} not shown"
        indent = digits + 3 if split else 2 * digits + 4
        return self._cut(Content(" " * indent + label), width, self.styles.base("fold"))

    def split_row(
        self, row: SplitRow, index: int, preview: bool, digits: int, scroll_x: int, width: int
    ) -> Strip:
        """Both halves of a side-by-side row and the divider between them."""
        half = (width - 1) // 2
        divider = Strip([Segment(self.glyphs.divider, self.styles.base("gutter").rich_style)], 1)
        return Strip.join(
            [
                self._half(row.left, (index, False), preview, digits, scroll_x, half),
                divider,
                self._half(row.right, (index, True), preview, digits, scroll_x, width - 1 - half),
            ]
        )

    def line_row(
        self, row: LineRow, index: int, preview: bool, digits: int, scroll_x: int, width: int
    ) -> Strip:
        """A unified row: old and new numbers, the sign, the code."""
        old, new = self._numbers(row)
        gutter = self._cut(
            Content(f"{old:>{digits}} {new:>{digits}} {_SIGNS[row.kind]} "),
            2 * digits + 4,
            self._gutter_style(row),
        )
        code = self._code_strip(row, (index, False), preview, scroll_x, width - gutter.cell_length)
        return Strip.join([gutter, code])

    # -- parts -----------------------------------------------------------------------------

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
            filler = Content(self.glyphs.filler * width)
            return self._cut(filler, width, self.styles.base("filler"))
        number = self._numbers(line)[1 if key[1] else 0]
        gutter = self._cut(
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

    @staticmethod
    def _cut(content: Content, width: int, base: Style) -> Strip:
        """Content on a base style, cut or padded to exactly `width` cells."""
        strip = Strip(content.render_segments(base), content.cell_length)
        return strip.crop(0, width).extend_cell_length(width, base.rich_style)

    def _gutter_style(self, line: LineRow) -> Style:
        if line.kind == "context":
            return self.styles.base("gutter")
        return self.styles.base("gutter-added" if line.kind == "added" else "gutter-removed")

    def _row_style(self, line: LineRow, preview: bool) -> Style:
        """Row background. A new file reads as a preview: only its gutter is green."""
        if line.kind == "context" or preview:
            return self._widget.visual_style
        return self.styles.base("added" if line.kind == "added" else "removed")

    def _code(
        self, line: LineRow, base: Style, start: int = 0, end: int | None = None
    ) -> tuple[Strip, bool]:
        """Characters `start:end` of a line on the row background, and whether it is fully
        highlighted (False: shown plain while its block is lexed in a thread)."""
        text = line.text[start:end]
        stop = start + len(text)

        def clip(a: int, b: int, style: Style) -> Span | None:
            a, b = max(a, start), min(b, stop)
            return Span(a - start, b - start, style) if a < b else None

        tokens = line.doc.cached_spans(line.index)
        if tokens is None:
            self._lex_later(line.doc, line.index)
        found = [clip(a, b, self.styles.token(t)) for a, b, t in tokens or ()]
        if line.changes:
            word = self.styles.inline("added-word" if line.kind == "added" else "removed-word")
            found += [clip(a, b, word) for a, b in line.changes]
        if MARKERS.search(text) is not None:
            control = self.styles.inline("control")
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
        strip = None if windowed else self.lines.get(key)
        if strip is None and not windowed:
            strip, complete = self._code(line, base)
            if complete:
                self.lines.set(key, strip)
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
        more_style = (base + self.styles.inline("more")).rich_style
        if left:
            parts.insert(0, Strip([Segment(self.glyphs.more_left, more_style)], 1))
        if right:
            parts.append(Strip([Segment(self.glyphs.more_right, more_style)], 1))
        return Strip.join(parts) if len(parts) > 1 else parts[0]
