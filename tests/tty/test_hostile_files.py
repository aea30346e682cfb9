"""Hostile file names on disk: an agent can create any file in the workspace (the client serves
`fs/write_text_file` without asking), so a name may hold a clipboard write (OSC 52), a title
(OSC 2), a bidi override or a zero-width space. The user then does everything that shows a
path: the `@` menu, Tab into the prompt, the chips on its border (and a click on one), the
sent message, history Up, a palette redraw, and a paste with no `@` at all. Nothing but
Textual's own output may reach the terminal, the bidi and invisible characters are shown, not
obeyed, and a name is never markup (`[/b]crash.txt`, `[@click=app.quit]q.txt`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from harness import TEXTUAL_SEQUENCES, TtyApp, header_ready

Start = Callable[..., TtyApp]

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4gIw==\x1b\\"  # OSC 52: "rm -rf ~ #" to the clipboard
TITLE = "\x1b]2;PWN-TITLE\x1b\\"  # OSC 2: the window title
NAMES = {
    "clip": f"clip{CLIPBOARD}x.txt",
    "title": f"title{TITLE}x.txt",
    "bidi": "bidi\u202etxt.exe",
    "zero": "zero\u200bwidth.txt",
    # Markup: a tag closed that was never opened (a MarkupError ended the app), and an action
    # link that quit it when clicked.
    "crash": "[/b]crash.txt",
    "click": "[@click=app.quit]q.txt",
}


def workspace(home: Path) -> None:
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    (work / "[").mkdir()
    for name in NAMES.values():
        (work / name).write_text("secret\n")
    # A history entry holding the raw names, as an earlier version saved them.
    digest = hashlib.sha256(str(work.resolve()).encode()).hexdigest()[:16]
    history = home / "state" / "dsh-tui" / "history" / f"{digest}.jsonl"
    history.parent.mkdir(parents=True)
    history.write_text(json.dumps(f"old @{NAMES['clip']} @{NAMES['title']} OLD") + "\n")


def on_screen(*texts: str) -> Callable[[list[str]], bool]:
    return lambda lines: all(text in "\n".join(lines) for text in texts)


def prompt_line(lines: list[str]) -> str:
    """The prompt's first text row (the row under its top border)."""
    for index, line in enumerate(lines):
        if line.lstrip().startswith("╭") and index + 1 < len(lines):
            candidate = lines[index + 1]
            if candidate.lstrip().startswith("│"):
                return candidate
    return ""


def test_no_file_name_reaches_the_terminal(tty: Start, home: Path) -> None:
    workspace(home)
    app = tty(size=(120, 40))
    app.wait_for(header_ready)
    app.wait_for("Message the agent")
    app.type("@")  # the menu: every hostile name, cleaned
    app.wait_for(on_screen("clipx.txt", "titlex.txt", "bidi⟨U+202E⟩txt.exe"))
    app.wait_for("zero⟨U+200B⟩width.txt")
    for number, key in enumerate(("clip", "title", "bidi", "crash", "click", "zero")):
        app.type(("" if number == 0 else "@") + key)
        # The chip is drawn by the handler that gives the menu the text: once it shows, the
        # menu lists what matches, and Tab takes it into the prompt.
        app.wait_for(f"@{key} ─")
        app.key("tab")
    screen = "\n".join(app.wait_for(on_screen("@zero⟨U+200B⟩width.txt", "@clipx.txt ")))
    assert "@bidi⟨U+202E⟩txt.exe" in screen, app.dump()
    assert "@[/b]crash.txt @[@click=app.quit]q.txt" in screen, app.dump()
    # A click on the `[@click=app.quit]` chip is tests/tui/test_prompt.py's (it must not quit).
    app.key("enter")  # sent: the transcript's user message and the notices
    app.wait_for("attached: [/b]crash.txt (1 line), [@click=app.quit]q.txt (1 line)")
    app.wait_for("@zero⟨U+200B⟩width.txt: no such file: not attached")
    app.wait_for(lambda lines: "clipx.txt" not in prompt_line(lines))
    app.key("up")  # history recall
    app.wait_for(lambda lines: "@clipx.txt" in prompt_line(lines))
    app.send("\x10")  # Ctrl+P: the palette over everything, then the screen redrawn under it
    app.wait_for("Search for commands")
    app.key("escape")
    app.wait_gone("Search for commands")
    app.type(" ")  # out of the last mention, so Up is history's again, not the menu's
    app.wait_for(lambda lines: all(line.strip() != "zero⟨U+200B⟩width.txt" for line in lines))
    app.key("up")  # the entry saved with the raw names, before the fix: cleaned as it loads
    app.wait_for(lambda lines: "old @clipx.txt @titlex.txt OLD" in prompt_line(lines))
    app.key("ctrl+j")
    app.paste("pasted\u202eD")  # a paste, no `@`: the prompt box shows what it holds, cleaned
    app.wait_for("pasted⟨U+202E⟩D")
    app.wait_stable(0.5)
    assert app.is_alive()

    assert app.quit() == 0
    seen = app.sequences()
    for family in ("OSC 2", "OSC 52"):
        assert family not in seen, (family, app.sequence_examples().get(family))
    extra = app.unexpected_sequences()
    assert not extra, f"sequences outside Textual's own set: {extra}"
    assert set(seen) <= TEXTUAL_SEQUENCES


def test_bidi_in_command_output_is_shown_not_obeyed(tty: Start, home: Path) -> None:
    app = tty(size=(100, 30))
    app.wait_for(header_ready)
    app.wait_for("Message the agent")
    # printf writes U+202E and U+200B from octal escapes: the command line has none of them.
    app.type(r"!printf 'x\342\200\256y\342\200\213z \033[31mred\033[0m\n'")
    app.key("enter")
    app.wait_for("exit 0")
    app.wait_for("x⟨U+202E⟩y⟨U+200B⟩z red")
    assert app.quit() == 0
    assert not app.unexpected_sequences()
