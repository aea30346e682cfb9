"""The closing marker lines of dsh-agent's bash output, written by the agent, read by the client.

The agent ends a command's model-facing text with one marker line per fact (`[timed out after
Nms]`, `[killed by signal: S]`, `[exit code: N]`, `[output truncated; ...]`); dsh-tui shows
those facts as badges instead of output. One definition keeps the writer and the reader in step.
The numbers the patterns accept are bounded in length: a longer one is no marker of ours.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "EXIT_MARKER",
    "NO_OUTPUT",
    "SIGNAL_MARKER",
    "STDERR_HEADING",
    "TIMEOUT_MARKER",
    "TRUNCATED_MARKER",
    "at_end",
    "exit_marker",
    "signal_marker",
    "timeout_marker",
    "truncated_marker",
]

NO_OUTPUT = "(no output)"
"""The body of a command that printed nothing."""
STDERR_HEADING = "[stderr]"
"""The line between a command's stdout and its stderr."""

EXIT_MARKER = re.compile(r"\[exit code: (\d{1,10})\]")
SIGNAL_MARKER = re.compile(r"\[killed by signal: ([^\]\n]+)\]")
TIMEOUT_MARKER = re.compile(r"\[timed out after (\d{1,13})ms\]")
TRUNCATED_MARKER = re.compile(r"\[output truncated; kept the last (\d{1,19}) bytes of ([^\]\n]+)\]")


def exit_marker(exit_code: int) -> str:
    return f"[exit code: {exit_code}]"


def signal_marker(signal: str) -> str:
    return f"[killed by signal: {signal}]"


def timeout_marker(timeout_ms: int) -> str:
    return f"[timed out after {timeout_ms}ms]"


def truncated_marker(kept_bytes: int, streams: Sequence[str]) -> str:
    """`streams`: the names of the streams cut ("stdout", "stderr")."""
    return f"[output truncated; kept the last {kept_bytes} bytes of {' and '.join(streams)}]"


def at_end(marker: re.Pattern[str]) -> re.Pattern[str]:
    """`marker` as the text's last line: output that merely contains one is not mistaken."""
    return re.compile(r"\n" + marker.pattern + r"\Z")
