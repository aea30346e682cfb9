"""Case 2 of issue 12: nothing the user types is lost, whether the app is still starting or a
turn is running; a prompt that cannot be sent yet is queued, visibly, and can be taken back."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import TtyApp, header_ready, script_agent_command, wait_until

Start = Callable[..., TtyApp]


def queued_with(text: str) -> Callable[[list[str]], bool]:
    """The screen says `queued` and shows `text` (on one line or apart)."""

    def check(lines: list[str]) -> bool:
        return any("queued" in line.lower() for line in lines) and any(
            text in line for line in lines
        )

    return check


def says_queued(lines: list[str]) -> bool:
    return any("queued" in line.lower() for line in lines)


def script(home: Path, prompts: list[list[dict[str, Any]]], **extra: Any) -> list[str]:
    body = {"agent_name": "script-agent", "prompts": prompts, **extra}
    return ["--agent", script_agent_command(home / "script.json", body)]


def say(text: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


def test_keys_typed_from_the_first_frame_are_kept(tty: Start) -> None:
    """Typed while the app starts (real dsh-agent): before the first frame, and as it draws."""
    app = tty()
    app.type("early ")
    app.wait_for(lambda lines: app.sequences()["CSI ?1049h"] > 0, 30, "the first frame")
    app.type("bird")
    app.wait_for(header_ready)
    app.type(" sings")
    app.wait_for("early bird sings", timeout=10)


def test_a_prompt_and_its_enter_typed_before_the_first_frame_are_sent(
    tty: Start, home: Path
) -> None:
    """Typed and sent while the process is still importing: no echo over the screen, and the
    Enter arrives as Enter (not as the Ctrl+J a cooked terminal would make of it)."""
    app = tty(script(home, [[{"echo": "agent got: "}]]))
    # Once the app has taken the terminal out of cooked mode, which it does before it imports
    # Textual: keys typed earlier were already turned into what a cooked terminal makes of them.
    wait_until(lambda: not app.cooked(), 30, "the terminal out of cooked mode")
    app.type("sent early")
    app.key("enter")
    assert app.sequences()["CSI ?1049h"] == 0, "the first frame came before the keys"
    app.wait_for("agent got: sent early", timeout=30)


def test_enter_before_the_session_is_ready_queues_the_prompt(tty: Start, home: Path) -> None:
    """session/new answers only once the prompt showed as queued; then it is sent."""
    ready = home / "session-ready"
    app = tty(script(home, [[{"echo": "agent got: "}]], delays={"new_session": str(ready)}))
    app.wait_for(lambda lines: app.sequences()["CSI ?1049h"] > 0, 30, "the first frame")
    app.type("hello early")
    time.sleep(0.2)
    app.key("enter")
    app.wait_for(queued_with("hello early"), timeout=10, message="'queued' and the prompt")
    ready.touch()
    app.wait_for("agent got: hello early", timeout=30)
    app.wait_gone(says_queued, timeout=10)


def release_file(home: Path) -> Path:
    """Touched by a test when the long first turn may end."""
    return home / "release"


def long_turn(home: Path) -> list[str]:
    """Turn 1 says it started, runs until `release_file` exists (or is cancelled), says it
    ended; later turns echo."""
    hold = {"wait_file": str(release_file(home))}
    first = [say("turn one started"), hold, say("\n\nturn one over")]
    return script(home, [first, [{"echo": "agent got: "}]])


def start_long_turn(tty: Start, home: Path) -> TtyApp:
    app = tty(long_turn(home))
    app.wait_for(header_ready)
    app.type("first")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for("turn one started")
    return app


def test_prompt_typed_during_a_turn_is_queued_then_sent(tty: Start, home: Path) -> None:
    app = start_long_turn(tty, home)
    app.type("second prompt")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(queued_with("second prompt"), timeout=10, message="'queued' and the prompt")
    assert not any("turn one over" in line for line in app.display()), "the turn ended too soon"
    release_file(home).touch()
    app.wait_for("agent got: second prompt", timeout=30)
    app.wait_gone(says_queued, timeout=10)


def test_up_on_the_empty_prompt_takes_the_queued_prompt_back(tty: Start, home: Path) -> None:
    app = start_long_turn(tty, home)
    app.type("draft")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(queued_with("draft"), timeout=10, message="'queued' and the prompt")
    app.key("up")
    app.wait_gone(says_queued, timeout=5)
    app.type(" edited")
    app.wait_for("draft edited", timeout=5)
    # It is back in the prompt, not sent when the turn ends.
    release_file(home).touch()
    app.wait_for("turn one over", timeout=30)
    time.sleep(1.0)
    assert not any("agent got:" in line for line in app.display()), app.dump()


def test_escape_cancels_the_turn_and_returns_queued_prompts(tty: Start, home: Path) -> None:
    app = start_long_turn(tty, home)
    app.type("later one")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(queued_with("later one"), timeout=10, message="'queued' and the prompt")
    app.key("escape")
    app.wait_gone(says_queued, timeout=10)
    app.wait_for("later one", timeout=5)
    time.sleep(1.0)
    lines = app.display()
    assert not any("agent got:" in line for line in lines), (
        f"the queued prompt was sent\n{app.dump()}"
    )
    assert not any("turn one over" in line for line in lines), (
        f"the turn was not cancelled\n{app.dump()}"
    )
