"""The `demo` prompt works in a folder of its own, `dsh-demo/`, and says so: the workspace a
newcomer starts in (often the checkout itself) gets nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, agent_command, header_ready, turns_ended, wait_until

Start = Callable[..., TtyApp]


def test_the_demo_writes_only_into_its_own_folder(tty: Start, home: Path) -> None:
    workspace = home / "work"
    workspace.mkdir(parents=True)
    (workspace / "hello.py").write_text("mine\n")  # a file of the user's, of the same name
    app = tty(["--agent", agent_command("--mode", "full-access")], size=(140, 45))
    app.wait_for(header_ready)
    app.type("demo")
    app.key("enter")
    wait_until(lambda: turns_ended(home) >= 1, timeout=60, what="the demo to end")
    assert (workspace / "hello.py").read_text() == "mine\n"
    assert sorted(path.name for path in workspace.iterdir()) == ["dsh-demo", "hello.py"]
    assert "version 2" in (workspace / "dsh-demo" / "hello.py").read_text()
    app.wait_for("a real model.", timeout=20)  # the last line, followed to the end


def test_the_demo_says_where_it_works(tty: Start, home: Path) -> None:
    """In Ask mode the demo stops at its first change: the question, and the words above it."""
    app = tty([], size=(140, 45))
    app.wait_for(header_ready)
    app.type("demo")
    app.key("enter")
    app.wait_for("Write dsh-demo/hello.py", timeout=30)
    # The new file's card may fill the screen below the words: read back one page for them.
    app.key("pageup")
    app.wait_for("It works in dsh-demo/", timeout=10)
    assert not (home / "work" / "dsh-demo").exists()  # nothing written before the answer
    app.key("escape")
