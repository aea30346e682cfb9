"""What a terminal pane's header and info line say, from the pane's state: pure text builders.

❯ pytest -q                                   tests · ✕ exit 1 · 2.4 s    header
▮ 1,204 lines · 54 KB                                                     info line
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from tui.sanitize import clean_line
from tui.terminal.labels import display_cwd, format_bytes, format_duration
from tui.terminal.status import status_words

if TYPE_CHECKING:
    from tui.widgets.terminal.pane import TerminalPane

__all__ = ["command_content", "info_text", "status_content"]

_MAX_CWD_CELLS = 32


def command_content(pane: TerminalPane) -> Content:
    """`❯ pytest -q`, or a muted `❯ command` until it is known (the terminal's id is a
    handle, no help to the user)."""
    prompt = (f"{pane.glyphs.prompt} ", "$text-accent bold")
    command = clean_line(pane.command or "")
    if command:
        return Content.assemble(prompt, command)
    return Content.assemble(prompt, ("command", "$text-muted"))


def status_content(pane: TerminalPane) -> Content:
    """The right side of the header: `tests · ✕ exit 1 · 2.4 s`."""
    glyphs = pane.glyphs
    sep = f" {glyphs.sep} "
    parts: list[str | tuple[str, str]] = []
    where = display_cwd(pane.cwd, pane.session_cwd)
    if len(where) > _MAX_CWD_CELLS:  # keep room for the command: show the deep end
        where = "…" + where[-(_MAX_CWD_CELLS - 1) :]
    if where:
        parts += [(where, "$text-muted"), sep]
    status = pane.status
    parts.append(status_words(status, glyphs, pane.spinner_frame))
    if status.phase in ("awaiting", "not_run"):
        return Content.assemble(*parts)
    parts += [sep, (format_duration(pane.duration), "$text-muted")]
    return Content.assemble(*parts)


def info_text(pane: TerminalPane, shown: int) -> tuple[str, str | None] | None:
    """The info line under the output and its tooltip, or None when there is nothing to say:
    `(no output)`, or the line count and size once the output scrolls or was cut."""
    if pane.exited and shown == 0 and not pane.busy:
        return "(no output)", None
    if shown <= pane.max_rows and not pane.truncated and pane.agent_kept is None:
        return None
    glyphs = pane.glyphs
    sep = f" {glyphs.sep} "
    text = f"{glyphs.info} {pane.line_count:,} lines{sep}{format_bytes(pane.received_bytes)}"
    if pane.agent_kept is not None:
        kept, what = pane.agent_kept
        text += f"{sep}the agent gave the model only the last {format_bytes(kept)} of {what}"
    if not pane.truncated:
        return text, None
    tooltip = (
        f"Only the last {shown:,} lines are kept; "
        f"{pane.dropped_lines:,} earlier lines were dropped."
    )
    return f"{text}{sep}truncated", tooltip
