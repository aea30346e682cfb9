"""Garbage-collector policy for the running app.

A long session keeps streaming text and mounting widgets, and CPython's full collections scan
every tracked object each time: with Textual, Rich, Pygments, pydantic and the ACP schemas
imported, and the app's stylesheet and first screen built, that is over 100,000 objects that
never die, and each full collection visibly paused a streaming reply. Freezing what exists
once the session is up leaves those pauses to the objects the session itself creates. (Not at
the first frame: the SDK is imported after it.)
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Collect once, then move every surviving object out of the collector's scans.

    Called once the session is up and drawn, before any agent content arrives: what is alive
    then (modules and the SDK's schema, classes, the stylesheet, the app's frame) lives as long
    as the process.
    """
    gc.collect()
    gc.freeze()
    defer_full_collections()


# Young collections between two automatic full ones (CPython's default is 10): a full
# collection scans every object the session made, 100 – 200 ms behind 1,000 cards, so they
# are left to quiet moments (`collect_when_quiet`) and happen on their own only rarely.
FULL_COLLECTION_THRESHOLD = 500


def defer_full_collections() -> None:
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_THRESHOLD)


def collect_when_quiet() -> None:
    """A full collection, then freeze what survives: called when nothing has changed on
    screen for a while, so the pause lands where nobody sees it and later collections scan
    only what the session creates next. Unfrozen first, so garbage frozen earlier (widgets
    removed since) is collected too. Only where the startup heap was frozen (the CLI's
    policy; tests leave it off, and an unfrozen process keeps CPython's own policy)."""
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
        gc.freeze()
