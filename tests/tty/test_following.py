"""Case 1 of issue 12: the transcript follows the end of what streams in, unless the user
scrolled away, and follows again once they come back to the end.

Each test learns that the agent has sent everything through a side channel (a file the
scripted agent touches, or dsh-agent's session log), then gives the screen a bounded time to
show the last line: a view that stopped following fails with the screen in the message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from harness import (
    SIZES,
    TtyApp,
    agent_command,
    header_ready,
    script_agent_command,
    size_id,
    turns_ended,
)
from harness import wait_until as wait_for_file
from loads import TOKEN, held_word_stream, nonce, tall_reply, tool_calls

# Once the agent has sent everything, the screen has this long to show the end.
RENDER = 15.0

Start = Callable[..., TtyApp]


def ready(app: TtyApp) -> None:
    app.wait_for(header_ready)


def send(app: TtyApp, prompt: str) -> None:
    app.type(prompt)
    time.sleep(0.1)
    app.key("enter")


def scripted(home: Path, actions: list[dict[str, object]], done: Path) -> list[str]:
    """--agent args for a scripted agent that plays `actions`, then touches `done`."""
    script = {"agent_name": "script-agent", "prompts": [[*actions, {"touch": str(done)}]]}
    return ["--agent", script_agent_command(home / "script.json", script)]


def tokens(lines: list[str]) -> list[int]:
    """The stream's words on screen (w0123 -> 123), top to bottom."""
    return [int(match) for line in lines for match in TOKEN.findall(line)]


def wait_tokens_still(app: TtyApp, quiet: float = 0.4, timeout: float = 15.0) -> list[int]:
    """The words on screen once they stopped changing for `quiet` s (a scroll has landed)."""
    deadline = time.monotonic() + timeout
    last, since = tokens(app.display()), time.monotonic()
    while time.monotonic() - since < quiet:
        if time.monotonic() > deadline:
            raise AssertionError(f"the view never held still\n{app.dump()}")
        time.sleep(0.02)
        now = tokens(app.display())
        if now != last:
            last, since = now, time.monotonic()
    return last


def page_up_and_hold(app: TtyApp) -> list[int]:
    """PageUp, then the words on screen once the view moved up and held still.

    Waiting for the move first: on a loaded machine the key can be handled after the screen
    was quiet for a while, and a view read before that would be the one PageUp leaves."""
    top = min(tokens(app.display()), default=0)
    app.key("pageup")
    app.wait_for(
        lambda lines: min(tokens(lines), default=top) < top, RENDER, "PageUp to move the view"
    )
    return wait_tokens_still(app)


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_reply_three_screens_tall_ends_on_screen(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    marker, done = f"END-{nonce()}", home / "done"
    rows = size[1]
    # two rows a paragraph: the reply is three screens and a half tall
    app = tty(scripted(home, tall_reply(rows * 7 // 4, marker), done), size=size)
    ready(app)
    send(app, "go")
    wait_for_file(done.exists, what="the agent to send the whole reply")
    app.wait_for(marker, timeout=RENDER)


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_burst_of_100_tool_calls_ends_on_screen(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    marker, done = f"END-{nonce()}", home / "done"
    app = tty(scripted(home, tool_calls(100, 1, marker), done), size=size)
    ready(app)
    send(app, "go")
    wait_for_file(done.exists, what="the agent to send every call")
    app.wait_for(marker, timeout=RENDER)


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_command_printing_100000_lines_ends_on_screen(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    """`$ seq 1 100000` through the offline dsh-agent: the card, then its one-line summary."""
    app = tty(["--agent", agent_command("--mode", "full-access")], size=size)
    ready(app)
    send(app, "$ seq 1 100000; echo SEQ-DONE")
    wait_for_file(lambda: turns_ended(home) >= 1, what="dsh-agent to end the turn")
    # The command's last output line, and the summary below the card (the turn's last line).
    app.wait_for(_output_then_summary("SEQ-DONE", "Done."), RENDER, "the card's end and the reply")


def _output_then_summary(last_output: str, summary: str) -> Callable[[list[str]], bool]:
    def check(lines: list[str]) -> bool:
        output = [i for i, line in enumerate(lines) if line.strip(" │") == last_output]
        reply = [i for i, line in enumerate(lines) if line.strip() == summary]
        return bool(output) and bool(reply) and reply[-1] > output[-1]

    return check


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_offline_demo_ends_on_screen(tty: Start, home: Path, size: tuple[int, int]) -> None:
    """The demo in full-access mode: its last text line ends with "a real model."."""
    app = tty(["--agent", agent_command("--mode", "full-access")], size=size)
    ready(app)
    send(app, "demo")
    wait_for_file(lambda: turns_ended(home) >= 1, timeout=60, what="the demo to end")
    app.wait_for("real model.", timeout=RENDER)


@dataclass
class Stream:
    """A word stream held after its first `first` words until `release` exists; `done`
    appears once the agent sent the rest and the `marker` line after it."""

    app: TtyApp
    marker: str
    done: Path
    release: Path
    first: int


def stream_app(
    tty: Start, home: Path, size: tuple[int, int], screens: float = 5, pace: float = 0.04
) -> Stream:
    """An app receiving a long word stream (`screens` screenfuls, a 25th of a screen every
    `pace` s), returned once the view followed its first two screens. The stream then waits
    for `release`: what a test does before touching it happens while the stream is certainly
    not over, however slow the machine."""
    marker, done, release = f"END-{nonce()}", home / "done", home / "release"
    columns, rows = size
    screenful = (columns // 6) * rows
    first = 2 * screenful
    words = held_word_stream(
        first, int(screenful * screens) - first, marker, pace, screenful // 25, release
    )
    app = tty(scripted(home, words, done), size=size)
    ready(app)
    send(app, "go")

    # More than a screen and a half of words arrived and the view followed them.
    def followed(lines: list[str]) -> bool:
        return max(tokens(lines), default=0) > screenful * 3 // 2

    app.wait_for(followed, 30, "the view to follow the stream past a screenful")
    return Stream(app, marker, done, release, first)


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_page_up_during_a_stream_holds_the_view_still(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    stream = stream_app(tty, home, size)
    app, done, release = stream.app, stream.done, stream.release
    before = page_up_and_hold(app)
    assert before, f"no words on screen after PageUp\n{app.dump()}"
    release.touch()
    wait_for_file(done.exists, what="the stream to end")
    time.sleep(0.5)
    after = tokens(app.display())
    assert after == before, f"the view moved while text streamed in\n{app.dump()}"


@pytest.mark.parametrize("back", ["pagedown", "ctrl+end", "end"])
def test_coming_back_to_the_end_resumes_following(tty: Start, home: Path, back: str) -> None:
    stream = stream_app(tty, home, (80, 24), screens=4, pace=0.06)
    app, newest = stream.app, stream.first - 1  # the last word before the stream holds
    held = page_up_and_hold(app)
    assert newest not in held, f"PageUp left the newest word on screen\n{app.dump()}"

    if back == "pagedown":
        # As a person does: a page at a time, until the newest word is on screen again.
        for _ in range(30):
            app.key("pagedown")
            if newest in wait_tokens_still(app):
                break
    else:
        app.key(back)
    app.wait_for(lambda lines: newest in tokens(lines), RENDER, "the end of the stream so far")
    # Following again: the rest of the stream comes in and its last line is on screen.
    stream.release.touch()
    app.wait_for(stream.marker, timeout=RENDER)


def test_resize_during_a_stream_keeps_following(tty: Start, home: Path) -> None:
    stream = stream_app(tty, home, (80, 24))
    stream.app.resize(140, 45)
    time.sleep(0.5)
    stream.app.resize(100, 30)
    stream.release.touch()
    wait_for_file(stream.done.exists, what="the stream to end")
    stream.app.wait_for(stream.marker, timeout=RENDER)
