"""The first prompts dsh-tui notes for the resume picker: private, only a new session's
first, read back past torn lines, and shown as one clean line."""

from __future__ import annotations

import stat
from pathlib import Path

from acp.schema import SessionInfo

from tui.session.prompts import FirstPrompts, first_prompt, remembered, shown_prompt
from tui.switcher import session_choice


def test_only_a_new_session_s_first_prompt_is_noted_in_a_private_file(tmp_path: Path) -> None:
    path = tmp_path / "state" / "sessions" / "w.jsonl"
    notes = FirstPrompts(path)
    notes.sent("new", False, "the first")
    notes.sent("new", False, "the second")
    notes.sent("loaded", True, "after a resume")
    with path.open("a") as handle:
        handle.write('{"id": "torn", "prom')
    assert remembered(path) == {"new": "the first"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    FirstPrompts(None).sent("x", False, "nowhere")  # a replay notes nothing


def test_the_agent_s_prompt_wins_and_both_are_cleaned() -> None:
    listed = SessionInfo(
        session_id="s1",
        cwd="/w",
        title="Chat",
        field_meta={"dsh.firstPrompt": "fix\x1b]52;c;aGk=\x07 the\n\n  bug\u202e"},
    )
    assert first_prompt(listed, {"s1": "noted"}) == "fix the bug⟨U+202E⟩"
    assert first_prompt(SessionInfo(session_id="s1", cwd="/w"), {"s1": "noted"}) == "noted"
    assert first_prompt(SessionInfo(session_id="s2", cwd="/w"), {}) is None
    assert shown_prompt("x" * 500).endswith("…") and len(shown_prompt("x" * 500)) == 200


def test_a_row_has_the_time_and_title_then_the_prompt_unless_it_is_the_title() -> None:
    info = SessionInfo(session_id="s1", cwd="/w", title="Chat", updated_at="2026-12-02T14:50:23.5Z")
    row = session_choice(info, {"s1": "hello there"})
    assert (row.label, row.detail) == ("2026-12-02 14:50:23  Chat", "› hello there")
    assert session_choice(info, {"s1": "Chat"}).detail is None
    assert session_choice(info, {}).detail is None
