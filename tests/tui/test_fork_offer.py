"""When "Fork into a new tab" is offered: the agent forks (`session/fork`), and a tab's own
process of it can open the fork (`session/load` or `session/resume`)."""

from __future__ import annotations

from typing import Any

import pytest
from acp.schema import ClientCapabilities, InitializeResponse

from tui.capabilities import can_close, can_fork, consequences


def init(load: bool = False, **session: Any) -> InitializeResponse:
    return InitializeResponse.model_validate(
        {
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": load, "sessionCapabilities": session},
        }
    )


@pytest.mark.parametrize(
    ("answer", "offered"),
    [
        (init(load=True, fork={}), True),
        (init(fork={}, resume={}), True),
        (init(fork={}), False),  # forked, but no other process could open it
        (init(load=True, resume={}), False),
        (init(load=True), False),
    ],
)
def test_fork_is_offered_only_where_a_new_tab_can_open_it(
    answer: InitializeResponse, offered: bool
) -> None:
    assert can_fork(answer) is offered
    said = consequences(ClientCapabilities(), answer)
    assert ("sessions can be forked into a new tab (session/fork)" in said) is offered


def test_close_is_read_from_the_session_capabilities() -> None:
    assert can_close(init(close={})) and not can_close(init(load=True))
