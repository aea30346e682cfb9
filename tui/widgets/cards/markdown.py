"""A tool card's text as one renderable, its code drawn as a reply's code is drawn.

Replies are Textual `Markdown` widgets; a card's text stays one Rich `Markdown` renderable in
the card's own widget, since most cards are one widget and a Markdown widget would add one per
block, several times the cost to mount and draw. Its code blocks are highlighted by
`MarkdownFence.highlight`, the function and theme (the app theme's colours) a reply's fence
uses, on the fence's background, and inline code takes a reply's colours, so code looks the
same in a card and in a reply, and follows a theme change.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock
from rich.markdown import Markdown as RichMarkdown
from rich.padding import Padding
from rich.style import Style as RichStyle
from rich.text import Text
from rich.theme import Theme
from textual.color import Color
from textual.content import Content
from textual.style import Style
from textual.widget import Widget
from textual.widgets.markdown import MarkdownFence

# A reply fence's background over the text's own, as Textual's MarkdownFence CSS sets it
# (`black 10%`, `white 30%` in a light theme, none with ANSI colours).
FENCE_DARK = Color(0, 0, 0, 0.1)
FENCE_LIGHT = Color(255, 255, 255, 0.3)


@lru_cache(maxsize=64)
def highlighted(code: str, lexer: str, ansi: bool, dark: bool) -> Content:
    """A reply fence's highlighting, kept: a card's face is drawn again on every change."""
    return MarkdownFence.highlight(code, lexer, ansi=ansi, dark=dark)


class CardCodeBlock(CodeBlock):
    """A fenced or indented code block, coloured as `MarkdownFence` colours a reply's."""

    @classmethod
    def create(cls, markdown: RichMarkdown, token: Token) -> CardCodeBlock:
        # A fence without a language stays plain: guessing one runs every lexer there is.
        lexer = (token.info or "").partition(" ")[0] or "text"
        return cls(lexer, markdown.host if isinstance(markdown, CardMarkdown) else None)

    def __init__(self, lexer_name: str, host: Widget | None) -> None:
        super().__init__(lexer_name, theme="")
        self.host = host

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        host = self.host
        if host is None or not host.is_attached:
            yield Padding(Text(code), (1, 2))  # outside an app: no theme to colour it with
            return
        app = host.app
        ansi, dark = app.native_ansi_color, app.current_theme.dark
        base = host.background_colors[1]
        background = None if ansi else base + (FENCE_DARK if dark else FENCE_LIGHT)
        text = Text()
        for piece, style in highlighted(code, self.lexer_name, ansi, dark).render(
            Style(background=background or base), end="", parse_style=app.stylesheet.parse_style
        ):
            text.append(piece, style.rich_style)
        fill = RichStyle() if background is None else RichStyle(bgcolor=background.rich_color)
        yield Padding(text, (1, 0) if ansi else (1, 2), style=fill)


# A reply's inline code, as Textual's Markdown CSS colours it in a dark and in a light theme.
INLINE_CODE = {True: "$text-warning 95% on $warning 10%", False: "$text-error 95% on $error 5%"}


class CardMarkdown(RichMarkdown):
    """Rich Markdown whose code, blocks and inline, is coloured as a reply's for `host`'s app."""

    elements = {**RichMarkdown.elements, "fence": CardCodeBlock, "code_block": CardCodeBlock}

    def __init__(self, markup: str, host: Widget | None = None) -> None:
        super().__init__(markup)
        self.host = host

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        host = self.host
        if host is None or not host.is_attached or host.app.native_ansi_color:
            yield from super().__rich_console__(console, options)
            return
        app = host.app
        code = app.stylesheet.parse_style(INLINE_CODE[app.current_theme.dark])
        inline = (Style(background=host.background_colors[1]) + code).rich_style
        # Rich looks up `markdown.code` while it renders; all of it is rendered here, so the
        # theme is in place for exactly that long.
        with console.use_theme(Theme({"markdown.code": inline})):
            rendered = list(super().__rich_console__(console, options))
        yield from rendered


# A line that starts a block of its own (a fence, heading, quote, list item, table row, rule or
# setext underline): a paragraph line before it ends there, so a `\` appended to that line would
# be shown, not taken as a line break; and its indentation is Markdown's, not to be kept.
BLOCK_START = re.compile(
    r" {0,3}(?:```|~~~|#{1,6}(?:\s|$)|>|[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|\||"
    r"(?:[-=*_][ \t]*){3,}$)"
)
RULE = re.compile(r"(?:[-=*_][ \t]*){3,}$")
NBSP = "\u00a0"


def _indent_width(line: str) -> int:
    """Columns of leading blanks, tabs to the next multiple of 4, as CommonMark counts them."""
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def hard_line_breaks(markdown: str) -> str:
    """Keep tool output's line structure: a single newline inside a paragraph becomes a
    Markdown hard break, so a read result or a log is not reflowed into one paragraph.

    Code is left exactly as it is: fenced blocks, and indented code blocks (a `cat -n` result,
    `     1\\timport sys`, is one), where a `\\` would be shown as written. An indented line
    inside a paragraph keeps its indentation as no-break spaces, which Markdown does not strip.
    """
    lines = markdown.split("\n")
    fence: str | None = None  # the marker of the open fenced block
    in_code = False  # inside an indented code block
    blank_before = True
    for index, line in enumerate(lines):
        stripped = line.lstrip(" \t")
        indent = _indent_width(line)
        if fence is not None:
            if indent < 4 and stripped.startswith(fence):
                fence = None
            continue
        if not stripped:
            blank_before = True
            continue
        if indent < 4 and stripped[:3] in ("```", "~~~"):
            fence, in_code, blank_before = stripped[:3], False, False
            continue
        # An indented line opens a code block only where a paragraph does not go on.
        if indent >= 4 and (blank_before or in_code):
            in_code, blank_before = True, False
            continue
        in_code, starts_block = False, bool(BLOCK_START.match(line))
        if indent and not starts_block:
            lines[index] = line = NBSP * indent + stripped
        following = lines[index + 1] if index + 1 < len(lines) else ""
        # A `\` would become part of a heading, a table row, a rule or a setext underline.
        whole_line = starts_block and (stripped[0] in "#|" or bool(RULE.match(stripped)))
        if following.strip() and not whole_line and not BLOCK_START.match(following):
            lines[index] = line + "\\"
        blank_before = False
    return "\n".join(lines)


# Text that Markdown would render exactly as written: no syntax characters, no line that
# starts like a block (indent, list, quote, rule, heading underline), no blanks at either end
# of a line or of the text, no paragraph break. A Rich `Markdown` costs about 2 ms to build
# (it makes a parser each time), so a burst of tool calls with one-line results skips it;
# `test_card_markdown` checks that the two render alike whenever this matches.
MARKDOWN_SYNTAX = re.compile(
    r"[`*_#\[\]<>|~\\&!]|^[ \t]|[ \t]$|^(\d+[.)]|[-+=])(\s|$)|\n\n|\A\n|\n\Z", re.M
)


def card_markdown(markdown: str, host: Widget | None = None) -> CardMarkdown | Text:
    """A card's text (made safe where it entered, tui/agent_text.py): plain `Text` where
    Markdown would change nothing, else Markdown with hard line breaks, its code coloured for
    `host`'s app."""
    if markdown and not MARKDOWN_SYNTAX.search(markdown):
        return Text(markdown)
    return CardMarkdown(hard_line_breaks(markdown), host)


# A read result in the `<path>…</path> <type>file</type> <content>…</content>` envelope
# (dsh-agent's and opencode's read tool): the path is the card's title and location already,
# and the type word says nothing, so only the content is shown.
READ_ENVELOPE = re.compile(
    r"\A\s*<path>[^\n]*</path>\n<type>[^\n<]*</type>\n<content>\n(?P<body>.*?)\n?</content>\s*\Z",
    re.S,
)
# The read tool's note to the model on how to page on: not the user's business.
READ_PAGING = re.compile(r" Use offset=\d+ to continue\.(?=\)\s*\Z)")


def read_markdown(text: str) -> str | None:
    """A read result's content as a code block, exactly as read (Markdown would take a
    `__name__` for bold), with the tool's closing line as plain text; None if `text` is
    not such a result."""
    match = READ_ENVELOPE.match(text)
    if match is None:
        return None
    body = match["body"].rstrip("\n")
    lines = body.split("\n")
    footer = ""
    if lines and lines[-1].startswith("(") and lines[-1].endswith(")"):
        footer = READ_PAGING.sub("", lines.pop())
    code = "\n".join(lines).strip("\n")
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    parts = [f"{fence}text\n{code}\n{fence}"] if code else []
    if footer:
        parts.append(footer)
    return "\n\n".join(parts)
