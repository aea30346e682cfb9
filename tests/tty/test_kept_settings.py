"""Settings that stay: a theme chosen in the palette is the theme of the next run, kept in
`$XDG_CONFIG_HOME/dsh-tui/settings.json`; a broken settings file gives a notice, not a crash."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready

Start = Callable[..., TtyApp]
CELL = (12, 40)  # a cell of the empty transcript: the screen's background


def background(app: TtyApp) -> str:
    with app.lock:
        row, column = CELL
        return str(app.screen.buffer[row][column].bg)


def wait_background(app: TtyApp, check: Callable[[str], bool], what: str) -> str:
    deadline = time.monotonic() + 20
    while not check(colour := background(app)):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: background {colour}\n{app.dump()}")
        time.sleep(0.05)
    return colour


def settings_file(home: Path) -> Path:
    return home / "config" / "dsh-tui" / "settings.json"


def test_a_theme_chosen_is_kept_for_the_next_run(tty: Start, home: Path) -> None:
    app = tty([])
    app.wait_for(header_ready)
    dark = background(app)
    app.send(b"\x10")  # Ctrl+P
    app.wait_for("Search for commands", timeout=15)
    app.type("theme")
    app.wait_for("Change the current theme", timeout=15)
    app.key("enter")
    app.wait_for("Search for themes", timeout=15)
    app.type("textual-light")
    time.sleep(0.3)
    app.key("enter")
    app.wait_gone("Search for themes", timeout=15)  # the palette dims what is behind it
    app.wait_stable(quiet=1.0)
    light = wait_background(app, lambda colour: colour != dark, "the light theme")
    assert app.quit() == 0
    stored = settings_file(home)
    assert json.loads(stored.read_text())["theme"] == "textual-light"
    assert stored.stat().st_mode & 0o777 == 0o600

    again = tty([])
    again.wait_for(header_ready)
    wait_background(again, lambda colour: colour == light, "the kept theme on restart")


def test_a_broken_settings_file_gives_a_notice_and_the_defaults(tty: Start, home: Path) -> None:
    stored = settings_file(home)
    stored.parent.mkdir(parents=True)
    stored.write_text("{not json")
    app = tty([])
    app.wait_for("Settings not used", timeout=30)
    app.wait_for(header_ready)
    app.type("still works")
    app.wait_for("still works", timeout=10)
