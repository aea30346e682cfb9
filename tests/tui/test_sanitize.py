"""Sanitizing untrusted terminal and agent text: what must reach the widget, and what must not."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from tui.sanitize import sanitize_text, strip_control
from tui.terminal.sgr import styled_line
from tui.terminal.stream import TerminalScreenBuffer

SGR = re.compile(r"\x1b\[[0-9;:]*m")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def feed_all(chunks: list[str]) -> list[str]:
    buffer = TerminalScreenBuffer()
    lines: list[str] = []
    for chunk in chunks:
        lines += buffer.feed(chunk)
    lines += buffer.finish()
    assert lines == list(buffer.lines)
    return lines


def plain(line: str) -> str:
    return SGR.sub("", line)


# ---------------------------------------------------------------------------- line editing
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("downloading 10%\rdownloading 100%\n", ["downloading 100%"]),
        ("abc\rX\n", ["Xbc"]),  # a CR overwrites cell by cell, like a terminal
        ("one\r\ntwo\r\n", ["one", "two"]),
        ("progress 99%\r\x1b[Kdone\n", ["done"]),  # erase to end of line
        ("progress 99%\x1b[2K\rok\n", ["ok"]),  # erase the whole line
        ("abc\x1b[1K!\n", ["   !"]),  # erase up to the cursor, inclusive
        ("abcdef\x1b[3G\x1b[1KX\n", ["  Xdef"]),
        ("abc\bX\n", ["abX"]),  # backspace moves back, the next char overwrites
        ("\b\bab\n", ["ab"]),  # backspace at column 0 stays there
        ("a\tb\n", ["a       b"]),
        ("abcdefghij\r\tX\n", ["abcdefghXj"]),  # a tab moves over text without erasing
        ("abc\x1b[5GX\n", ["abc X"]),  # column move past the end pads
        ("abcdef\x1b[3DX\x1b[1CY\n", ["abcXeY"]),
        ("last line without newline", ["last line without newline"]),
    ],
)
def test_line_editing(raw: str, expected: list[str]) -> None:
    assert [plain(line) for line in feed_all([raw])] == expected


def test_partial_line_is_rewritten_until_newline() -> None:
    buffer = TerminalScreenBuffer()
    assert buffer.feed("10%") == []
    assert buffer.partial == "10%"
    assert buffer.feed("\r20%") == []
    assert buffer.partial == "20%"
    assert buffer.feed("\rdone\nnext") == ["done"]
    assert buffer.partial == "next"
    assert buffer.all_lines() == ["done", "next"]
    assert buffer.text() == "done\nnext"


def test_long_lines_wrap_and_memory_is_bounded() -> None:
    buffer = TerminalScreenBuffer(max_chars=50, max_line_chars=10)
    lines = buffer.feed("x" * 25 + "\n")
    assert lines == ["x" * 10, "x" * 10, "x" * 5]
    assert not buffer.truncated
    for i in range(20):
        buffer.feed(f"line {i}\n")
    assert buffer.truncated
    assert buffer.dropped_lines > 0
    assert sum(len(line) + 1 for line in buffer.lines) <= 50
    assert buffer.lines[-1] == "line 19"


# ---------------------------------------------------------------------------- SGR kept
def test_sgr_is_kept_and_renders_with_rich() -> None:
    lines = feed_all(["\x1b[1;31mred\x1b[0m plain \x1b[38;5;0mblack\n"])
    assert len(lines) == 1
    text = styled_line(lines[0])
    assert text.plain == "red plain black"
    styles = {text.plain[s.start : s.end]: s.style for s in text.spans}
    red = styles["red"]
    assert not isinstance(red, str)
    assert red.bold
    assert red.color is not None
    assert red.color.number == 1
    black = styles["black"]
    assert not isinstance(black, str)
    assert black.color is not None
    assert black.color.number == 0  # the 0 inside 38;5;0 is a colour, not a reset


def test_style_carries_over_to_the_next_line() -> None:
    # Each stored line is rendered alone, so it must start with the pen it inherits.
    lines = feed_all(["\x1b[32mgreen\nstill green\x1b[0m plain\n"])
    second = styled_line(lines[1])
    assert second.plain == "still green plain"
    assert [(s.start, s.end) for s in second.spans] == [(0, 11)]


def test_overwrite_keeps_per_cell_styles() -> None:
    lines = feed_all(["\x1b[31mAAAA\x1b[0m\r\x1b[34mB\n"])
    text = styled_line(lines[0])
    assert text.plain == "BAAA"
    colours = [(text.plain[s.start : s.end], s.style.color.number) for s in text.spans]  # type: ignore[union-attr]
    assert colours == [("B", 4), ("AAA", 1)]


def test_endless_sgr_does_not_grow_the_line() -> None:
    lines = feed_all(["\x1b[1m" * 10_000 + "x\n"])
    assert len(lines[0]) < 200
    assert plain(lines[0]) == "x"


# ---------------------------------------------------------------------------- dropped
@pytest.mark.parametrize(
    "raw",
    [
        "a\x1b]0;EVIL TITLE\x07b",  # OSC title, BEL terminated
        "a\x1b]2;EVIL TITLE\x1b\\b",  # OSC title, ST terminated
        "a\x1b]52;c;ZXZpbA==\x07b",  # OSC 52 clipboard write
        "a\x1b]8;;https://evil.example\x1b\\b",  # OSC 8 hyperlink
        "a\x1bP1$tEVIL\x1b\\b",  # DCS
        "a\x1b_APC EVIL\x1b\\b",  # APC
        "a\x1b^PM EVIL\x1b\\b",  # PM
        "a\x1bXSOS EVIL\x1b\\b",  # SOS
        "a\x1b]0;EVIL\x9cb",  # 8-bit ST
        "a\x1b]0;EVIL\x18b",  # CAN aborts the string
        "a\x1b[?1049hb",  # alternate screen
        "a\x1b[?25lb",  # hide cursor
        "a\x1b[?1000hb",  # mouse reporting
        "a\x1b[2J\x1b[Hb",  # clear screen, cursor home
        "a\x1b[10;10Hb",  # cursor position
        "a\x1b[3Ab",  # cursor up
        "a\x1b[6nb",  # device status report (would make the terminal type a reply)
        "a\x1b[>4;1mb",  # private-marker "m" is not SGR
        "a\x1b[0 qb",  # CSI with an intermediate (cursor style)
        "a\x1bcb",  # full reset
        "a\x1b7\x1b8b",  # save and restore cursor
        "a\x1b(0b",  # charset designation (would switch to line drawing)
        "a\x07\x00\x0b\x0c\x7fb",  # bell and other C0 controls, DEL
        "a\x9b31m\x90\x9d\x85b",  # 8-bit C1 controls
    ],
)
def test_everything_that_acts_on_the_terminal_is_dropped(raw: str) -> None:
    lines = feed_all([raw])
    joined = "\n".join(lines)
    assert "\x1b" not in joined
    assert not CONTROL.search(joined.replace("\n", ""))
    assert "EVIL" not in joined
    assert joined.startswith("a") and joined.endswith("b")


def test_sequence_inside_a_string_terminator_position() -> None:
    # ESC ends an OSC even when it starts another sequence, as in real terminals: the SGR survives.
    lines = feed_all(["\x1b]0;title\x1b[31mred\n"])
    assert plain(lines[0]) == "red"
    assert lines[0].startswith("\x1b[31m")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a\x1b[12;\x01xb", "axb"),  # a control inside CSI aborts it, the rest is text
        ("a\x1b\x01b", "ab"),  # ESC before a control
        ("a\x1bé", "aé"),  # ESC before non-ASCII: only the ESC goes
        ("unterminated \x1b]0;title forever", "unterminated "),
        ("unterminated csi \x1b[12;", "unterminated csi "),
        ("lone esc\x1b", "lone esc"),
    ],
)
def test_invalid_and_unfinished_sequences(raw: str, expected: str) -> None:
    assert "\n".join(feed_all([raw])) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "x\x1b]0;split title\x1b\\y\x1b[1;32mgreen\x1b[0m\r\nprogress 1%\rprogress 100%\n",
        "\x1bP+q544e\x1b\\abc\x1b[?1049h\x1b(B\x1b[38;2;10;20;30mrgb\x1b[Kz\n",
        "über 😀 \x1b[4munder\x1b[24m\tend\x1b]52;c;AAAA\x07\n",
    ],
)
def test_sequences_split_at_every_position(raw: str) -> None:
    whole = feed_all([raw])
    for cut in range(1, len(raw)):
        assert feed_all([raw[:cut], raw[cut:]]) == whole, cut
    assert feed_all(list(raw)) == whole


# ---------------------------------------------------------------------------- properties
_FRAGMENTS = st.sampled_from(
    [
        "a",
        "é",
        " ",
        "\n",
        "\r",
        "\b",
        "\t",
        "\x1b",
        "[",
        "]",
        "P",
        "\\",
        "\x07",
        "\x9c",
        "\x9b",
        "0;",
        "1",
        "31m",
        "m",
        "?1049h",
        "K",
        "H",
        "\x1b[",
        "\x1b]0;",
        "\x1b[0m",
        "\x1b[38;5;",
        "\x18",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40), st.lists(st.integers(0, 200), max_size=4))
def test_any_input_is_safe_and_chunking_does_not_matter(frags: list[str], cuts: list[int]) -> None:
    raw = "".join(frags)
    whole = feed_all([raw])
    points = sorted({min(c, len(raw)) for c in cuts})
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert feed_all(chunks) == whole
    for line in whole:
        assert not CONTROL.search(SGR.sub("", line)), repr(line)
        assert "\x1b" not in SGR.sub("", line)
        styled_line(line)  # never raises


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_strip_control_and_sanitize_text_are_safe(text: str) -> None:
    stripped = strip_control(text)
    assert not CONTROL.search(stripped)
    cleaned = sanitize_text(text)
    assert not CONTROL.search(cleaned.replace("\n", "").replace("\t", ""))


# ---------------------------------------------------------------------------- one-shot helpers
def test_strip_control_for_titles() -> None:
    raw = "\x1b]0;pwned\x07Run \x1b[1mtests\x1b[0m\n\tnow\x07\x9b2J"
    assert strip_control(raw) == "Run tests now2J"


def test_sanitize_text_keeps_lines_and_tabs_only() -> None:
    raw = "a\r\nb\rc\x1b]0;t\x07\x1b[31md\x1b[?25l\te"
    assert sanitize_text(raw) == "a\nb\ncd\te"


def test_a_finished_partial_line_is_a_line() -> None:
    assert [plain(x) for x in feed_all(["a\rb\n\x1b[1mc"])] == ["b", "c"]


# ---------------------------------------------------------------------------- styled lines
# (tests/tui/test_terminal_pane.py checks that the bulk fast path stores what the general one does)
_RUNS = st.sampled_from(
    ["abc", "wxyz", "é漢", " ", "\n", "\n\n", "\r", "\t", "\x1b[31m", "\x1b[0m", "\x1b[1;38;5;0m"]
)
# Mostly what the fast path takes (text, LF, CR, TAB, SGR), now and then anything at all.
_OUTPUT = st.one_of(_RUNS, _RUNS, _RUNS, _FRAGMENTS)


@settings(max_examples=200, deadline=None)
@given(st.lists(_OUTPUT, max_size=40))
def test_stored_lines_parse_once_into_what_rich_reads(frags: list[str]) -> None:
    buffer = TerminalScreenBuffer()
    buffer.feed("".join(frags))
    buffer.finish()
    for number, line in enumerate(buffer.lines):
        styled = buffer.styled(number)
        expected = Text.from_ansi(line, end="", no_wrap=True)  # Rich's general decoder
        assert styled is not None
        assert styled.plain == expected.plain
        assert styled.spans == expected.spans
        assert buffer.styled(number) is styled  # parsed once


def test_styled_lines_go_with_the_lines_they_belong_to() -> None:
    buffer = TerminalScreenBuffer(max_chars=20)
    buffer.feed("\x1b[31mone\ntwo\n")
    assert buffer.styled(0) is not None
    buffer.feed("three\nfour\nfive\nsix\n")
    assert buffer.dropped_lines > 0
    assert buffer.styled(0) is None
    last = buffer.dropped_lines + len(buffer.lines) - 1
    styled = buffer.styled(last)
    assert styled is not None and styled.plain == "six"
