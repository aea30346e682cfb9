"""A hostile agent puts every escape family, and bidi controls, in every field it sends; the
user then does what shows each field (the turn, a permission answer, Shift+Tab and Ctrl+L with
failing answers, the command menu, the capabilities screen). Nothing but Textual's own output
may reach the terminal: no title change, no clipboard write, no link, no DCS/APC/PM/SOS
string, no reset, no 8-bit C1 control; and the bidi controls are shown, not obeyed."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import TEXTUAL_SEQUENCES, TtyApp, header_ready, script_agent_command, wait_until

Start = Callable[..., TtyApp]

HOSTILE_AGENT = Path(__file__).resolve().parent.parent / "e2e" / "hostile_agent.py"

# CSI, OSC 0 and 2 (titles), OSC 52 (clipboard: "rm -rf ~ #"), OSC 8 (link), DCS, APC, PM,
# SOS, RIS, 8-bit CSI, OSC and ST; then bidi override, isolate and zero-width characters.
ESCAPES = (
    "\x1b[2J\x1b]0;EVIL0\x07\x1b]2;EVIL2\x1b\\\x1b]52;c;cm0gLXJmIH4gIw==\x07\x1b]8;;http://x\x07"
    "L\x1b]8;;\x07\x1bP1$r\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\\x1bc\x9b2J\x9d0;EVIL\x9c"
)
# Escapes only, nothing left once they are dropped: a tool call with this title shows its kind.
ESCAPES_ONLY = (
    "\x1b]0;EVIL0\x07\x1b]52;c;cm0gLXJmIH4gIw==\x07\x1bP1$r\x1b\\\x1b_apc\x1b\\\x1bc\x9b\x9d"
)
BIDI = "\u202e\u2066\u200b"
MARKUP = "[@click=app.quit]quit[/]"


def hostile(tag: str) -> str:
    """A field's payload: every family, then `tag` (to find it on screen), then bidi."""
    return f"{ESCAPES}{tag}{BIDI}z"


def update(session_update: str, **fields: Any) -> dict[str, Any]:
    return {"update": {"sessionUpdate": session_update, **fields}}


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def script(done: Path) -> dict[str, Any]:
    options = [
        {"optionId": "allow", "name": hostile("ALLOW"), "kind": "allow_once"},
        {"optionId": "reject", "name": hostile("REJECT"), "kind": "reject_once"},
    ]
    turn = [
        update("agent_message_chunk", content=text(hostile("MESSAGE"))),
        update("agent_thought_chunk", content=text(hostile("THOUGHT"))),
        # An id carrying the payload and a title of escapes only: the card names its kind, and
        # the id (an internal handle) is not shown at all.
        update("tool_call", toolCallId=hostile("ID"), title=ESCAPES_ONLY, status="pending"),
        update(
            "tool_call",
            toolCallId="call-2",
            title=hostile("TITLE"),
            kind="edit",
            status="completed",
            locations=[{"path": hostile("LOCATION"), "line": 2}],
            content=[
                {"type": "diff", "path": hostile("DIFFPATH"), "oldText": ESCAPES, "newText": "n"},
                {"type": "content", "content": text(hostile("OUTPUT"))},
            ],
            rawInput={hostile("KEY"): hostile("RAW")},
            _meta={
                "terminal_info": {"terminal_id": hostile("TERM"), "cwd": hostile("CWD")},
                "terminal_output": {"terminal_id": hostile("TERM"), "data": hostile("DATA")},
                "terminal_exit": {"terminal_id": hostile("TERM"), "signal": hostile("SIGNAL")},
            },
        ),
        # Not a valid kind: the SDK refuses the whole update, and nothing of it is shown.
        update("tool_call", toolCallId="call-3", title="kind", kind=hostile("KIND")),
        update(
            "plan", entries=[{"content": hostile("PLAN"), "priority": "high", "status": "pending"}]
        ),
        update(
            "available_commands_update",
            availableCommands=[{"name": hostile("CMD"), "description": hostile("DESC")}],
        ),
        update("session_info_update", title=hostile("SESSION")),
        {
            "permission": {
                "toolCall": {"toolCallId": "call-4", "title": hostile("ASK"), "kind": "execute"},
                "options": options,
            }
        },
        {"touch": str(done)},
    ]
    return {
        "agent_name": hostile("AGENT"),
        "agent_version": hostile("VERSION"),
        "modes": {
            "currentModeId": "m1",
            "availableModes": [
                {"id": "m1", "name": hostile("MODE1")},
                {"id": hostile("M2"), "name": hostile("MODE2"), "description": hostile("D")},
            ],
        },
        "modeError": f"{hostile('MODEERROR')} {MARKUP}",
        "configOptions": [
            {
                "id": "model",
                "name": hostile("OPTION"),
                "category": "model",
                "type": "select",
                "currentValue": "a",
                "options": [
                    {"value": "a", "name": hostile("MODELA")},
                    {"value": "b", "name": f"{hostile('MODELB')} {MARKUP}"},
                ],
            }
        ],
        "configError": f"{hostile('CONFIGERROR')} {MARKUP}",
        "prompts": [turn],
    }


def shown(tag: str) -> str:
    """How a field tagged `tag` must look: the escapes gone, only the text that 8-bit
    introducers and a link leave behind, the bidi controls named."""
    return f"L2J0;EVIL{tag}⟨U+202E⟩⟨U+2066⟩⟨U+200B⟩z"


def on_screen(*texts: str) -> Callable[[list[str]], bool]:
    """A wait condition: every one of `texts` is on screen at once."""
    return lambda lines: all(text in "\n".join(lines) for text in texts)


def test_no_agent_field_reaches_the_terminal(tty: Start, home: Path) -> None:
    done = home / "turn-played"
    path = home / "hostile.json"
    path.write_text(json.dumps(script(done)))
    agent = shlex.join([sys.executable, str(HOSTILE_AGENT), str(path)])
    app = tty(["--agent", agent], size=(140, 45))
    app.wait_for(header_ready)
    assert shown("AGENT") in app.text() and shown("VERSION") in app.text(), app.dump()
    app.type("go")
    app.key("enter")
    # The permission question, its title and options cleaned: all of it drawn, not the first
    # frame that shows part of it.
    screen = "\n".join(app.wait_for(on_screen(shown("ALLOW"), shown("REJECT"), shown("ASK"))))
    for tag in ("ALLOW", "REJECT"):
        assert shown(tag) in screen, app.dump()
    assert f"Permission · ❯ {shown('ASK')}" in screen, app.dump()
    app.key("tab")  # the question takes the keys
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.send("a")
    wait_until(done.exists, what="the turn to be played")
    app.wait_for("permission outcome: selected allow")
    tags = ("TITLE", "LOCATION", "DIFFPATH", "OUTPUT", "PLAN")
    drawn = on_screen(*(shown(tag) for tag in tags), "EVILSIGNAL", "EVILMESSAGE", "CWD⟨U+202E⟩")
    screen = "\n".join(app.wait_for(drawn))
    # The card of the escape-only title names its kind, never the id; the message's bidi
    # controls are named too (its invisible marks stay: prose).
    assert "EVILID" not in screen, app.dump()
    for tag in ("TITLE", "LOCATION", "DIFFPATH", "OUTPUT", "PLAN"):
        assert shown(tag) in screen, (tag, app.dump())
    assert "L2J0;EVILMESSAGE⟨U+202E⟩⟨U+2066⟩" in screen, app.dump()
    assert "CWD⟨U+202E⟩⟨U+2066⟩⟨U+200B⟩z" in screen, app.dump()  # the pane keeps its deep end
    assert "killed by L2J0;EVILSIGNAL⟨U+202E⟩" in screen, app.dump()

    app.key("shift+tab")  # set_mode fails: its error is a notification
    app.wait_for("MODEERROR")
    assert MARKUP in app.text(), app.dump()  # shown as written, not run
    app.key("ctrl+l")  # the model list, then a model whose setting fails
    app.wait_for(shown("MODELB"))
    assert shown("MODELA") in app.text() and MARKUP in app.text(), app.dump()
    app.key("down", "enter")
    app.wait_for("CONFIGERROR")
    app.type("/")  # the command menu
    app.wait_for(shown("DESC"))
    assert shown("CMD") in app.text(), app.dump()
    app.key("backspace")
    app.key("ctrl+k")  # the capabilities screen: every field of initialize and session/new
    app.wait_for("ACP capability negotiation")
    app.key("escape")
    app.wait_stable(0.5)
    assert app.is_alive()  # no markup ran `app.quit`

    assert app.quit() == 0
    seen = app.sequences()
    for family in ("OSC 0", "OSC 2", "OSC 52", "OSC 8", "DCS", "APC", "PM", "SOS", "ESC c"):
        assert family not in seen, (family, app.sequence_examples().get(family))
    assert not any(name.startswith("C1") for name in seen), seen
    extra = app.unexpected_sequences()
    assert not extra, f"sequences outside Textual's own set: {extra}"
    assert set(seen) <= TEXTUAL_SEQUENCES


def test_no_tab_label_notice_or_quit_question_reaches_the_terminal(tty: Start, home: Path) -> None:
    """Tabs put agent names, directory names and tool titles in new places: the bar, the
    notification of a question out of sight, the palette's tab list, the quit question."""
    release = home / "ask-now"
    call = {"toolCallId": "c1", "title": hostile("TITLE"), "kind": "edit", "status": "pending"}
    options = [{"optionId": "allow", "name": "Allow once", "kind": "allow_once"}]
    asking = [{"wait_file": str(release)}, {"permission": {"toolCall": call, "options": options}}]
    tabs = []
    for n, turns in ((1, [[]]), (2, [asking])):
        workspace = home / hostile(f"DIR{n}").replace("/", "_")  # one path component
        workspace.mkdir()
        script = {"agent_name": hostile(f"AGENT{n}"), "prompts": turns}
        tabs += ["--tab", f"{script_agent_command(home / f'tab{n}.json', script)}@{workspace}"]
    app = tty(tabs, size=(140, 45))
    app.wait_for(lambda lines: "AGENT1" in lines[0] and "AGENT2" in lines[0], timeout=30)
    assert "DIR1" in app.display()[0]
    app.key("alt+2")
    app.wait_for(lambda lines: "AGENT2" in lines[1])
    app.type("go")
    app.key("enter")
    app.key("alt+1")
    app.wait_for(lambda lines: "AGENT1" in lines[1])
    release.touch()
    app.wait_for("A question is waiting")
    app.wait_for("TITLE")
    app.key("ctrl+p")  # the palette lists the tabs by agent and directory
    app.type("Tab 2")
    app.wait_for(lambda lines: any("Tab 2:" in line and "AGENT2" in line for line in lines))
    app.key("escape")
    app.key("ctrl+q")  # tab 2's turn runs: the question names it
    app.wait_for("Turns run in tab 2")
    app.key("enter")
    assert app.wait_exit() == 0
    seen = app.sequences()
    for family in ("OSC 0", "OSC 2", "OSC 52", "OSC 8", "DCS", "APC", "PM", "SOS", "ESC c"):
        assert family not in seen, (family, app.sequence_examples().get(family))
    assert not any(name.startswith("C1") for name in seen), seen
    assert not app.unexpected_sequences()
