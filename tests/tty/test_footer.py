"""Issue 13, item 9: the footer lists only keys that act now, in one order, on a real terminal."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from harness import TtyApp, agent_command, header_ready

Start = Callable[..., TtyApp]


def footer(lines: list[str]) -> str:
    return lines[-1]


@pytest.mark.parametrize("size", [(80, 24), (140, 45)], ids=["80x24", "140x45"])
def test_footer_keys_act_now_and_keep_their_order(tty: Start, size: tuple[int, int]) -> None:
    app = tty(["--agent", agent_command("--mode", "full-access")], size=size)
    app.wait_for(header_ready)
    lines = app.wait_for(lambda lines: "Mode" in footer(lines), 10, "the session's keys")
    idle = footer(lines)
    assert "Cancel turn" not in idle and idle.count("Quit") == 1, app.dump()
    assert idle.index("Mode") < idle.index("Model") < idle.index("Quit"), app.dump()
    app.type("$ sleep 30")
    time.sleep(0.1)
    app.key("enter")
    lines = app.wait_for(lambda lines: footer(lines).lstrip().startswith("esc Cancel turn"))
    assert footer(lines).count("Quit") == 1, app.dump()
    app.key("escape")
    app.wait_for(lambda lines: "Cancel turn" not in footer(lines), 15, "the turn to end")
