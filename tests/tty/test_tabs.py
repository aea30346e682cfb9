"""Several sessions in one window (issue 30), as a person meets them: tabs on scripted agents,
a question waiting in a tab out of sight, closing a tab with a turn running, and a long stream
that arrived while its tab was hidden."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from harness import SIZES, TtyApp, header_ready, script_agent_command, size_id, turns_ended
from harness import wait_until as wait_for_file
from loads import nonce

Start = Callable[..., TtyApp]
OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def reply(text: str) -> dict[str, object]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


def tab(home: Path, name: str, turns: list[list[dict[str, object]]]) -> str:
    """`--tab` for a scripted agent named `name` in its own directory `home/name`."""
    workspace = home / name
    workspace.mkdir(exist_ok=True)
    script = {"agent_name": name, "prompts": turns}
    return f"{script_agent_command(home / f'{name}.json', script)}@{workspace}"


def bar(lines: list[str]) -> str:
    return lines[0]


def tabs_ready(count: int) -> Callable[[list[str]], bool]:
    """The bar names `count` connected tabs (each label `N · agent · dir`, idle)."""
    return lambda lines: all(f"{n} · " in bar(lines) for n in range(1, count + 1))


def shows(name: str) -> Callable[[list[str]], bool]:
    """The header (under the bar, or first once one tab is left) names tab `name`'s agent:
    that tab is the one shown."""
    return lambda lines: any(f"dsh-tui · {name} " in line for line in lines[:2])


def send(app: TtyApp, text: str) -> None:
    app.type(text)
    time.sleep(0.1)
    app.key("enter")


def go_in_tab_2(app: TtyApp) -> None:
    """Send "go" in tab 2 (agent "back"), then come back to tab 1 (agent "front")."""
    app.key("alt+2")
    app.wait_for(shows("back"), message="tab 2's header")
    send(app, "go")
    app.key("alt+1")
    app.wait_for(shows("front"), message="tab 1's header")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_three_tabs_each_talk_to_their_own_agent(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    marks = [f"REPLY-{n}-{nonce()}" for n in (1, 2, 3)]
    args = []
    for n, mark in enumerate(marks, 1):
        args += ["--tab", tab(home, f"ag{n}", [[reply(mark)]])]
    app = tty(args, size=size)
    lines = app.wait_for(tabs_ready(3), timeout=30, message="three connected tabs")
    assert "ag1" in bar(lines) and "ag3" in bar(lines), app.dump()
    send(app, "go")
    app.wait_for(marks[0])
    app.key("alt+3")
    app.wait_for(shows("ag3"), message="tab 3's header")
    send(app, "go")
    lines = app.wait_for(marks[2])
    assert marks[0] not in "\n".join(lines), app.dump()
    app.key("ctrl+pageup")  # to tab 2: nothing sent there yet
    lines = app.wait_for(shows("ag2"), message="tab 2's header")
    assert not any(mark in "\n".join(lines) for mark in marks), app.dump()
    app.key("alt+1")
    lines = app.wait_for(marks[0])
    assert marks[2] not in "\n".join(lines), app.dump()


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_a_question_in_a_background_tab_is_marked_notified_and_answered_after_the_jump(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    release = home / "ask-now"
    call = {"toolCallId": "c1", "title": "Edit far.py", "kind": "edit", "status": "pending"}
    asking = [{"wait_file": str(release)}, {"permission": {"toolCall": call, "options": OPTIONS}}]
    app = tty(
        ["--tab", tab(home, "front", [[reply("nothing")]]), "--tab", tab(home, "back", [asking])],
        size=size,
    )
    app.wait_for(tabs_ready(2), timeout=30, message="two connected tabs")
    go_in_tab_2(app)  # its turn waits for the file before it asks
    release.touch()
    app.wait_for(lambda lines: "2 ? " in bar(lines), message="tab 2 marked waiting")
    lines = app.wait_for("Tab 2 (back · back) asks: Edit", message="the notification")
    assert "Allow once" not in "\n".join(lines)  # the question is not this tab's
    app.key("ctrl+g")
    app.wait_for("Allow once", message="the question, after the jump")
    app.key("tab")  # the question takes the keys
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.send("a")
    app.wait_for("permission outcome: selected allow")
    app.wait_for(lambda lines: "2 · " in bar(lines), message="tab 2 no longer waiting")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_closing_a_tab_with_a_turn_running_asks_then_leaves_no_process(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    started = home / "started"
    long_turn = [{"touch": str(started)}, {"wait_file": str(home / "never")}]
    app = tty(
        ["--tab", tab(home, "keep", [[reply("kept")]]), "--tab", tab(home, "busy", [long_turn])],
        size=size,
    )
    app.wait_for(tabs_ready(2), timeout=30, message="two connected tabs")
    app.key("alt+2")
    app.wait_for(shows("busy"), message="tab 2's header")
    before = app.scan_processes()
    send(app, "go")
    wait_for_file(started.exists, what="tab 2's turn to start")
    app.key("ctrl+w")
    app.wait_for("A turn is running in this tab")
    app.key("enter")  # "Stop the turn and close the tab"
    lines = app.wait_for(shows("keep"), message="tab 1 shown")
    # One tab left: the bar goes, and the screen is a single session's again.
    assert lines[0].startswith(" dsh-tui · keep"), app.dump()
    # The closed tab's agent (and anything it started) is gone; tab 1's still runs.
    deadline = time.monotonic() + 10
    while True:
        alive = app.scan_processes()
        gone = before - alive
        if gone or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert gone, f"no process went away when the tab closed\n{app.dump()}"
    send(app, "go")
    app.wait_for("kept")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_a_stream_of_10000_chunks_in_a_hidden_tab_shows_its_end_on_switching(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    marker, done = f"END-{nonce()}", home / "streamed"
    stream = [
        {"stream": {"count": 10_000, "text": "w{i:05d} ", "batch": 200}},
        reply(f"\n\n{marker}"),
        {"touch": str(done)},
    ]
    hold = home / "go-now"
    app = tty(
        [
            "--tab",
            tab(home, "front", [[reply("idle")]]),
            "--tab",
            tab(home, "back", [[{"wait_file": str(hold)}, *stream]]),
        ],
        size=size,
    )
    app.wait_for(tabs_ready(2), timeout=30, message="two connected tabs")
    go_in_tab_2(app)
    hold.touch()
    wait_for_file(done.exists, what="the hidden tab's stream to end", timeout=60)
    app.wait_for(lambda lines: "2 ✓ " in bar(lines), message="tab 2 finished while away")
    assert marker not in app.text()
    app.key("alt+2")
    app.wait_for(marker, timeout=15)
    app.wait_for(lambda lines: "2 · " in bar(lines), message="seen: no longer marked")


def test_resume_opens_the_last_windows_tabs_each_on_its_session(tty: Start, home: Path) -> None:
    """Quit with two tabs on agents that can load sessions; `--resume` opens both again, each
    loading its own session (the agent replays its history), in its own directory."""
    tabs = []
    for name in ("left", "right"):
        workspace = home / name
        workspace.mkdir()
        history = [reply(f"HISTORY-OF-{name.upper()}")["update"]]
        script = {"agent_name": name, "load": history, "prompts": [[reply("hi")]]}
        tabs += ["--tab", f"{script_agent_command(home / f'{name}.json', script)}@{workspace}"]
    first = tty(tabs, size=(80, 24))
    first.wait_for(tabs_ready(2), timeout=30, message="two connected tabs")
    assert first.quit() == 0

    again = tty(["--resume"], size=(80, 24))
    lines = again.wait_for(tabs_ready(2), timeout=30, message="the two tabs again")
    assert "left · left" in bar(lines) and "right · right" in bar(lines), again.dump()
    again.wait_for("HISTORY-OF-LEFT", message="tab 1's session loaded")
    again.key("alt+2")
    lines = again.wait_for("HISTORY-OF-RIGHT", message="tab 2's session loaded")
    assert "HISTORY-OF-LEFT" not in "\n".join(lines), again.dump()


def test_fork_into_a_new_tab_carries_the_conversation_and_then_goes_its_own_way(
    tty: Start, home: Path
) -> None:
    """dsh-agent offers session/fork: the palette's "Fork into a new tab" opens tab 2, whose
    own agent process loads the fork (its history shows); what is said there stays there."""
    first, second = f"FIRST-{nonce()}", f"SECOND-{nonce()}"
    app = tty(size=(80, 24))
    app.wait_for(header_ready)
    send(app, first)
    wait_for_file(lambda: turns_ended(home) == 1, what="the first turn")
    app.key("ctrl+p")
    app.wait_for("Search for commands")
    app.type("Fork into")
    app.wait_for("Fork into a new tab")
    app.key("enter")
    lines = app.wait_for(tabs_ready(2), timeout=30, message="the fork's tab")
    app.wait_for(f"› {first}", message="the fork's history, loaded in tab 2")
    app.wait_for("Forked into tab 2")
    send(app, second)
    # The source's turn, the fork's copy of it, and the fork's own.
    wait_for_file(lambda: turns_ended(home) == 3, what="the fork's turn")
    app.wait_for(f"› {second}")
    app.key("alt+1")
    lines = app.wait_gone(f"› {second}", timeout=10)
    assert f"› {first}" in "\n".join(lines), app.dump()
    logs = {path.read_text().count('"type":"turn/end"') for path in (home / "sessions").glob("*")}
    assert logs == {1, 2}, logs


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_a_background_tabs_login_waits_for_its_tab_then_opens_there(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    """Tab 2's agent wants a login while tab 1 is shown: the picker does not open over tab 1
    (as if tab 1 asked); tab 2 is marked and notified, and Ctrl+G opens the login on it."""
    account = {"id": "acct", "name": "Acme account", "description": "Log in with the browser"}
    workspace = home / "locked"
    workspace.mkdir()
    script = {
        "agent_name": "locked",
        "prompts": [[reply("LOGGED-IN-REPLY")]],
        "auth": {"methods": [account], "accept": "acct"},
    }
    locked = f"{script_agent_command(home / 'locked.json', script)}@{workspace}"
    app = tty(["--tab", tab(home, "open", [[reply("hi")]]), "--tab", locked], size=size)
    lines = app.wait_for(
        lambda lines: "Tab 2 (python · locked) asks: a" in "\n".join(lines),
        timeout=30,
        message="the notification naming tab 2",
    )
    assert "?" in bar(lines) and "Log in to the agent" not in "\n".join(lines), app.dump()
    assert shows("open")(lines), app.dump()
    app.wait_for("^g Question")
    app.key("ctrl+g")
    app.wait_for("Log in to the agent", message="the login, on tab 2")
    app.wait_for("Log in with the browser")
    app.key("enter")
    app.wait_for(tabs_ready(2), timeout=30, message="tab 2 connected after the login")
    send(app, "go")
    app.wait_for("LOGGED-IN-REPLY")


def test_while_the_shown_tab_streams_a_hidden_tab_still_streams_and_asks(
    tty: Start, home: Path
) -> None:
    """The shown tab comes first (tui/tabs/priority.py), but a hidden tab never stops: its
    stream and then its question arrive while the shown tab is still streaming. After the
    jump, the question and the hidden stream's end are on screen together: the view is at the
    end from the first frame (`ConversationView.before_shown`, tests/tui), and the message's
    widget, which may be a few batches behind the state while the shown tab is busy, catches
    up under it."""
    start = home / "start"
    call = {"toolCallId": "c1", "title": "Edit far.py", "kind": "edit", "status": "pending"}
    hidden = [
        {"wait_file": str(start)},
        {"stream": {"count": 600, "text": "back{i} "}},
        {"permission": {"toolCall": call, "options": OPTIONS}},
    ]
    front = [
        {"wait_file": str(start)},
        # About 30 s of streaming at most: far longer than the hidden tab needs.
        {"stream": {"count": 60_000, "text": "front{i} ", "batch": 20, "pace": 0.01}},
        reply("FRONT-DONE"),
    ]
    app = tty(["--tab", tab(home, "front", [front]), "--tab", tab(home, "back", [hidden])])
    app.wait_for(tabs_ready(2), timeout=30, message="two connected tabs")
    go_in_tab_2(app)
    send(app, "go")
    start.touch()
    app.wait_for(lambda lines: re.search(r"front\d+ ", "\n".join(lines)), message="tab 1 streams")
    lines = app.wait_for(lambda lines: "2 ? " in bar(lines), message="tab 2's question")
    assert "FRONT-DONE" not in "\n".join(lines), app.dump()
    app.key("ctrl+g")
    app.wait_for(
        lambda lines: "Allow once" in "\n".join(lines) and "back599" in "\n".join(lines),
        message="the question and the hidden stream's end, after the jump",
    )
    app.key("ctrl+q")  # tab 1 still streams: asked once, then everything stops
    app.wait_for("Stop them and quit")
    app.key("enter")
    assert app.wait_exit() == 0
