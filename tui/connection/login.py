"""Logging in when an agent answers `auth_required` (-32000) as a session opens: the user picks
one of its auth methods. An `agent` method is `authenticate`d and the session retried; an
`env_var` method asks for its variables and the agent is restarted with them in its
environment (`Relaunch`), where the session is tried again; a `terminal` method ends this
connection (`TerminalLogin`) so the agent's own program runs its login in the user's terminal.

Methods of kinds dsh-tui cannot act on are named in the failure instead, so the user knows
what the agent asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from acp import RequestError
from acp.core import ClientSideConnection
from acp.schema import AuthMethodAgent, AuthMethodEnvVar, AuthMethodTerminal, InitializeResponse

from tui.sanitize import clean_line

AUTH_REQUIRED = -32000
LoginMethod = AuthMethodAgent | AuthMethodEnvVar | AuthMethodTerminal
# The method to use, or None; with why the last one was refused when they are offered again.
LoginChooser = Callable[[list[LoginMethod], str | None], Awaitable[str | None]]
# The values for an env_var method's variables, or None when the user backs out.
EnvAsker = Callable[[AuthMethodEnvVar], Awaitable[dict[str, str] | None]]
# Tells the user why an `authenticate` failed, before the methods are offered again.
LoginFailed = Callable[[str], None]
T = TypeVar("T")


class Relaunch(Exception):
    """The agent must be started again with `env` added (an env_var login). The values are
    secrets: they are kept off the message and the repr."""

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__("restart the agent with the login's variables")
        self.env = env

    def __repr__(self) -> str:
        return f"Relaunch({sorted(self.env)})"


class TerminalLogin(Exception):
    """Run the agent's program with `args` and `env` in the user's terminal, then reconnect."""

    def __init__(self, method: AuthMethodTerminal) -> None:
        super().__init__(f"terminal login {method.id!r}")
        self.args = tuple(method.args or ())
        self.env = dict(method.env or {})

    def __repr__(self) -> str:
        return f"TerminalLogin({list(self.args)}, {sorted(self.env)})"


def login_methods(init: InitializeResponse) -> list[LoginMethod]:
    return list(init.auth_methods or [])


def methods_text(init: InitializeResponse) -> str:
    """`oauth (agent), API_KEY (env_var)`: what the agent offers, for a failure message."""
    named = [
        f"{clean_line(method.id)} ({getattr(method, 'type', None) or 'agent'})"
        for method in init.auth_methods or []
    ]
    return ", ".join(named) or "none"


def refusal_text(method: LoginMethod, error: RequestError) -> str:
    """Why an `authenticate` failed, with the method's own instructions: an agent that cannot
    log in by itself often says there what to do instead (`Run claude /login`)."""
    details = error.data.get("details") if isinstance(error.data, dict) else None
    said = clean_line(str(error)) + (f" ({clean_line(str(details))})" if details else "")
    text = f"the agent could not log in with {clean_line(method.name) or method.id!r}: {said}"
    if method.description:
        text += f". It says: {clean_line(method.description)}"
    return text


async def with_login(
    open_session: Callable[[], Awaitable[T]],
    conn: ClientSideConnection,
    init: InitializeResponse,
    choose: LoginChooser | None,
    ask_env: EnvAsker | None = None,
    failed: LoginFailed | None = None,
) -> T:
    """`open_session()`, and after an `auth_required` a login and one retry. Raises the
    RequestError (with the methods named) when there is no method to use or the user declines,
    and `Relaunch` once an env_var method's values are given. An `authenticate` the agent
    refuses is told to `failed` and the methods are offered again (without `failed`, raised)."""
    try:
        return await open_session()
    except RequestError as error:
        if error.code != AUTH_REQUIRED:
            raise
        methods = login_methods(init)
        if ask_env is None:  # no one to ask or to hand the terminal to
            methods = [m for m in methods if isinstance(m, AuthMethodAgent)]
        offered = methods_text(init)
        if choose is None or not methods:
            reason = f"the agent needs a login (auth_required); its auth methods: {offered}"
            raise RequestError(error.code, reason, error.data) from error
        cancelled = RequestError(error.code, "login cancelled (auth_required)", None)
        refusal: str | None = None
        while True:
            method_id = await choose(methods, refusal)
            refusal = None
            if method_id is None:
                raise cancelled from error
            method = next(m for m in methods if m.id == method_id)
            if isinstance(method, AuthMethodTerminal):
                raise TerminalLogin(method) from None
            if isinstance(method, AuthMethodEnvVar):
                assert ask_env is not None
                values = await ask_env(method)
                if values is not None:
                    raise Relaunch(values) from None
                continue
            try:
                await conn.authenticate(method_id=method_id)
            except RequestError as refused:
                if failed is None:
                    raise RequestError(refused.code, refusal_text(method, refused)) from refused
                refusal = refusal_text(method, refused)
                failed(refusal)
                continue
            break
    return await open_session()
