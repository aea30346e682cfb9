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
