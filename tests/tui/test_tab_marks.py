"""The tab bar's words, the `--tab` spec and the tab host's bookkeeping: pure, no app."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from tui.config import AppConfig
from tui.permissions import PendingPermission
from tui.session.events import PermissionAsked, PermissionClosed, TurnEnded, TurnStarted
from tui.session_pane import SessionPane
from tui.tab_host import TabHost
from tui.tabs import window
from tui.tabs.marks import TabInfo, TabState, bar_text, label_spans, mark
from tui.tabs.spec import split_tab


def tabs(*states: TabState) -> list[TabInfo]:
    return [TabInfo(f"agent{n}", f"project{n}", state) for n, state in enumerate(states, 1)]


def test_each_state_has_its_own_shape() -> None:
    shapes = {mark(state) for state in TabState}
    assert len(shapes) == len(TabState)
    assert mark(TabState.WAITING) == "?"
    assert mark(TabState.RUNNING, 0) != mark(TabState.RUNNING, 1)  # a spinner


def test_three_tabs_fit_80_columns_whole() -> None:
    text = bar_text(tabs(TabState.IDLE, TabState.WAITING, TabState.RUNNING), 1, 78).plain
    assert text.startswith("1 · agent1 · project1 │ 2 ? agent2 · project2 │ 3 ")
    assert len(text) <= 78


def test_labels_shrink_then_the_bar_scrolls_with_counts() -> None:
    many = tabs(*[TabState.IDLE] * 12)
    for width in (78, 40, 20):
        text = bar_text(many, 6, width).plain
        assert len(text) <= width
        assert "7 · " in text  # the active tab is always shown
    narrow = bar_text(many, 6, 40).plain
    assert narrow.startswith("‹ ") and narrow.endswith(" ›")
    left, right = narrow.split()[1], narrow.split()[-2]
    assert int(left) + int(right) + narrow.count("│") + 1 == 12


def test_a_click_lands_on_the_label_under_it() -> None:
    row = tabs(TabState.IDLE, TabState.IDLE, TabState.IDLE)
    text = bar_text(row, 0, 78).plain
    for start, end, index in label_spans(row, 0, 78):
        assert text[start:end].startswith(f"{index + 1} ")


def test_tab_spec_splits_at_the_last_at_only_before_a_directory(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    assert split_tab("dsh-agent@work", tmp_path) == ("dsh-agent", tmp_path / "work")
    assert split_tab(f"dsh-agent@{tmp_path}", Path("/")) == ("dsh-agent", tmp_path)
    npx = "npx @zed-industries/claude-code-acp"
    assert split_tab(npx, tmp_path) == (npx, None)  # not a directory: part of the command
    assert split_tab(f"{npx}@work", tmp_path) == (npx, tmp_path / "work")
    assert split_tab("gemini@nowhere", tmp_path) == ("gemini@nowhere", None)


def host_with(*names: str) -> tuple[TabHost, list[Any]]:
    host = TabHost()
    panes = [
        SimpleNamespace(config=AppConfig(agent_command=name, cwd=Path(f"/w/{name}")))
        for name in names
    ]
    for pane in panes:
        host.add(cast(SessionPane, pane))
    return host, panes


def test_the_host_marks_what_a_background_tab_did() -> None:
    host, (front, back) = host_with("a", "b")
    asked = cast(PendingPermission, object())
    host.follow(back, TurnStarted("go"))
    assert host.tabs[1].state is TabState.RUNNING
    host.follow(back, PermissionAsked(asked))
    assert host.tabs[1].state is TabState.WAITING and host.oldest_waiting() == 1
    host.follow(back, PermissionClosed(asked, None))
    assert host.tabs[1].state is TabState.RUNNING and host.oldest_waiting() is None
    assert host.running_elsewhere() == [host.tabs[1]]
    host.follow(back, TurnEnded("end_turn"))
    assert host.tabs[1].state is TabState.FINISHED  # out of sight when it ended
    host.show(1)
    assert host.tabs[1].state is TabState.IDLE  # seen now
    host.follow(front, TurnStarted("go"))
    host.follow(front, TurnEnded("end_turn"))
    assert host.tabs[0].state is TabState.FINISHED


def test_the_oldest_question_is_jumped_to_first() -> None:
    host, (first, second, third) = host_with("a", "b", "c")
    asked = cast(PendingPermission, object())
    host.follow(third, PermissionAsked(asked))
    host.follow(second, PermissionAsked(asked))
    assert host.oldest_waiting() == 2
    host.remove(first)
    assert host.oldest_waiting() == 1 and host.active == 0


def test_the_window_is_kept_privately_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "state" / "window.json"
    tabs = [
        window.SavedTab("dsh-agent", tmp_path, "s1"),
        window.SavedTab("my-agent --acp", tmp_path, None, (("API_KEY", "k"),)),
    ]
    window.save(path, tabs)
    assert path.stat().st_mode & 0o777 == 0o600
    assert window.load(path) == tabs
    window.save(path, tabs[:1])  # one tab: nothing to restore, --resume picks as before
    assert not path.exists() and window.load(path) == []


def test_a_damaged_or_stale_window_restores_nothing_it_cannot(tmp_path: Path) -> None:
    path = tmp_path / "window.json"
    path.write_text("{not json")
    assert window.load(path) == []
    path.write_text('{"tabs": [{"cwd": "/"}]}')
    assert window.load(path) == []
    gone = tmp_path / "gone"
    path.write_text(
        f'{{"tabs": [{{"agent": "a", "cwd": "{tmp_path}"}}, {{"agent": "b", "cwd": "{gone}"}}]}}'
    )
    assert [tab.agent_command for tab in window.load(path)] == ["a"]  # its directory is gone


def test_a_directory_name_reaches_the_bar_as_one_safe_line() -> None:
    host, _panes = host_with("evil\x1b]0;owned\x07\x1b[2J")
    label = host.tabs[0].info().directory
    assert "\x1b" not in label and "\x07" not in label
    assert "evil" in label
