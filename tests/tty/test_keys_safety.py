"""The keyboard belongs to the user: text typed while a permission question is open goes to the
prompt and never answers it; keys that arrive in one read are the prompts they were typed as.
Through the real binary and dsh-agent in Ask mode (or the scripted agent), read back as a
person sees them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import (
    SIZES,
    TtyApp,
    header_ready,
    script_agent_command,
    size_id,
    turns_ended,
    wait_until,
)

Start = Callable[..., TtyApp]
COMMAND = "$ echo APPROVED-BY-TYPING > typed.txt"


def ask(app: TtyApp) -> list[str]:
    app.wait_for(header_ready)
    app.type(COMMAND)
    app.key("enter")
    return app.wait_for(lambda lines: any("tab ▸" in line for line in lines), 30, "the question")


def queued_rows(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if "⧗ queued" in line]


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_typing_while_a_question_is_open_never_answers_it(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    app = tty(size=size)
    ask(app)
    typed = home / "work" / "typed.txt"
    # Words with every answer key in them, each queued as a prompt of its own, and an Enter
    # on the empty prompt: none of it is an answer.
    for words in ("please wait", "draft", "q1", "q2 Already Read"):
        app.type(words)
        app.key("enter")
    app.key("enter")
    lines = app.wait_for(lambda lines: len(queued_rows(lines)) == 3, 15, "three queued prompts")
    assert queued_rows(lines)[:3] == ["⧗ queued  please wait", "⧗ queued  draft", "⧗ queued  q1"]
    assert any("1 more queued" in line for line in lines), app.dump()
    assert any("Permission · ❯ echo APPROVED-BY-TYPING" in line for line in lines), app.dump()
    assert not typed.exists(), "typed words answered the question"
    # A draft stays in the prompt while the question is open.
    app.type("keep this draft")
    app.wait_for("keep this draft")
    assert not typed.exists()
    # Tab gives the question the keys; then `r` rejects, and the draft is still there.
    app.key("tab")
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.type("r")
    app.wait_gone("Permission · ❯ echo APPROVED-BY-TYPING", timeout=15)
    lines = app.wait_for("keep this draft", timeout=10)
    assert not typed.exists(), app.dump()
    # The queued prompts follow once the turn ends; the draft is never sent.
    app.wait_for(lambda lines: not queued_rows(lines), 30, "the queue to be sent")
    # Still in the prompt box at the bottom, once the screen is drawn again after the queue.
    app.wait_for(
        lambda lines: any("keep this draft" in line for line in lines[-6:]), 15, "the draft kept"
    )


def test_tab_then_a_allows(tty: Start, home: Path) -> None:
    """The deliberate way works: Tab, then `a`."""
    app = tty(size=(80, 24))
    ask(app)
    app.key("tab")
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.type("a")
    wait_until((home / "work" / "typed.txt").exists, 30, "the allowed command to run")
    app.wait_for("✓ exit 0", timeout=15)


def say(text: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


def test_keys_that_arrive_in_one_read_are_two_prompts(tty: Start, home: Path) -> None:
    """`first burst⏎second burst⏎` in one write (ssh lag, a macro) is two prompts, not
    `first burstsecond burst`; and so is a burst typed during a turn, queued as two."""
    release = home / "release"
    first = [say("turn one started"), {"wait_file": str(release)}, say("\n\nturn one over")]
    body = {"agent_name": "script-agent", "prompts": [first, *[[{"echo": "agent got: "}]] * 4]}
    app = tty(["--agent", script_agent_command(home / "script.json", body)], size=(80, 24))
    app.wait_for(header_ready)
    app.type("hold\r")
    app.wait_for("turn one started")
    app.type("q1\rq2\r")
    lines = app.wait_for(lambda lines: len(queued_rows(lines)) == 2, 15, "two queued prompts")
    assert queued_rows(lines) == ["⧗ queued  q1", "⧗ queued  q2"], app.dump()
    release.touch()
    app.wait_for("agent got: q2", timeout=30)
    app.type("first burst\rsecond burst\r")
    app.wait_for("agent got: second burst", timeout=30)
    screen = app.text()
    assert "first burstsecond" not in screen and "q1q2" not in screen, app.dump()


def click(app: TtyApp, column: int, row: int) -> None:
    """A left click at 0-based (column, row), in the SGR mouse encoding Textual asks for."""
    app.send(f"\x1b[<0;{column + 1};{row + 1}M\x1b[<0;{column + 1};{row + 1}m")


def drag(app: TtyApp, row: int, start: int, end: int) -> None:
    """A left-button drag along a row: press, motion, release."""
    app.send(f"\x1b[<0;{start + 1};{row + 1}M")
    for column in range(start + 1, end + 1):
        app.send(f"\x1b[<32;{column + 1};{row + 1}M")
    app.send(f"\x1b[<0;{end + 1};{row + 1}m")


def row_of(lines: list[str], text: str) -> tuple[int, int]:
    for y, line in enumerate(lines):
        if text in line:
            return line.index(text), y
    raise AssertionError(f"{text!r} not on screen")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_keys_typed_away_from_the_prompt_go_to_it(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    """Tab, a click on a card title, a drag over reply text: focus leaves the prompt, the
    prompt says so, and what is typed next goes to it and is sent."""
    (home / "work").mkdir(exist_ok=True)
    (home / "work" / "notes.txt").write_text("one\ntwo\n")
    app = tty(size=size)
    app.wait_for(header_ready)
    app.key("tab")
    app.wait_for("keys elsewhere · type to come back", timeout=10)
    app.type("read notes.txt")
    app.wait_gone("keys elsewhere", timeout=10)
    app.key("enter")
    lines = app.wait_for("Read notes.txt", timeout=30)
    # A click on the card's title folds it and takes focus off the prompt.
    click(app, *row_of(lines, "Read notes.txt"))
    app.wait_for("keys elsewhere · type to come back", timeout=10)
    app.type("todo alpha")
    app.wait_gone("keys elsewhere", timeout=10)
    app.wait_for("todo alpha", timeout=10)
    app.key("enter")
    lines = app.wait_for("alpha", timeout=30)
    # A drag over the reply's text selects it; typing still reaches the prompt.
    column, row = row_of(lines, "Done.")
    drag(app, row, column, column + 4)
    app.wait_for("keys elsewhere · type to come back", timeout=10)
    app.type("$ echo dragged")
    app.wait_for("$ echo dragged", timeout=10)
    app.key("enter")
    app.wait_for("Permission · ❯ echo dragged", timeout=30)


def tool_call(call_id: str, title: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": title,
            "kind": "read",
            "status": "completed",
        }
    }


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_held_view_says_what_is_new_below_and_sending_goes_to_the_end(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    release = home / "release"
    tall = "\n\n".join(f"paragraph {n} of the long reply" for n in range(60))
    first = [
        say(tall),
        {"wait_file": str(release)},
        tool_call("c1", "Read first-new.txt"),
        say("between the new cards"),
        tool_call("c2", "Read second-new.txt"),
        say("LAST WORDS of turn one"),
    ]
    body = {"agent_name": "script-agent", "prompts": [first, [{"echo": "agent got: "}]]}
    app = tty(["--agent", script_agent_command(home / "script.json", body)], size=size)
    app.wait_for(header_ready)
    app.type("go")
    app.key("enter")
    app.wait_for("paragraph 59 of the long reply", timeout=30)
    app.key("pageup", "pageup")
    app.wait_gone("paragraph 59 of the long reply", timeout=10)
    release.touch()
    # Held: the new entries are counted, not shown (the count rises as they arrive).
    lines = app.wait_for("↓ 4 new below · click or end to follow", timeout=30)
    assert not any("LAST WORDS" in line for line in lines), app.dump()
    click(app, *row_of(lines, "new below"))
    app.wait_for("LAST WORDS of turn one", timeout=15)
    app.wait_gone("new below", timeout=10)
    # Read back, then send: the view goes to the end and follows the answer.
    app.key("pageup", "pageup")
    app.wait_gone("LAST WORDS of turn one", timeout=10)
    app.type("next one")
    app.key("enter")
    app.wait_for("agent got: next one", timeout=30)


def test_resume_of_an_unknown_id_says_not_found_and_offers_the_list(tty: Start, home: Path) -> None:
    """`--resume nosuchid`: no "agent failed" screen; the picker says the id was not found,
    and picking an earlier session loads it."""
    first = tty(size=(80, 24))
    first.wait_for(header_ready)
    first.type("todo remembered item")
    first.key("enter")
    wait_until(lambda: turns_ended(home) == 1, what="the first session's turn")
    assert first.quit() == 0
    app = tty(["--resume", "nosuchid"], size=(80, 24))
    lines = app.wait_for("Session nosuchid not found", timeout=30)
    assert not any("agent failed" in line.lower() for line in lines), app.dump()
    assert any("todo remembered item" in line for line in lines), app.dump()
    app.key("enter")
    app.wait_for("remembered item", timeout=30)
    app.wait_for(header_ready)
    assert not any("agent failed" in line.lower() for line in app.display()), app.dump()


def test_tab_on_an_ambiguous_slash_prefix_shows_the_choices(tty: Start) -> None:
    """`/mo` + Tab completes only as far as /mode and /model agree, with both still listed;
    a second Tab takes the highlighted one."""
    app = tty(size=(80, 24))
    app.wait_for(header_ready)
    app.type("/mo")
    app.wait_for("/model  Show or switch the model", timeout=10)
    app.key("tab")
    lines = app.wait_for(lambda lines: any(line.startswith("│ /mode ") for line in lines), 10)
    assert any("/model  Show or switch the model" in line for line in lines), app.dump()
    app.type("l")
    app.wait_for(lambda lines: any(line.startswith("│ /model ") for line in lines), 10)


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_toasts_leave_the_prompt_and_the_mode_line_whole(tty: Start, size: tuple[int, int]) -> None:
    app = tty(size=size)
    app.wait_for(header_ready)
    app.key("shift+tab")  # a mode change flashes a notice
    lines = app.wait_for("Mode: Accept edits", timeout=15)
    toast_rows = [y for y, line in enumerate(lines) if "Mode: Accept edits" in line]
    bottom = lines[-6:]
    assert all(y < len(lines) // 2 for y in toast_rows), app.dump()
    assert any(line.startswith("╭") and line.rstrip().endswith("╮") for line in bottom), app.dump()
    assert any("mode Accept edits" in line for line in bottom), app.dump()


def test_a_space_typed_after_an_at_completion_is_not_doubled(tty: Start, home: Path) -> None:
    (home / "work").mkdir(exist_ok=True)
    (home / "work" / "notes.txt").write_text("one\n")
    app = tty(size=(80, 24))
    app.wait_for(header_ready)
    app.type("see @note")
    app.wait_for(lambda lines: any("notes.txt" in line for line in lines[:-5]), 15, "the menu")
    app.key("tab")
    app.wait_for("see @notes.txt", timeout=10)
    app.type(" now")
    lines = app.wait_for("now", timeout=10)
    assert any("│ see @notes.txt now" in line for line in lines), app.dump()


def test_the_palette_lists_the_always_allow_grants_and_slash_permissions_revokes(
    tty: Start, home: Path
) -> None:
    app = tty(size=(80, 24))
    app.wait_for(header_ready)
    app.type("$ echo one")
    app.key("enter")
    app.wait_for("tab ▸", timeout=30)
    app.key("tab")
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.type("A")
    wait_until(lambda: turns_ended(home) == 1, what="the allowed command's turn")
    app.send("\x10")  # Ctrl+P: the palette
    app.wait_for(lambda lines: any("Search for commands" in x for x in lines), 15, "palette")
    app.type("Permissions")
    app.wait_for("always allow", timeout=10)
    app.key("enter")
    app.wait_for("1. bash in the workspace", timeout=30)
    app.type("/permissions revoke 1")
    app.key("enter")
    app.wait_for("Revoked: bash in the workspace", timeout=30)
    app.type("$ echo two")
    app.key("enter")
    app.wait_for("Permission · ❯ echo two", timeout=30)  # it asks again
