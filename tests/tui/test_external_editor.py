"""The draft's round trip through a real editor process: a private temporary file, read back,
removed; a failing or missing editor leaves the draft alone."""

from __future__ import annotations

import stat
from pathlib import Path

from tui.prompt.external_editor import edit_text, editor_command


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "editor"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_editor_command_prefers_visual_then_editor_then_vi() -> None:
    assert editor_command({"VISUAL": "code -w", "EDITOR": "nano"}) == ["code", "-w"]
    assert editor_command({"VISUAL": " ", "EDITOR": "nano -R"}) == ["nano", "-R"]
    assert editor_command({}) == ["vi"]
    assert editor_command({"EDITOR": "it's"}) == ["it's"]  # not shell words: one name


def test_the_edited_text_comes_back_and_the_file_is_private_and_removed(tmp_path: Path) -> None:
    editor = script(
        tmp_path,
        f'cp "$1" {tmp_path}/seen; stat -c %a "$1" > {tmp_path}/mode; echo "$1" > {tmp_path}/name\n'
        "printf 'new text\\n\\tindented\\033[31m red\\n' > \"$1\"",
    )
    outcome = edit_text("old\ndraft", {"EDITOR": str(editor)})
    assert outcome.problem is None
    assert outcome.text == "new text\n\tindented red"  # the escape dropped, one newline off
    assert (tmp_path / "seen").read_text() == "old\ndraft"
    assert (tmp_path / "mode").read_text().strip() == "600"
    assert not Path((tmp_path / "name").read_text().strip()).exists()


def test_a_failing_editor_leaves_the_draft(tmp_path: Path) -> None:
    editor = script(tmp_path, f'echo "$1" > {tmp_path}/name; echo changed > "$1"; exit 2')
    outcome = edit_text("draft", {"EDITOR": str(editor)})
    assert outcome.text is None
    assert outcome.problem is not None and "exited 2" in outcome.problem
    assert not Path((tmp_path / "name").read_text().strip()).exists()


def test_a_missing_editor_says_so(tmp_path: Path) -> None:
    outcome = edit_text("draft", {"EDITOR": str(tmp_path / "no-such-editor")})
    assert outcome.text is None
    assert outcome.problem is not None and "no-such-editor" in outcome.problem
