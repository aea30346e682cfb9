"""The shown tab first: while its agent is at work, the other tabs read their agents in slices.

All tabs share one event loop, and a message costs the client the same whether its tab is shown
or not (the line, the SDK's validation, the state change); only laying out and painting are
saved for hidden tabs. Four agents streaming at once would make the one being watched four
times slower. So while the shown tab's turn runs (and until `BUSY_S` after its last message
was painted), each hidden tab reads at most `HIDDEN_PER_SLICE` messages per `SLICE_S`, 200 a
second, more than a model streams; the rest wait in its pipe (its agent blocks on the full pipe,
which costs it nothing) and come at full speed once the shown tab is quiet, or as soon as that
tab is shown. A hidden tab never stops: its questions and its end still arrive, a little later.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

# The shown tab counts as busy while its turn runs, and until this long after its last message
# was painted: hidden messages let in at full speed before its last frames reach the terminal
# hold them back. Measured with bench/bench_tabs.py (4 tabs, 5 runs each): the last read + 0.1 s
# gave 1.3–3.5×, + 0.3 s 1.2–1.6× with runs past 2×; the turn, the paint and 0.3 s, 1.2–1.5×
# with no run past 1.7×.
BUSY_S = 0.3
# Meanwhile each hidden tab reads this many messages per slice of this length.
SLICE_S = 0.05
HIDDEN_PER_SLICE = 10

Gate = Callable[[], Awaitable[None]]


class ShownFirst:
    """The gates of one window's tabs: `gate(owner)` is awaited before each message a tab's
    transport reads; `shown` is the owner of the tab on screen."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        after_refresh: Callable[[Callable[[], None]], object] | None = None,
        working: Callable[[object], bool] = lambda owner: False,
    ) -> None:
        self.shown: object | None = None
        # Whether an owner's turn runs (its controller's `turn_running`).
        self._working = working
        self._clock = clock
        self._sleep = sleep
        # Runs a callback once the screen has been refreshed (the app's call_after_refresh).
        self._after_refresh = after_refresh
        self._shown_read = float("-inf")  # when the shown tab last read a message
        self._shown_painted = float("-inf")  # when the screen was refreshed after such a read
        self._painting = False  # a read of the shown tab waits for its refresh

    def _painted(self) -> None:
        self._painting = False
        self._shown_painted = self._clock()

    def _shown_busy(self, now: float) -> bool:
        if self._painting or (self.shown is not None and self._working(self.shown)):
            return True
        return now - max(self._shown_read, self._shown_painted) <= BUSY_S

    def gate(self, owner: object) -> Gate:
        slice_start = float("-inf")
        read = 0

        async def before_read() -> None:
            nonlocal slice_start, read
            while True:
                now = self._clock()
                if owner is self.shown:
                    self._shown_read = now
                    if self._after_refresh is not None and not self._painting:
                        self._painting = True
                        self._after_refresh(self._painted)
                    return
                if not self._shown_busy(now):
                    return  # the shown tab is quiet: no waiting
                if now - slice_start >= SLICE_S:
                    slice_start, read = now, 0
                if read < HIDDEN_PER_SLICE:
                    read += 1
                    return
                await self._sleep(slice_start + SLICE_S - now)
                slice_start, read = self._clock(), 0  # the next slice, whatever the rounding

        return before_read
