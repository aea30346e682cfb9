"""The results a cancelled turn leaves its calls, told apart from other failures.

ACP v1 has no `cancelled` tool-call status, so such a call ends `failed`; its final update
also says `dsh.cancelled` (agent/bridge.py), read from the result text, which the session log
keeps, so a replayed card says cancelled exactly when the live one did.
"""

from __future__ import annotations

from agent.tools.base import ToolResult, error_text
from agent.tools.bash import ABORTED

ABORTED_BEFORE_DISPATCH = "tool call aborted before dispatch"
ABANDONED = "tool call aborted: it did not stop after the cancel, so it was abandoned"

_PREFIXES = tuple(error_text(text) for text in (ABORTED_BEFORE_DISPATCH, ABANDONED, ABORTED))


def cancelled_result(result: ToolResult) -> bool:
    """Whether the call failed because the turn was cancelled: stopped while it ran (a
    command killed, a tool abandoned) or never started."""
    return result.is_error and result.output.startswith(_PREFIXES)
