"""The bash marker lines: what the agent writes, the client's patterns read back."""

from __future__ import annotations

from dsh_common.bash_markers import (
    EXIT_MARKER,
    SIGNAL_MARKER,
    TIMEOUT_MARKER,
    TRUNCATED_MARKER,
    at_end,
    exit_marker,
    signal_marker,
    timeout_marker,
    truncated_marker,
)


def test_each_marker_reads_back_what_was_written() -> None:
    assert EXIT_MARKER.fullmatch(exit_marker(127))[1] == "127"  # type: ignore[index]
    assert SIGNAL_MARKER.fullmatch(signal_marker("SIGTERM"))[1] == "SIGTERM"  # type: ignore[index]
    assert TIMEOUT_MARKER.fullmatch(timeout_marker(1500))[1] == "1500"  # type: ignore[index]
    match = TRUNCATED_MARKER.fullmatch(truncated_marker(64000, ["stdout", "stderr"]))
    assert match is not None and match.groups() == ("64000", "stdout and stderr")


def test_a_number_too_long_is_no_marker() -> None:
    assert EXIT_MARKER.fullmatch(exit_marker(10**10)) is None
    assert TIMEOUT_MARKER.fullmatch(timeout_marker(10**13)) is None


def test_at_end_needs_its_own_last_line() -> None:
    closing = at_end(EXIT_MARKER)
    assert closing.search(f"out\n{exit_marker(2)}") is not None
    assert closing.search(f"out {exit_marker(2)}") is None
    assert closing.search(f"out\n{exit_marker(2)}\nmore") is None
