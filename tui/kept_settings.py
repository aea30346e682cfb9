"""The settings kept between runs, on the app: the theme and the diff view are restored at
start and stored when the user changes them (the file itself: tui/settings_store.py).

Only the CLI names a settings file (`AppConfig.settings_path`); an app built without one (a
test, the demo) neither reads nor writes settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.theme import Theme

from tui.settings_store import DiffView, SettingsStore

if TYPE_CHECKING:
    from tui.session_app import SessionApp


def restore(app: SessionApp) -> None:
    """Before the first frame: the stored theme and diff view, when there is a settings file."""
    app.diff_view = "auto"
    app.settings_store = None
    app.settings_notice = None
    path = app.config.settings_path
    if path is None:
        return
    store = app.settings_store = SettingsStore(path)
    app.settings_notice = store.notice
    app.diff_view = store.settings.diff_view
    theme = store.settings.theme
    if theme is None:
        return
    if theme in app.available_themes:
        app.theme = theme
    else:
        app.settings_notice = f"The stored theme is not known here; using {app.theme}."


def start_keeping(app: SessionApp) -> None:
    """Once mounted: say what was wrong with the file, and store each theme change."""
    if app.settings_store is None:
        return
    if app.settings_notice:
        app.notify(app.settings_notice, severity="warning", timeout=15)  # read before it goes

    def theme_changed(theme: Theme) -> None:
        keep(app, theme=theme.name)

    app.theme_changed_signal.subscribe(app, theme_changed)


def keep(app: SessionApp, *, theme: str | None = None, diff_view: DiffView | None = None) -> None:
    if diff_view is not None:
        app.diff_view = diff_view
    store = app.settings_store
    if store is None:
        return
    problem = store.update(theme=theme, diff_view=diff_view)
    if problem:
        app.notify(problem, severity="warning")
