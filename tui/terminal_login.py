"""A `terminal` login: dsh-tui suspends itself and runs the agent's own program, with the
method's extra args and env, in the user's real terminal; exit status 0 means logged in.

The method cannot choose the program, only add to the configured agent's command line.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import termios
from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from tui.sanitize import clean_line

if TYPE_CHECKING:
    from textual.app import App

    from tui.launch import LaunchSpec


def login_argv(spec: LaunchSpec, args: tuple[str, ...]) -> list[str]:
    return [spec.program or spec.argv[0], *spec.argv[1:], *args]


@contextlib.contextmanager
def cooked_terminal() -> Iterator[None]:
    """Echo, line editing and CR-to-NL on for the login, as a shell would have them: dsh-tui
    starts with them off (tui/quiet_tty.py), which Textual restores on suspend. Put back after."""
    try:
        fd = sys.stdin.fileno()
        before = termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        yield
        return
    cooked = termios.tcgetattr(fd)
    cooked[0] |= termios.ICRNL
    cooked[3] |= termios.ECHO | termios.ICANON | termios.IEXTEN
    try:
        termios.tcsetattr(fd, termios.TCSANOW, cooked)
        yield
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)


async def run(
    app: App[None], spec: LaunchSpec, args: tuple[str, ...], env: dict[str, str]
) -> int | None:
    """The login's exit status, or None when it could not run (no terminal to hand over, or
    no program)."""
    argv = login_argv(spec, args)
    shown = clean_line(" ".join([*spec.argv, *args]))
    try:
        with app.suspend(), cooked_terminal():
            out = sys.__stdout__
            if out is not None:
                out.write(f"dsh-tui: logging in to the agent: {shown}\n")
                out.flush()
            try:
                # Blocking on purpose: the app is suspended and the terminal is the login's.
                done = subprocess.run(
                    argv, cwd=spec.cwd, env={**os.environ, **dict(spec.env), **env}
                )
            except OSError:
                return None
    except SuspendNotSupported:
        return None
    return done.returncode
