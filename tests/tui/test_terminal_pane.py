"""The terminal pane: output in, safe styled rows out, exit badges, truncation, tail-follow.

Also the sanitizer's bulk paths that make a 10 MB burst affordable: they must store exactly what
the token-by-token parser stores.
"""

from __future__ import annotations

import asyncio
import random
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip

from support import end_display, wait_until
from tui.terminal.source import SpecTerminal, TerminalFeed, TerminalState
from tui.terminal.stream import TerminalScreenBuffer
from tui.terminal.terminals import TerminalManager
from tui.widgets.terminal.header import status_content
from tui.widgets.terminal.pane import (
    TerminalPane,
    display_cwd,
    format_bytes,
    format_duration,
    signal_name,
)

SESSION = Path("/project")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Host(App[None]):
    """One or more panes in a scrolling column, plus a key binding to prove the loop is free."""

    BINDINGS = [Binding("x", "mark", "Mark")]

    def __init__(self, *panes: TerminalPane) -> None:
        super().__init__()
        self.panes = panes
        self.marks: list[bool] = []

    def on_load(self) -> None:
        self.theme = "textual-dark"

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield from self.panes

    def action_mark(self) -> None:
        # Record whether the burst was still being parsed when the key was handled.
        self.marks.append(self.panes[0].busy)


def pane(*, cwd: str | None = None, max_chars: int | None = None, **kwargs: Any) -> TerminalPane:
    """A pane following a display terminal, as a card shows an agent's command."""
    output = TerminalFeed() if max_chars is None else TerminalFeed(max_chars)
    kwargs.setdefault("command", "make test")
    kwargs.setdefault("session_cwd", SESSION)
    return TerminalPane(TerminalState("term-1", cwd=cwd, output=output), **kwargs)


def feed(p: TerminalPane, data: str) -> None:
    """Output arrives, as from the agent's `_meta.terminal_output`."""
    p.source.output.append(data)


async def shown(pilot: Any, *panes: TerminalPane) -> None:
    """Until the panes show all the output that arrived."""
    await wait_until(pilot, lambda: not any(p.busy for p in panes))
    await pilot.pause()


def strip_text(strip: Strip) -> str:
    return "".join(segment.text for segment in strip)


def screen_rows(p: TerminalPane) -> list[str]:
    return [strip_text(p.view.render_line(y)).rstrip() for y in range(p.view.size.height)]


# ---------------------------------------------------------------------------- helpers
@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0.04, "0.0 s"), (0.44, "0.4 s"), (9.96, "10.0 s"), (12.7, "12 s"), (185, "3 m 05 s")],
)
def test_format_duration(seconds: float, shown: str) -> None:
    assert format_duration(seconds) == shown


def test_format_bytes() -> None:
    assert [format_bytes(n) for n in (812, 55_296, 11_010_048)] == ["812 B", "54 KB", "10.5 MB"]


@pytest.mark.parametrize(
    ("raw", "name"),
    [("SIGTERM", "SIGTERM"), ("TERM", "SIGTERM"), ("kill", "SIGKILL"), ("9", "SIGKILL")],
)
def test_signal_name(raw: str, name: str) -> None:
    assert signal_name(raw) == name


def test_signal_name_keeps_unknown_text_but_not_escapes() -> None:
    assert signal_name("\x1b]0;x\x07weird") == "weird"


def test_display_cwd() -> None:
    assert display_cwd("/project/src/app", SESSION) == "src/app"
    assert display_cwd("src", SESSION) == "src"  # relative to the session
    assert display_cwd("/project", SESSION) == ""  # the session directory: not repeated
    assert display_cwd(".", SESSION) == ""
    assert display_cwd("/etc", SESSION) == "/etc"
    assert display_cwd(str(Path.home() / "proj"), Path("/elsewhere")) == "~/proj"
    assert display_cwd(None, SESSION) == ""


# ---------------------------------------------------------------------------- output
async def test_deltas_and_one_chunk_show_the_same_lines() -> None:
    text = "one\ntwo \x1b[32mgreen\x1b[0m\nthree"
    streamed, whole = pane(), pane()
    async with Host(streamed, whole).run_test() as pilot:
        for ch in text:
            feed(streamed, ch)
        feed(whole, text)
        await shown(pilot, streamed, whole)
        assert (
            streamed.view.plain_lines() == whole.view.plain_lines() == ["one", "two green", "three"]
        )
        assert streamed.received_bytes == whole.received_bytes == len(text.encode())


async def test_carriage_return_redraws_the_line_live() -> None:
    p = pane()
    async with Host(p).run_test() as pilot:
        feed(p, "downloading  10%")
        await pilot.pause()
        assert p.view.plain_lines() == ["downloading  10%"]  # the partial line is shown
        feed(p, "\rdownloading  55%")
        await pilot.pause()
        assert screen_rows(p) == ["downloading  55%"]
        feed(p, "\rdownloading 100%\ndone\n")
        await pilot.pause()
        assert p.view.plain_lines() == ["downloading 100%", "done"]


async def test_ansi_colours_become_styles_and_nothing_raw_reaches_the_screen() -> None:
    p = pane()
    async with Host(p).run_test() as pilot:
        feed(p, "\x1b]0;EVIL TITLE\x07\x1b[?1049h\x1b[31mred\x1b[0m plain\x1b]52;c;AAAA\x07\n")
        await pilot.pause()
        strip = p.view.render_line(0)
        assert strip_text(strip).rstrip() == "red plain"
        red = next(segment for segment in strip if segment.text == "red")
        assert red.style is not None and red.style.color is not None
        plain = next(segment for segment in strip if segment.text.startswith(" plain"))
        assert plain.style is not None and plain.style.color != red.style.color
        for segment in strip:
            assert not CONTROL.search(segment.text)


async def test_invalid_text_is_replaced_not_a_crash() -> None:
    p = pane()
    async with Host(p).run_test() as pilot:
        feed(p, "bad \udcff byte\n")
        await pilot.pause()
        assert p.view.plain_lines() == ["bad ? byte"]
        p.app.export_screenshot()  # renders and encodes the whole screen


async def test_output_appended_before_mount_is_shown() -> None:
    small, big = pane(), pane()
    feed(small, "early line\n")
    feed(big, "".join(f"line {i}\n" for i in range(20_000)))  # over the immediate-parse size
    async with Host(small, big).run_test() as pilot:
        await shown(pilot, big)
        assert small.view.plain_lines() == ["early line"]
        assert big.line_count == 20_000
        assert big.view.plain_lines()[-1] == "line 19999"


# ---------------------------------------------------------------------------- header
@pytest.mark.parametrize(
    ("exit_code", "sig", "timeout", "badge", "failed"),
    [
        (0, None, None, "✓ exit 0", False),
        (3, None, None, "✕ exit 3", True),
        (255, None, None, "✕ exit 255", True),
        (None, "SIGTERM", None, "✕ killed by SIGTERM", True),
        (None, "SIGKILL", 60.0, "✕ timed out after 60 s", True),
        (None, None, None, "■ exited", False),
    ],
)
async def test_exit_badges(
    exit_code: int | None, sig: str | None, timeout: float | None, badge: str, failed: bool
) -> None:
    clock = Clock(100.0)
    p = pane(cwd="/project/src", clock=clock)
    async with Host(p).run_test() as pilot:
        assert status_content(p).plain == "src · ⠋ running · 0.0 s"
        clock.now = 102.5
        end_display(p, exit_code, sig, timeout)
        await pilot.pause()
        assert status_content(p).plain == f"src · {badge} · 2.5 s"
        assert p.has_class("-failed") is failed
        clock.now = 200.0  # a finished command's duration no longer moves
        assert p.duration == 2.5


async def test_duration_without_an_injected_clock_is_still_computed() -> None:
    p = pane(started_at=10.0)
    async with Host(p).run_test():
        end_display(p, 0, duration_s=1.5)
        assert p.duration == 1.5
        assert status_content(p).plain.endswith("1.5 s")


async def test_prompt_line_and_cwd() -> None:
    unnamed, named = pane(command=None), pane(command="pytest -q\x1b]0;x\x07")
    async with Host(unnamed, named).run_test() as pilot:
        header = unnamed.query_one(".terminal-pane--command")
        assert str(header.render()) == "❯ command"  # not the id, term-1
        assert str(named.query_one(".terminal-pane--command").render()) == "❯ pytest -q"
        state = unnamed.source
        assert isinstance(state, TerminalState)
        state.cwd = "/project/tests"  # the agent's `_meta.terminal_info` came
        state.changed()
        await pilot.pause()
        assert status_content(unnamed).plain.startswith("tests · ")


async def test_a_long_cwd_keeps_its_deep_end() -> None:
    p = pane(cwd="/project/" + "/".join(["directory"] * 6), clock=Clock())
    async with Host(p).run_test():
        assert status_content(p).plain == "…y/directory/directory/directory · ⠋ running · 0.0 s"


async def test_the_spinner_moves_on_the_transcripts_tick_and_stops_at_the_end() -> None:
    p = pane(clock=Clock())
    async with Host(p).run_test() as pilot:
        assert status_content(p).plain == "⠋ running · 0.0 s"
        await pilot.pause(0.25)
        assert status_content(p).plain == "⠋ running · 0.0 s"  # no timer of its own
        p.tick(3)
        assert status_content(p).plain == "⠸ running · 0.0 s"
        end_display(p, 0)
        done = status_content(p).plain
        p.tick(4)
        assert status_content(p).plain == done


async def test_ascii_glyphs() -> None:
    p = pane(ascii_glyphs=True, cwd="/project/src", clock=Clock())
    async with Host(p).run_test() as pilot:
        assert status_content(p).plain == "src - | running - 0.0 s"
        end_display(p, 0, duration_s=1.0)
        await pilot.pause()
        assert status_content(p).plain == "src - ok exit 0 - 1.0 s"
        assert str(p.query_one(".terminal-pane--command").render()) == "> make test"


async def test_selected_text_is_plain() -> None:
    p = pane()
    async with Host(p).run_test() as pilot:
        feed(p, "\x1b[31mred\x1b[0m line\nsecond\n")
        await pilot.pause()
        selected = p.view.get_selection(Selection(Offset(4, 0), Offset(3, 1)))
        assert selected == ("line\nsec", "\n")


async def test_no_output_is_said() -> None:
    p = pane()
    async with Host(p).run_test() as pilot:
        end_display(p, 0)
        await pilot.pause()
        info = p.query_one(".terminal-pane--info")
        assert info.display and str(info.render()) == "(no output)"
        assert not p.view.display


# ---------------------------------------------------------------------------- size limits
async def test_height_is_capped_and_the_info_line_counts_lines() -> None:
    p = pane(max_rows=5)
    async with Host(p).run_test() as pilot:
        feed(p, "".join(f"line {i}\n" for i in range(3)))
        await pilot.pause()
        info = p.query_one(".terminal-pane--info")
        assert p.view.size.height == 3 and not info.display
        feed(p, "".join(f"line {i}\n" for i in range(3, 1204)))
        await pilot.pause()
        assert p.view.size.height == 5
        assert info.display
        assert str(info.render()) == f"▮ 1,204 lines · {format_bytes(p.received_bytes)}"
        assert p.received_bytes == 10_930


async def test_truncation_drops_the_head_and_says_so() -> None:
    p = pane(max_chars=2_000, max_rows=5)
    async with Host(p).run_test() as pilot:
        for i in range(500):
            feed(p, f"line {i:03d}\n")
        await pilot.pause()
        lines = p.view.plain_lines()
        assert p.truncated
        assert lines[-1] == "line 499"
        assert sum(len(line) + 1 for line in lines) <= 2_000
        assert p.line_count == 500
        info = p.query_one(".terminal-pane--info")
        assert str(info.render()) == "▮ 500 lines · 4 KB · truncated"
        assert info.tooltip is not None and "dropped" in str(info.tooltip)


async def test_a_burst_bigger_than_the_limit_keeps_the_tail() -> None:
    p = pane(max_chars=100_000)
    data = "".join(f"\x1b[3{i % 8}mline {i:06d}\x1b[0m\n" for i in range(50_000))
    async with Host(p).run_test() as pilot:
        feed(p, data)
        await shown(pilot, p)
        lines = p.view.plain_lines()
        assert p.truncated
        assert lines[-1] == "line 049999"
        assert lines == [f"line {i:06d}" for i in range(50_000 - len(lines), 50_000)]
        assert p.line_count == 50_000
        # The first kept line still has its colour: the pen was recovered from skipped text.
        first = p.view._buffer.lines[0]
        assert first.startswith(f"\x1b[3{(50_000 - len(lines)) % 8}m")


# ---------------------------------------------------------------------------- scrolling
async def test_the_view_follows_the_tail_until_the_user_scrolls_up() -> None:
    p = pane(max_rows=5)
    async with Host(p).run_test() as pilot:
        feed(p, "".join(f"line {i}\n" for i in range(100)))
        await pilot.pause()
        view = p.view
        assert view.following and view.scroll_y == view.max_scroll_y
        assert screen_rows(p)[-1] == "line 99"

        view.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert not view.following
        feed(p, "".join(f"line {i}\n" for i in range(100, 200)))
        await pilot.pause()
        assert view.scroll_y == 0
        assert screen_rows(p)[0] == "line 0"

        view.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        feed(p, "line 200\n")
        await pilot.pause()
        assert view.following and screen_rows(p)[-1] == "line 200"


async def test_scrolled_up_view_keeps_its_lines_while_the_head_is_dropped() -> None:
    p = pane(max_rows=5, max_chars=1_000)
    async with Host(p).run_test() as pilot:
        feed(p, "".join(f"line {i:03d}\n" for i in range(60)))
        await pilot.pause()
        view = p.view
        view.scroll_to(y=view.max_scroll_y - 20, animate=False, immediate=True)
        await pilot.pause()
        before = screen_rows(p)
        feed(p, "".join(f"line {i:03d}\n" for i in range(60, 70)))
        await pilot.pause()
        assert screen_rows(p) == before


# ---------------------------------------------------------------------------- big bursts
async def test_keys_are_handled_while_a_big_burst_is_parsed() -> None:
    p = pane()
    data = "".join(
        f"\x1b[32mPASSED\x1b[0m tests/test_{i:06d}.py::test_thing \x1b[1;31m{i % 7}\x1b[0m\n"
        for i in range(60_000)
    )
    app = Host(p)
    async with app.run_test() as pilot:
        feed(p, data)
        assert p.busy
        await pilot.press("x")
        await shown(pilot, p)
        assert app.marks == [True]  # handled before the burst was done
        assert p.view.plain_lines()[-1] == "PASSED tests/test_059999.py::test_thing 2"


# ---------------------------------------------------------------------------- real processes
async def test_a_real_process_through_the_terminal_manager(tmp_path: Path) -> None:
    manager = TerminalManager(default_cwd=tmp_path)
    script = (
        "import sys, time\n"
        "for n in (10, 50, 100):\n"
        "    sys.stdout.write(f'\\rprogress {n:3d}%'); sys.stdout.flush(); time.sleep(0.01)\n"
        "print()\n"
        "print('\\x1b[1;32mok\\x1b[0m \\x1b]0;title\\x07done')\n"
        "sys.exit(3)\n"
    )
    terminal_id = await manager.create(sys.executable, ["-c", script])
    p = TerminalPane(SpecTerminal(manager, terminal_id), session_cwd=tmp_path.parent)
    try:
        async with Host(p).run_test() as pilot:
            await manager.wait_for_exit(terminal_id)
            await wait_until(pilot, lambda: p.exited)
            await shown(pilot, p)
            assert p.view.plain_lines() == ["progress 100%", "ok done"]
            assert p.status.exit_code == 3
            assert status_content(p).plain.startswith(f"{tmp_path.name} · ✕ exit 3 · ")
            assert p.command is not None and p.command.startswith(shlex.quote(sys.executable))
    finally:
        await manager.close_all()


async def test_a_killed_process_shows_its_signal_and_replays_into_a_late_pane(
    tmp_path: Path,
) -> None:
    manager = TerminalManager(default_cwd=tmp_path)
    terminal_id = await manager.create(
        sys.executable, ["-u", "-c", "import time; print('started'); time.sleep(30)"]
    )
    try:
        await wait_until_output(manager, terminal_id, "started")
        await manager.kill(terminal_id)
        source = SpecTerminal(manager, terminal_id)
        p = TerminalPane(source, session_cwd=tmp_path)  # after the fact
        async with Host(p).run_test() as pilot:
            await pilot.pause()
            assert p.view.plain_lines() == ["started"]
            assert "✕ killed by SIGTERM" in status_content(p).plain
    finally:
        await manager.close_all()


async def wait_until_output(manager: TerminalManager, terminal_id: str, text: str) -> None:
    for _ in range(500):
        if text in manager.output(terminal_id).output:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{text!r} never appeared")


async def test_removing_the_pane_unsubscribes(tmp_path: Path) -> None:
    manager = TerminalManager(default_cwd=tmp_path)
    terminal_id = await manager.create("true")
    try:
        await manager.wait_for_exit(terminal_id)
        subscriptions: list[str] = []
        subscribe = manager.subscribe

        def counted(*args: Any) -> Callable[[], None]:
            stop = subscribe(*args)
            subscriptions.append("on")

            def unsubscribe() -> None:
                subscriptions.append("off")
                stop()

            return unsubscribe

        manager.subscribe = counted  # type: ignore[method-assign]
        source = SpecTerminal(manager, terminal_id)
        p = TerminalPane(source, session_cwd=tmp_path)
        async with Host(p).run_test() as pilot:
            assert subscriptions == ["on"]
            await p.remove()
            await pilot.pause()
            assert subscriptions == ["on", "off"]
    finally:
        await manager.close_all()


# ---------------------------------------------------------------------------- sanitizer paths
class SlowOnly(TerminalScreenBuffer):
    """The token-by-token parser alone: the reference for the bulk paths."""

    def feed(self, chunk: str) -> list[str]:
        self._new = []
        data = self._pending + chunk
        self._pending = ""
        self._feed_general(data)
        new, self._new = self._new, []
        self._trim()
        return new


_PIECES = [
    "a",
    "bc",
    "é",
    "漢",
    " ",
    "\n",
    "\n\n",
    "\r",
    "\t",
    "x" * 20,
    "\x1b[0m",
    "\x1b[31m",
    "\x1b[1;32m",
    "\x1b[m",
    "\x1b[38;5;0m",
    "\x1b[38;2;1;2;3m",
    "\x1b[1m\x1b[4m",
    "\x1b[22m",
    "\x1b[K",
    "\x1b]0;t\x07",
    "\x1b[",
    "m",
    ";",
    "\b",
]


# Only text, LF and SGR: the common coloured output, which takes the fastest path.
_SGR_PIECES = [p for p in _PIECES if p not in ("\r", "\t", "\b", "\x1b[K", "\x1b]0;t\x07", "\x1b[")]


def run_buffer(buffer: TerminalScreenBuffer, chunks: list[str]) -> tuple[list[str], list[str], int]:
    returned: list[str] = []
    for chunk in chunks:
        returned += buffer.feed(chunk)
    returned += buffer.finish()
    return returned, list(buffer.lines), buffer.max_cells


@pytest.mark.parametrize("pieces", [_PIECES, _SGR_PIECES], ids=["mixed", "sgr-only"])
@pytest.mark.parametrize("max_line_chars", [5, 9, 16_384])
def test_bulk_paths_store_what_the_slow_parser_stores(
    max_line_chars: int, pieces: list[str]
) -> None:
    rng = random.Random(max_line_chars)
    for _ in range(1_000):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 50)))
        cuts = sorted(rng.sample(range(len(raw) + 1), min(len(raw) + 1, rng.randint(0, 4))))
        chunks = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        expected = run_buffer(SlowOnly(max_line_chars=max_line_chars), [raw])
        assert run_buffer(TerminalScreenBuffer(max_line_chars=max_line_chars), [raw]) == expected
        assert run_buffer(TerminalScreenBuffer(max_line_chars=max_line_chars), chunks) == expected


def test_skip_head_keeps_an_exact_tail() -> None:
    rng = random.Random(7)
    for _ in range(1_000):
        raw = "".join(rng.choice(_PIECES) for _ in range(rng.randint(50, 300)))
        kwargs = {"max_chars": rng.choice([50, 150]), "max_line_chars": rng.choice([9, 16_384])}
        expected = SlowOnly(**kwargs)
        expected.feed(raw)
        got = TerminalScreenBuffer(**kwargs)
        got.feed(raw)  # longer than max_chars: parsed from where the kept tail starts
        lines, reference = list(got.lines), list(expected.lines)
        assert lines == reference[len(reference) - len(lines) :]
        assert got.partial == expected.partial


def test_max_cells_is_the_widest_line_in_cells() -> None:
    buffer = TerminalScreenBuffer()
    buffer.feed("ab\n\x1b[31mabcdef\x1b[0m\n漢字漢字\n")
    assert buffer.max_cells == 8


def test_skip_head_recovers_the_pen_past_many_other_sequences() -> None:
    head = "\x1b[0;35mmagenta\n" + "\x1b[2Kprogress\r" * 3_000 + "\n"
    tail = "".join(f"line {i}\n" for i in range(100))
    got, expected = TerminalScreenBuffer(max_chars=len(tail)), SlowOnly(max_chars=len(tail))
    got.feed(head + tail)
    expected.feed(head + tail)
    assert got.lines[0].startswith("\x1b[35mline ")
    assert list(got.lines) == list(expected.lines)[-len(got.lines) :]
