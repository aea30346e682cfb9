"""Permission requests as pure data: key assignment and outcomes, no Textual."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

# The conventional keys per option kind; anything else (or a second option of a kind) gets a digit.
KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}


def assign_keys(options: list[PermissionOption]) -> list[tuple[str, PermissionOption]]:
    """One distinct key per option, in the agent's order."""
    used: set[str] = set()
    keyed: list[tuple[str, PermissionOption]] = []
    digits = iter("123456789")
    for option in options:
        key = KIND_KEYS.get(option.kind)
        if key is None or key in used:
            key = next((d for d in digits if d not in used), "")
        if not key:
            continue
        used.add(key)
        keyed.append((key, option))
    return keyed


def cancelled() -> RequestPermissionResponse:
    from acp.schema import DeniedOutcome, RequestPermissionResponse

    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def selected(option_id: str) -> RequestPermissionResponse:
    from acp.schema import AllowedOutcome, RequestPermissionResponse

    outcome = AllowedOutcome(outcome="selected", option_id=option_id)
    return RequestPermissionResponse(outcome=outcome)


@dataclass(eq=False)
class PendingPermission:
    """A request waiting for the user; answered exactly once."""

    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    answer: asyncio.Future[RequestPermissionResponse] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    @property
    def keyed_options(self) -> list[tuple[str, PermissionOption]]:
        return assign_keys(self.options)

    def choose(self, option_id: str) -> None:
        if not self.answer.done():
            self.answer.set_result(selected(option_id))

    def cancel(self) -> None:
        if not self.answer.done():
            self.answer.set_result(cancelled())
