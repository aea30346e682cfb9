"""In a browser page the keys Chromium keeps for its tabs never arrive: the web build binds
an Alt twin for each action bound to one, and F1 says which keys those are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from textual.binding import Binding, BindingType
from textual.dom import DOMNode

from tui.app import DshApp
from tui.config import AppConfig
from tui.web_keys import BROWSER_KEEPS, alternative_keys, in_browser, kept
from tui.widgets.help import HelpScreen, help_table


def test_kept_keys_get_alt_twins_and_others_none() -> None:
    assert alternative_keys("ctrl+w") == "alt+w"
    assert alternative_keys("ctrl+tab,ctrl+pagedown") == "alt+pagedown"  # one twin, once
    assert alternative_keys("ctrl+t,alt+t") is None  # already reachable
    assert alternative_keys("ctrl+q") is None and alternative_keys("f1") is None
    assert kept("f1,ctrl+w") == ["ctrl+w"]
    assert not set(BROWSER_KEEPS.values()) & set(BROWSER_KEEPS)  # no twin is kept itself


def test_the_web_build_is_what_serve_sets() -> None:
    assert in_browser({"DSH_TUI_WEB": "1"})
    assert not in_browser({})


def every_binding_of_the_client() -> list[tuple[str, Binding]]:
    """Every binding declared by the app, its screens and widgets (subclasses loaded by
    importing tui.app), with the class that declares it."""
    found: list[tuple[str, Binding]] = []
    pending: list[type] = [DOMNode]
    seen: set[type] = set()
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("tui."):
            declared: list[BindingType] = list(cls.__dict__.get("BINDINGS", []))
            found += [(cls.__qualname__, b) for b in Binding.make_bindings(declared)]
    return found


def all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *all_subclasses(sub)]
    return found


def test_no_action_of_the_client_is_bound_only_to_a_kept_key_without_a_twin() -> None:
    """Across every class in tui: a binding to a kept key is one the web build doubles. The
    app does it for its own bindings; a screen or widget that binds a kept key must say
    another (reachable) key for the same action, or this fails."""
    # DshApp and its subclasses (the replay) double their own bindings when they start.
    apps = {cls.__qualname__ for cls in [DshApp, *all_subclasses(DshApp)]}
    by_action: dict[tuple[str, str], set[str]] = {}
    for owner, binding in every_binding_of_the_client():
        by_action.setdefault((owner, binding.action), set()).add(binding.key)
    unreachable = {
        action: keys
        for action, keys in by_action.items()
        if all(key in BROWSER_KEEPS for key in keys)
        and not (action[0] in apps and all(alternative_keys(key) for key in keys))
    }
    assert not unreachable, f"actions only a browser's kept keys reach: {unreachable}"
    assert len(by_action) > 20  # the walk found the client's classes


async def test_in_the_web_build_the_twin_reaches_the_action_and_f1_lists_it(
    monkeypatch: Any, tmp_path: Path
) -> None:
    """Ctrl+W (close a tab) is kept by the browser: Alt+W closes the tab instead."""
    monkeypatch.setattr(DshApp, "start_pane", lambda self, pane, resume: None)
    app = DshApp(AppConfig(cwd=tmp_path, log_dir=tmp_path / "logs", web=True))
    async with app.run_test(size=(120, 50)) as pilot:
        await app.open_tab(app.config_for(None, tmp_path))
        await pilot.pause()
        assert len(app.tab_host.tabs) == 2
        await pilot.press("alt+w")
        await pilot.pause()
        assert len(app.tab_host.tabs) == 1
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.web


async def test_outside_a_browser_nothing_is_added(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setattr(DshApp, "start_agent", lambda self, resume=None: None)
    monkeypatch.setattr(DshApp, "start_pane", lambda self, pane, resume: None)
    app = DshApp(AppConfig(cwd=tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(120, 50)) as pilot:
        await app.open_tab(app.config_for(None, tmp_path))
        await pilot.press("alt+w")
        await pilot.pause()
        assert len(app.tab_host.tabs) == 2  # Alt+W is no key here: Ctrl+W closes


def rendered(table: Any) -> str:
    console = Console(width=120, record=True)
    console.print(table)
    return console.export_text()


def test_f1_in_a_browser_names_the_kept_keys_and_the_twins() -> None:
    web = rendered(help_table(list(DshApp.BINDINGS), web=True))
    assert "In a browser" in web
    assert "ctrl+t, ctrl+w, ctrl+n, ctrl+tab, ctrl+page down, ctrl+page up" in web
    assert "ctrl+w → alt+w" in web
    assert "ctrl+w / alt+w" in web  # the action's row names both
    assert "ctrl+t → alt+t, ctrl+w → alt+w" in web  # every tab key a browser keeps
    assert "ctrl+page down / alt+page down" in web
    assert "In a browser" not in rendered(help_table(list(DshApp.BINDINGS)))
    assert "dsh-tui binds none of them" in rendered(help_table([], web=True))
