"""Hardening of dsh-agent against a hostile client, model server or workspace (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.log import SessionNotFound, SessionStore, valid_session_id


@pytest.mark.parametrize("session_id", ["abc\n", "abc\r\n", "\nabc", "a/b", "", "a" * 129])
def test_a_session_id_must_match_whole(tmp_path: Path, session_id: str) -> None:
    assert not valid_session_id(session_id)
    with pytest.raises(SessionNotFound):
        SessionStore(tmp_path).path_for(session_id)


def test_a_plain_session_id_is_valid() -> None:
    assert valid_session_id("0123abcDEF_-")
