"""The prompt's editing keys, as a terminal sends them: Ctrl+U clears a multi-line draft, and
Ctrl+X Ctrl+E edits the draft in `$EDITOR` (here a small script that rewrites the file)."""

from __future__ import annotations

import stat
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, turns_ended

Start = Callable[..., TtyApp]

CTRL_U, CTRL_X, CTRL_E = b"\x15", b"\x18", b"\x05"


def started(tty: Start, **options: object) -> TtyApp:
    app = tty([], **options)
    app.wait_for(header_ready)
    return app


def editor_script(tmp_path: Path) -> Path:
    """An editor that records what it was given (and the file's mode), then rewrites it."""
    script = tmp_path / "fake-editor"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!/bin/sh
            cp "$1" {tmp_path}/seen.txt
            stat -c %a "$1" > {tmp_path}/mode.txt
            echo "$1" > {tmp_path}/path.txt
            printf 'rewritten by the editor\\nsecond edited line\\n' > "$1"
            """
        )
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_ctrl_u_clears_a_multiline_draft(tty: Start) -> None:
    app = started(tty)
    app.type("first draft row")
    app.key("ctrl+j")
    app.type("second draft row")
    app.wait_for("second draft row", timeout=10)
    app.wait_for("first draft row", timeout=10)
    app.send(CTRL_U)
    app.wait_gone("first draft row", timeout=10)
    app.wait_gone("second draft row", timeout=10)
    app.type("after clearing")
    app.wait_for("after clearing", timeout=10)


def test_ctrl_x_ctrl_e_edits_the_draft_in_the_editor(
    tty: Start, home: Path, tmp_path: Path
) -> None:
    script = editor_script(tmp_path)
    app = started(tty, env_extra={"VISUAL": str(script), "EDITOR": str(script)})
    app.type("draft before the editor")
    app.wait_for("draft before the editor", timeout=10)
    app.send(CTRL_X)
    time.sleep(0.1)
    app.send(CTRL_E)
    app.wait_for("rewritten by the editor", timeout=20)
    app.wait_for("second edited line", timeout=10)
    assert (tmp_path / "seen.txt").read_text() == "draft before the editor"
    assert (tmp_path / "mode.txt").read_text().strip() == "600"
    assert not Path((tmp_path / "path.txt").read_text().strip()).exists(), "temp file left"
    assert turns_ended(home) == 0, f"the edited draft was sent\n{app.dump()}"
    # Still a draft: Enter sends what the editor wrote.
    app.key("enter")
    app.wait_for("offline mode", timeout=20)


def test_f1_lists_the_prompt_editing_keys(tty: Start) -> None:
    app = started(tty, size=(140, 45))
    app.send(b"\x1bOP")  # F1
    app.wait_for("ctrl+x ctrl+e", timeout=15)
    app.wait_for("clear the whole prompt", timeout=5)
    app.wait_for("replaying with --step", timeout=5)
