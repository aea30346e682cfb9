"""Item 15 of issue 13: with no key configured, Ctrl+L shows which models cannot answer yet
and why, before any prompt, through the real binary and dsh-agent; the picker's footer lists
its own keys."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, app_env, header_ready

Start = Callable[..., TtyApp]


def test_ctrl_l_marks_deepseek_without_a_key(tty: Start, home: Path) -> None:
    env = app_env(home)
    for key in ("DEEPSEEK_API_KEY", "DSH_API_KEY", "DSH_MODEL", "DSH_BASE_URL"):
        env.pop(key, None)
    app = tty(env=env, size=(80, 24))
    app.wait_for(header_ready)
    app.key("ctrl+l")
    keys = ["↑↓", "Move", "⏎", "Choose", "esc", "Close"]
    lines = app.wait_for(lambda lines: lines[-1].split() == keys, message="the picker's footer")
    rows = {name: line for line in lines for name in ("Offline", "deepseek-chat") if name in line}
    assert "⚠" not in rows["Offline"], app.dump()
    assert "deepseek-chat  ⚠ needs DEEPSEEK_API_KEY" in rows["deepseek-chat"], app.dump()
    app.key("escape")
    app.wait_gone("deepseek-reasoner")


def test_choosing_deepseek_without_a_key_says_how_to_fix_it(tty: Start, home: Path) -> None:
    env = app_env(home)
    for key in ("DEEPSEEK_API_KEY", "DSH_API_KEY", "DSH_MODEL", "DSH_BASE_URL"):
        env.pop(key, None)
    app = tty(env=env, size=(80, 24))
    app.wait_for(header_ready)
    app.key("ctrl+l")
    app.wait_for("deepseek-reasoner")
    app.key("down")
    app.key("enter")
    lines = app.wait_for(lambda lines: "set it and restart" in "".join(lines), 15, "the fix")
    assert any("deepseek-reasoner" in line for line in lines), app.dump()  # still open
    app.key("escape")
    app.wait_gone("deepseek-reasoner")
    app.key("ctrl+l")  # Offline is still the current model
    lines = app.wait_for("deepseek-reasoner")
    assert any("● Offline" in line for line in lines), app.dump()
