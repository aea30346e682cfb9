"""Several taps on one transport: the recording and the traffic inspector see the same lines."""

from __future__ import annotations

from collections.abc import Sequence

from dsh_common.jsonrpc_lines import LineTap


class Taps:
    """Hands each line to every tap, in order; the transport holds one tap."""

    def __init__(self, taps: Sequence[LineTap]) -> None:
        self._taps = tuple(taps)

    def line_in(self, line: bytes, valid_json: bool) -> None:
        for tap in self._taps:
            tap.line_in(line, valid_json)

    def line_out(self, line: bytes) -> None:
        for tap in self._taps:
            tap.line_out(line)

    def oversized_in(self, size: int, head: bytes) -> None:
        for tap in self._taps:
            tap.oversized_in(size, head)


def joined(taps: Sequence[LineTap]) -> LineTap | None:
    """None for no tap, the tap itself for one (no extra call per line), else a `Taps`."""
    if not taps:
        return None
    return taps[0] if len(taps) == 1 else Taps(taps)
