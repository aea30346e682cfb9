"""The startup heap freeze: what is alive before the app starts leaves the collector's scans."""

from __future__ import annotations

import gc
import weakref

from tui.heap import FULL_COLLECTION_THRESHOLD, collect_when_quiet, freeze_startup_heap


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_freeze_collects_garbage_first_and_freezes_what_lives() -> None:
    threshold = gc.get_threshold()
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
        assert gc.get_threshold()[2] == FULL_COLLECTION_THRESHOLD  # full ones left to quiet
    finally:
        gc.enable()
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_a_quiet_collection_frees_garbage_that_was_frozen() -> None:
    """Widgets frozen while on screen and removed since are cycles in the permanent
    generation: the quiet moment's collection unfreezes first, so they go."""
    gc.unfreeze()
    try:
        cycle = Node()
        cycle.other = Node()
        cycle.other.other = cycle
        garbage = weakref.ref(cycle)
        gc.collect()
        gc.freeze()  # alive when frozen (a widget on screen)
        del cycle  # then removed: garbage, but frozen
        gc.collect()
        assert garbage() is not None
        collect_when_quiet()
        assert garbage() is None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_quiet_collection_leaves_an_unfrozen_process_alone() -> None:
    gc.unfreeze()
    collect_when_quiet()
    assert gc.get_freeze_count() == 0
