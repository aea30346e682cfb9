"""The startup heap freeze: what is alive before the app starts leaves the collector's scans."""

from __future__ import annotations

import gc
import weakref

from tui.heap import freeze_startup_heap


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_freeze_collects_garbage_first_and_freezes_what_lives() -> None:
    gc.unfreeze()
    gc.disable()  # so the cycle below is still uncollected when the freeze starts
    try:
        cycle = Node()
        cycle.other = Node()
        cycle.other.other = cycle
        garbage = weakref.ref(cycle)
        del cycle
        frozen_before = gc.get_freeze_count()
        freeze_startup_heap()
        assert garbage() is None  # collected, not frozen into a permanent leak
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.enable()
        gc.unfreeze()
