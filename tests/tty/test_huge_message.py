"""A message past the screen's cap shows its head and its tail, with the marker between, and
the palette opens it whole in `$PAGER`: after a huge chunk, the agent's next words in the
same message used to be cut off the screen with no way to see them."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, script_agent_command
from harness import wait_until as wait_for_file
from loads import nonce, text

Start = Callable[..., TtyApp]
BIG = 1_200_000  # past the screen's 1,000,000-character cap


def huge_reply(home: Path, end: str) -> list[str]:
    sent = home / "sent"
    script = {
        "prompts": [[{"big": {"bytes": BIG, "text": "x"}}, text(f" {end}"), {"touch": str(sent)}]]
    }
    return ["--agent", script_agent_command(home / "script.json", script)]


def pager_script(home: Path) -> Path:
    """A `$PAGER` that keeps what it was given (its argument, the file's mode and text)."""
    path = home / "pager.py"
    path.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "name = sys.argv[-1]\n"
        f"out = {str(home / 'paged')!r}\n"
        "open(out + '.mode', 'w').write(oct(os.stat(name).st_mode & 0o777) + ' ' + name)\n"
        "open(out + '.part', 'w').write(open(name).read())\n"
        "os.rename(out + '.part', out + '.txt')\n"
    )
    path.chmod(0o700)
    return path


def test_the_head_and_the_tail_of_a_huge_message_are_shown(tty: Start, home: Path) -> None:
    end = f"END-{nonce()}"
    app = tty(huge_reply(home, end), size=(100, 30))
    app.wait_for(header_ready)
    app.type("go")
    app.key("enter")
    wait_for_file(lambda: (home / "sent").exists(), 60)
    app.wait_for(end, timeout=60)  # the agent's last words, after the cut
    for _ in range(40):  # the marker is some screenfuls above them: a page at a time
        if "message cut here on screen" in "\n".join(app.display()):
            break
        app.key("pageup")
        app.wait_stable(0.3)  # rows of x look alike: a change cannot tell the page came
    hidden = BIG + len(f" {end}") - 1_000_000 - 16_000
    app.wait_for(f"message cut here on screen: {hidden:,} characters are")


def test_the_palette_opens_the_whole_message_in_the_pager(tty: Start, home: Path) -> None:
    end = f"END-{nonce()}"
    pager = pager_script(home)
    app = tty(huge_reply(home, end), size=(100, 30), env_extra={"PAGER": str(pager)})
    app.wait_for(header_ready)
    app.type("go")
    app.key("enter")
    wait_for_file(lambda: (home / "sent").exists(), 60)
    app.wait_for(end, timeout=60)
    app.send(b"\x10")  # Ctrl+P: the palette
    app.type("Open message in pager")
    app.wait_for("Open message in pager")
    app.key("enter")
    wait_for_file(lambda: (home / "paged.txt").exists(), 60)
    mode, name = (home / "paged.mode").read_text().split(" ", 1)
    assert mode == oct(stat.S_IRUSR | stat.S_IWUSR)
    paged = (home / "paged.txt").read_text()
    assert paged == "x" * BIG + f" {end}"
    app.wait_for(end, timeout=30)  # back in the app once the pager exits
    wait_for_file(lambda: not os.path.exists(name), 30)  # the copy is removed
