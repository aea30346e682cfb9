"""A card's text: plain where Markdown would change nothing, hard line breaks where it would
reflow tool output, and code coloured exactly as a reply's code fence colours it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.color import Color
from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownFence

from tui.sanitize import clean_block
from tui.widgets.cards.markdown import CardMarkdown, card_markdown, hard_line_breaks

CODE = 'def greet(name: str) -> int:\n    """Say hello."""  # once\n    return f"Hi {name}" * 3'
FENCE = f"```python\n{CODE}\n```"
INLINE = "Run `make check` first"


def rendered(renderable: object, width: int) -> list[str]:
    console = Console(width=width, color_system="truecolor", force_terminal=True)
    with console.capture() as capture:
        console.print(renderable)
    # Markdown pads its paragraphs with unstyled blanks; Textual pads every line the same way.
    return [line.rstrip(" ") for line in capture.get().splitlines()]


@settings(max_examples=300, deadline=None)
@given(
    source=st.text(
        alphabet=st.sampled_from(list("ab cd-1.)+=\n\r\t`*_#[]<>|~\\&!é漢:/()")), max_size=60
    ),
    width=st.integers(min_value=4, max_value=30),
)
def test_plain_text_skips_markdown_only_when_the_result_is_the_same(
    source: str, width: int
) -> None:
    text = clean_block(source)  # a tool call's text as it reaches the card (tui/agent_text.py)
    shown = card_markdown(text)
    if isinstance(shown, Text):
        slow = CardMarkdown(hard_line_breaks(text))
        assert rendered(shown, width) == rendered(slow, width)


def test_markdown_still_renders_markdown() -> None:
    assert isinstance(card_markdown("**bold**"), CardMarkdown)
    assert isinstance(card_markdown("- item"), CardMarkdown)
    assert isinstance(card_markdown("```console\n$ ls\n```"), CardMarkdown)
    assert isinstance(card_markdown("Read 12 lines from a.py"), Text)


def test_line_breaks_never_show_a_backslash() -> None:
    """The hard-break `\\` goes only where a paragraph goes on: not into code, fenced or
    indented, nor onto a heading, a table row, a rule, or a line a list item or quote ends."""
    source = "\n".join(
        [
            "# Results",
            "two lines",
            "of text",
            "- item a",
            "- item b",
            "> quoted",
            "",
            "| a | b |",
            "|---|---|",
            "| 1 | 2 |",
            "",
            "---",
            "after the rule",
            "",
            "    indented code",
            "    more code",
            "```",
            "fenced",
            "code",
            "```",
            "~~~",
            "tilde",
            "~~~",
        ]
    )
    plain = Console(width=60, color_system=None, record=True)
    plain.print(card_markdown(source))
    shown = plain.export_text()
    assert "\\" not in shown
    lines = [line.strip() for line in shown.splitlines()]
    assert "two lines" in lines and "of text" in lines  # still a hard break between them
    for kept in ("indented code", "more code", "fenced", "tilde", "after the rule"):
        assert kept in shown


class Side(App[None]):
    """A reply beside a card's text with the same Markdown: a code fence, or inline code."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield Markdown(self.source)
        yield Static(id="card")

    def on_mount(self) -> None:
        card = self.query_one("#card", Static)
        card.update(card_markdown(self.source, card))


def code_cells(widget: Widget) -> list[tuple[str, object, object]]:
    """Every character of the code lines a widget draws, with its colour and background."""
    cells = []
    for strip in widget.render_lines(widget.region.reset_offset):
        if not strip.text.strip():
            continue  # the fence's padding rows
        for segment in strip:
            style = segment.style
            for char in segment.text:
                if not char.isspace():
                    cells.append((char, style and style.color, style and style.bgcolor))
    return cells


async def test_code_in_a_card_is_coloured_as_in_a_reply_in_each_theme() -> None:
    app = Side(FENCE)
    async with app.run_test(size=(70, 20)) as pilot:
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            reply = code_cells(app.query_one(MarkdownFence).query_one("#code-content"))
            card = code_cells(app.query_one("#card"))
            assert "".join(cell[0] for cell in card) == "".join(CODE.split())
            assert card == reply
            assert len({cell[1] for cell in card}) > 3  # highlighted, not one colour


async def test_inline_code_in_a_card_is_coloured_as_in_a_reply_in_each_theme() -> None:
    app = Side(INLINE)
    async with app.run_test(size=(70, 20)) as pilot:
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            reply = code_cells(app.query_one("MarkdownParagraph"))
            card = code_cells(app.query_one("#card"))
            assert "".join(cell[0] for cell in card) == "Runmakecheckfirst"
            # Close, not equal: Textual composes a component class's tint (the code's
            # background, and so the colour blended over it) a few levels off a plain blend.
            for ours, theirs in zip(card, reply, strict=True):
                assert ours[0] == theirs[0]
                for mine, its in zip(ours[1:], theirs[1:], strict=True):
                    assert isinstance(mine, Color) and isinstance(its, Color)
                    pairs = zip(mine.triplet or (), its.triplet or (), strict=True)
                    assert max(abs(x - y) for x, y in pairs) <= 6
            code = {cell[1:] for cell in card[3:12]}  # make check
            assert len(code) == 1 and code != {cell[1:] for cell in card[:3]}
