"""Several sessions in one window: what each tab's label says (`marks`), kept apart from the
widgets (tui/widgets/tab_bar.py) and the app's tab keys (tui/tab_host.py)."""
