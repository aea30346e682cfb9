"""Item 1 of issue 13, after `--resume`: a rejected bash call and an aborted `sleep` read the
same in the resumed session as they did live, through the real binary and dsh-agent."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, turns_ended, wait_until

Start = Callable[..., TtyApp]
SIZE = (120, 45)


def card(lines: list[str], command: str) -> list[str]:
    """The lines of the card whose header runs `command`, right-trimmed."""
    header = next(i for i, line in enumerate(lines) if f"❯ {command}  " in line)
    top = max(i for i in range(header) if "╭" in lines[i])
    bottom = next(i for i in range(header, len(lines)) if "╰" in lines[i])
    return [line.rstrip() for line in lines[top : bottom + 1]]


def answer(app: TtyApp, prompt: str, key: str) -> None:
    app.type(prompt)
    app.key("enter")
    app.wait_for(f"Permission · ❯ {prompt[2:]}")
    app.key("tab")  # the question takes the keys: typed letters never answer it
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.type(key)


def live_then_resumed(tty: Start, home: Path) -> tuple[list[str], list[str]]:
    app = tty(size=SIZE)
    app.wait_for(header_ready)
    answer(app, "$ echo hello", "r")
    wait_until(lambda: turns_ended(home) == 1, what="the rejected call's turn")
    answer(app, "$ sleep 30", "a")
    app.wait_for(lambda lines: any("sleep 30" in line and "running" in line for line in lines))
    time.sleep(1.0)  # let it run a while, so its duration is not 0.0 s
    app.key("escape")
    wait_until(lambda: turns_ended(home) == 2, what="the cancelled turn")
    app.wait_for("killed by SIGTERM")
    # Both cards settled (the rejected one's pane says so: under load it can lag behind the
    # kill's), then a quiet screen, not the first frame that shows the last card.
    app.wait_for(lambda lines: any("not run" in line for line in card(lines, "echo hello")))
    live = app.wait_stable()
    assert app.quit() == 0
    [log] = (home / "sessions").glob("*.jsonl")
    again = tty(["--resume", log.stem], size=SIZE)
    again.wait_for("killed by SIGTERM")
    return live, again.wait_stable()


def test_an_aborted_sleep_keeps_its_signal_and_duration(tty: Start, home: Path) -> None:
    live, resumed = live_then_resumed(tty, home)
    shown = card(live, "sleep 30")
    assert any("✕ killed by SIGTERM ·" in line for line in shown), shown
    assert not any("0.0 s" in line for line in shown), shown
    # Stopped by the turn's cancel: the card says cancelled, as docs/agent.md says, not failed.
    assert "❯ sleep 30  ⊘ cancelled" in shown[1], shown
    assert card(resumed, "sleep 30") == shown


def test_a_rejected_call_is_not_run_after_resume_too(tty: Start, home: Path) -> None:
    live, resumed = live_then_resumed(tty, home)
    shown = card(live, "echo hello")
    assert any(line.endswith("not run │") for line in shown), shown  # the pane's own status
    assert card(resumed, "echo hello") == shown
