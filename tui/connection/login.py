"""Logging in when an agent answers `auth_required` (-32000) as a session opens: the user picks
one of its `agent` auth methods, the client calls `authenticate`, and the session is retried.

Methods of the other kinds (env_var, terminal) are named in the failure instead, so the user
knows what the agent asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from acp import RequestError
from acp.core import ClientSideConnection
from acp.schema import AuthMethodAgent, InitializeResponse

from tui.sanitize import clean_line

AUTH_REQUIRED = -32000
LoginChooser = Callable[[list[AuthMethodAgent]], Awaitable[str | None]]
T = TypeVar("T")


def agent_methods(init: InitializeResponse) -> list[AuthMethodAgent]:
    return [m for m in init.auth_methods or [] if isinstance(m, AuthMethodAgent)]


def methods_text(init: InitializeResponse) -> str:
    """`oauth (agent), API_KEY (env_var)`: what the agent offers, for a failure message."""
    named = [
        f"{clean_line(method.id)} ({getattr(method, 'type', None) or 'agent'})"
        for method in init.auth_methods or []
    ]
    return ", ".join(named) or "none"


async def with_login(
    open_session: Callable[[], Awaitable[T]],
    conn: ClientSideConnection,
    init: InitializeResponse,
    choose: LoginChooser | None,
) -> T:
    """`open_session()`, and after an `auth_required` a login and one retry. Raises the
    RequestError (with the methods named) when there is no agent method or the user declines."""
    try:
        return await open_session()
    except RequestError as error:
        if error.code != AUTH_REQUIRED:
            raise
        methods = agent_methods(init)
        offered = methods_text(init)
        if choose is None or not methods:
            reason = f"the agent needs a login (auth_required); its auth methods: {offered}"
            raise RequestError(error.code, reason, error.data) from error
        method_id = await choose(methods)
        if method_id is None:
            raise RequestError(error.code, "login cancelled (auth_required)", None) from error
    await conn.authenticate(method_id=method_id)
    return await open_session()
