"""The settings kept between runs: read defensively, written atomically and privately, and
the diff view chosen is the view of the panels that come after."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App, ComposeResult

from tui.diff.diffing import DiffContent
from tui.settings_store import Settings, SettingsStore, default_path, load, save
from tui.widgets.diff.panel import DiffPanel

EDIT = DiffContent("/project/a.py", "x = 1\n", "x = 2\n", 1, 1)


def test_the_file_is_under_xdg_config_home() -> None:
    assert default_path({"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/dsh-tui/settings.json")


def test_no_file_is_the_defaults_without_a_notice(tmp_path: Path) -> None:
    loaded = load(tmp_path / "settings.json")
    assert loaded.settings == Settings() and loaded.notice is None


def test_a_round_trip_is_private_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "dsh-tui" / "settings.json"
    save(path, Settings("nord", "split"))
    assert load(path).settings == Settings("nord", "split")
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_bad_files_give_the_defaults_and_say_why(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    for text, reason in [
        ("{oops", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        (b"\xff\xfe".decode("latin-1"), "not valid JSON"),
    ]:
        path.write_text(text)
        loaded = load(path)
        assert loaded.settings == Settings(), text
        assert loaded.notice is not None and reason in loaded.notice, loaded.notice
    path.write_text(json.dumps({"theme": 3, "diff_view": "sideways"}))
    loaded = load(path)
    assert loaded.settings == Settings()
    assert loaded.notice is not None and "theme and diff_view" in loaded.notice
    path.write_text(json.dumps({"theme": "nord", "diff_view": 7}))
    assert load(path).settings == Settings("nord", "auto")  # the good half is kept


def test_a_directory_in_the_way_is_a_notice_and_a_failed_save_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()
    store = SettingsStore(path)
    assert store.settings == Settings() and store.notice is not None
    problem = store.update(theme="nord")
    assert problem is not None and "not saved" in problem
    assert store.settings.theme == "nord"  # kept for this run


def test_an_unchanged_setting_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    assert store.update(diff_view="auto") is None
    assert not path.exists()


class Host(App[None]):
    def __init__(self, diff_view: str) -> None:
        super().__init__()
        self.diff_view = diff_view
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        yield DiffPanel([EDIT], Path("/project"), id="plain")
        yield DiffPanel([EDIT], Path("/project"), view="split", id="given")

    def on_diff_panel_view_chosen(self, event: DiffPanel.ViewChosen) -> None:
        self.chosen.append(event.view)


async def test_a_panel_takes_the_view_the_user_chose_last() -> None:
    app = Host("unified")
    async with app.run_test(size=(160, 30)) as pilot:
        plain = app.query_one("#plain", DiffPanel)
        await plain.wait_ready()
        assert plain.view == "unified" and not plain.is_split  # wide: "auto" would split
        assert app.query_one("#given", DiffPanel).view == "split"  # a view given stays
        plain.action_toggle_view()
        await pilot.pause()
        assert app.chosen == ["split"]
