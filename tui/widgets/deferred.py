"""The widgets the first frame does not show, imported once the session is up.

Tool cards, messages, the diff and terminal panes, a permission question and the search bar
(with Markdown and Pygments under them) are ~50 ms of imports that would otherwise come
before the first frame and the header. The modules that show them import them where they
are used; `warm_up` then imports them one per timer tick after the header is drawn, leaves
first, so the first reply does not wait for them and no tick holds the keyboard long.
`tests/tui/test_deferred_imports.py` checks that `tui.app` loads none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from textual.app import App

DEFERRED = (
    "markdown_it",
    "rich.markdown",
    "textual.widgets.markdown",
    "tui.widgets.cards.markdown",
    "tui.widgets.diff.panel",
    "tui.widgets.terminal.pane",
    "tui.widgets.cards.tool_card",
    "tui.widgets.transcript.messages",
    "tui.widgets.permission",
    "tui.widgets.diff.review",
    "tui.widgets.transcript.search_bar",
)
STEP_S = 0.01  # between two imports: a frame or a key can come in between


def warm_up(app: App[object], then: Callable[[], None], names: tuple[str, ...] = DEFERRED) -> None:
    """Import `names` one per tick of `app`'s timer, then call `then`."""
    if not names:
        then()
        return
    importlib.import_module(names[0])
    app.set_timer(STEP_S, lambda: warm_up(app, then, names[1:]))
