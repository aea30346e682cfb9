"""The shown tab first (tui/tabs/priority.py): hidden tabs read in slices only while the shown
tab streams, and never stop."""

from __future__ import annotations

from tui.tabs.priority import BUSY_S, HIDDEN_PER_SLICE, SLICE_S, ShownFirst


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_the_shown_tab_and_every_tab_while_it_is_quiet_read_without_waiting() -> None:
    time = FakeTime()
    priority = ShownFirst(time.clock, time.sleep)
    shown, hidden = object(), object()
    priority.shown = shown
    for _ in range(100):
        await priority.gate(shown)()
    time.now += BUSY_S + 0.01  # the shown tab went quiet
    hidden_gate = priority.gate(hidden)
    for _ in range(100):
        await hidden_gate()
    assert time.slept == []


async def test_while_the_shown_tab_streams_a_hidden_one_reads_a_slice_at_a_time() -> None:
    time = FakeTime()
    priority = ShownFirst(time.clock, time.sleep)
    shown, hidden = object(), object()
    priority.shown = shown
    shown_gate, hidden_gate = priority.gate(shown), priority.gate(hidden)
    start = time.now
    for _ in range(3 * HIDDEN_PER_SLICE):
        await shown_gate()  # a message of the shown tab between each hidden one
        await hidden_gate()
    # Three slices' worth took (at least) two waits for the next slice; none was skipped.
    assert len(time.slept) == 2
    assert time.now - start >= 2 * SLICE_S - 1e-9


async def test_a_switch_makes_the_new_tab_first() -> None:
    time = FakeTime()
    priority = ShownFirst(time.clock, time.sleep)
    first, second = object(), object()
    priority.shown = first
    await priority.gate(first)()
    priority.shown = second
    second_gate = priority.gate(second)
    for _ in range(5 * HIDDEN_PER_SLICE):
        await second_gate()
    assert time.slept == []


async def test_a_shown_turn_or_an_unpainted_message_keeps_hidden_tabs_in_slices() -> None:
    time = FakeTime()
    painted: list[object] = []
    working = {"turn": True}
    priority = ShownFirst(
        time.clock,
        time.sleep,
        after_refresh=painted.append,
        working=lambda owner: working["turn"],
    )
    shown, hidden = object(), object()
    priority.shown = shown
    hidden_gate = priority.gate(hidden)
    await priority.gate(shown)()  # a message of the shown tab, not yet on screen
    time.now += 10  # long quiet: still the turn, and still unpainted
    for _ in range(HIDDEN_PER_SLICE + 1):
        await hidden_gate()
    assert len(time.slept) == 1
    working["turn"] = False
    for _ in range(HIDDEN_PER_SLICE + 1):
        await hidden_gate()
    assert len(time.slept) == 2  # the turn ended; the message is still not painted
    painted.pop()()  # the screen refreshed
    time.now += BUSY_S + 0.01
    for _ in range(5 * HIDDEN_PER_SLICE):
        await hidden_gate()
    assert len(time.slept) == 2
