"""The `_meta.terminal_*` display convention, read into a tool call's display terminal.

An agent that runs commands itself reports them in a tool call's `_meta`: `terminal_info`
(the terminal's id and cwd), `terminal_output` (output data) and `terminal_exit` (exit code or
signal, and dsh-agent's `dsh.duration_ms`). The final output's closing marker lines become
facts of the terminal, shown as badges, instead of output. Pure Python, no Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from dsh_common.bash_markers import (
    EXIT_MARKER,
    NO_OUTPUT,
    SIGNAL_MARKER,
    TIMEOUT_MARKER,
    TRUNCATED_MARKER,
)
from tui.terminal.source import TerminalState

if TYPE_CHECKING:
    from tui.state import ToolCallEntry

# What a value in `_meta` may be: an exit code as the spec's (a uint32), a duration of up to
# about 30 years. Anything beyond is ignored (and said, once per update), not shown.
MAX_EXIT_CODE = 2**32 - 1
MAX_DURATION_MS = 10**12


def in_range(value: object, high: int) -> TypeGuard[int]:
    """An int from 0 to `high` (a bool is no number here)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= high


def apply_terminal_meta(
    entry: ToolCallEntry,
    meta: dict[str, Any],
    changed: set[str],
    ignored: list[str] | None = None,
) -> str:
    """Take an update's `_meta` into `entry`'s display terminal, adding the names of what
    changed to `changed`, and those of numbers out of range to `ignored`. Returns the output
    data it appended ("" for none)."""
    ignored = [] if ignored is None else ignored
    appended = ""
    if meta.get("dsh.not_run") is True and not entry.never_ran:
        entry.never_ran = True
        changed.add("terminal")
    info = meta.get("terminal_info")
    if isinstance(info, dict) and isinstance(info.get("terminal_id"), str):
        if entry.terminal is None or entry.terminal.terminal_id != info["terminal_id"]:
            entry.terminal = TerminalState(info["terminal_id"])
        cwd = info.get("cwd")
        entry.terminal.cwd = cwd if isinstance(cwd, str) else None
        changed.add("terminal")
    exit_info = meta.get("terminal_exit")
    output = meta.get("terminal_output")
    if isinstance(output, dict) and isinstance(output.get("data"), str):
        terminal = terminal_for(entry, output.get("terminal_id"))
        data = output["data"]
        if "status" in changed and entry.status in ("completed", "failed"):
            # The final update: its closing marker lines are shown as badges instead.
            data = take_markers(terminal, data, exit_info)
            changed.add("terminal")
        if data:
            terminal.output.append(data)
            appended = data
    if isinstance(exit_info, dict):
        terminal = terminal_for(entry, exit_info.get("terminal_id"))
        code = exit_info.get("exit_code")
        sig = exit_info.get("signal")
        if isinstance(code, int) and not in_range(code, MAX_EXIT_CODE):
            ignored.append("terminal_exit.exit_code")
        terminal.exit_code = code if in_range(code, MAX_EXIT_CODE) else None
        terminal.signal = sig if isinstance(sig, str) else None
        terminal.exited = True
        duration = meta.get("dsh.duration_ms")
        if in_range(duration, MAX_DURATION_MS):
            terminal.duration_s = duration / 1000
        elif isinstance(duration, int) and not isinstance(duration, bool):
            ignored.append("dsh.duration_ms")
        changed.add("terminal")
    return appended


def take_markers(terminal: TerminalState, data: str, exit_info: object) -> str:
    """Drop the agent's closing marker lines (`[exit code: N]`, `[killed by signal: S]`,
    `[timed out after Nms]`, `[output truncated; ...]`) from the end of the final output,
    and `(no output)` when nothing else came: the pane's badges and info line say them."""
    exit_meta = exit_info if isinstance(exit_info, dict) else {}
    lines = data.split("\n")
    taken = False
    while lines:
        last = lines[-1]
        if (match := EXIT_MARKER.fullmatch(last)) is not None:
            if exit_meta.get("exit_code") != int(match.group(1)):
                break
        elif SIGNAL_MARKER.fullmatch(last) is not None:
            if not isinstance(exit_meta.get("signal"), str):
                break
        elif (match := TIMEOUT_MARKER.fullmatch(last)) is not None:
            terminal.timed_out_after_s = int(match.group(1)) / 1000
        elif (match := TRUNCATED_MARKER.fullmatch(last)) is not None:
            terminal.agent_kept = (int(match.group(1)), match.group(2))
        else:
            break
        lines.pop()
        taken = True
    if not taken:
        return data
    if lines == [NO_OUTPUT] and not terminal.output.chars:
        return ""
    return "\n".join(lines) + "\n" if lines else ""


def terminal_for(entry: ToolCallEntry, terminal_id: object) -> TerminalState:
    """Output may arrive before the terminal_info that names it: create the pane then."""
    if entry.terminal is None:
        entry.terminal = TerminalState(
            terminal_id if isinstance(terminal_id, str) else entry.tool_call_id
        )
    return entry.terminal
