"""Case 1 of issue 12: the transcript follows the end of what streams in, unless the user
scrolled away, and follows again once they come back to the end.

Each test learns that the agent has sent everything through a side channel (a file the
scripted agent touches, or dsh-agent's session log), then gives the screen a bounded time to
show the last line: a view that stopped following fails with the screen in the message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
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
from loads import TOKEN, nonce, tall_reply, tool_calls, word_stream

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


def settles(app: TtyApp, quiet: float, within: float) -> bool:
    """Whether the words on screen stop changing for `quiet` s within `within` s."""
    deadline = time.monotonic() + within
    last, since = tokens(app.display()), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.02)
        now = tokens(app.display())
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return True
    return False


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


def stream_app(
    tty: Start, home: Path, size: tuple[int, int], screens: float = 5, pace: float = 0.04
) -> tuple[TtyApp, str, Path, int]:
    """An app receiving a long word stream (`screens` screenfuls, a 25th of a screen every
    `pace` s: about 5 s by default), returned once the view followed it past 1.5 screens."""
    marker, done = f"END-{nonce()}", home / "done"
    columns, rows = size
    screenful = (columns // 6) * rows
    words = word_stream(int(screenful * screens), marker, pace, screenful // 25)
    app = tty(scripted(home, words, done), size=size)
    ready(app)
    send(app, "go")

    # More than a screen of words has arrived and the view followed it (a view that does not
    # follow is reported a few seconds after the stream ended, not after a long timeout).
    def followed(lines: list[str]) -> bool:
        return max(tokens(lines), default=0) > screenful * 3 // 2

    app.wait_for(lambda lines: followed(lines) or done.exists(), 30, "a screenful")
    app.wait_for(followed, 5, "the view to follow the stream past a screenful")
    return app, marker, done, screenful


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_page_up_during_a_stream_holds_the_view_still(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    app, _marker, done, _ = stream_app(tty, home, size)
    app.key("pageup")
    before = wait_tokens_still(app)
    assert before, f"no words on screen after PageUp\n{app.dump()}"
    assert not done.exists(), "the stream ended before the test could scroll"
    wait_for_file(done.exists, what="the stream to end")
    time.sleep(0.5)
    after = tokens(app.display())
    assert after == before, f"the view moved while text streamed in\n{app.dump()}"


@pytest.mark.parametrize("back", ["pagedown", "ctrl+end", "end"])
def test_coming_back_to_the_end_resumes_following(tty: Start, home: Path, back: str) -> None:
    # slower: the way back to the end must be done while the stream still runs
    app, marker, done, _ = stream_app(tty, home, (80, 24), screens=4, pace=0.06)
    app.key("pageup")
    held = wait_tokens_still(app)
    assert not done.exists(), "the stream ended before the test could scroll"

    if back == "pagedown":
        # As a person does: a page at a time, until the view moves on its own (it follows the
        # stream again) instead of settling where the page landed.
        for _ in range(30):
            app.key("pagedown")
            if not settles(app, quiet=0.3, within=2.0):
                break
    else:
        app.key(back)
    # Following again: newer words than the held view come in while the stream goes on...
    app.wait_for(
        lambda lines: max(tokens(lines), default=0) > max(held, default=0) + 50,
        RENDER,
        "the newest words after coming back to the end",
    )
    # ...and its last line once it is over.
    wait_for_file(done.exists, what="the stream to end")
    app.wait_for(marker, timeout=RENDER)


def test_resize_during_a_stream_keeps_following(tty: Start, home: Path) -> None:
    app, marker, done, _ = stream_app(tty, home, (80, 24))
    app.resize(140, 45)
    time.sleep(0.5)
    app.resize(100, 30)
    assert not done.exists(), "the stream ended before the resize"
    wait_for_file(done.exists, what="the stream to end")
    app.wait_for(marker, timeout=RENDER)
