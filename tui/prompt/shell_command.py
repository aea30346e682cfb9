"""`!command` in the prompt: run it on this machine, in the workspace, as the user.

The command runs in a client terminal of the session's `TerminalManager` (so on a pty, like
the agent's terminals, and killed with them on quit) and shows as a terminal card marked
"run by you". The agent is not asked and not told: nothing of it goes into `session/prompt`,
and its terminal is outside the agent's namespace (`terminal/*` for its id is refused).
Esc kills what still runs. No Textual here, only asyncio.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.session.controller import SessionController

log = logging.getLogger(__name__)

PREFIX = "!"


def shell_command(text: str) -> str | None:
    """The command of a `!` prompt ("" for `!` alone, which does nothing); None for a prompt
    that is not one."""
    stripped = text.strip()
    if not stripped.startswith(PREFIX):
        return None
    return stripped[len(PREFIX) :].strip()


class UserShells:
    """The `!` commands of one session that still run, so Esc can stop them."""

    def __init__(self, controller: SessionController) -> None:
        self.controller = controller
        self.running: set[str] = set()
        # Called when one starts or ends: the app's keys (Esc) follow `running`.
        self.on_change: Callable[[], None] = lambda: None

    async def run(self, command: str) -> None:
        """Run `command` to its end in a card of its own; a refusal becomes a notice."""
        from tui.terminal.process import TerminalError

        controller = self.controller
        session = controller.session
        if session is None:
            controller.notify("Not connected yet: a ! command runs in the session's workspace.")
            return
        terminals = session.client.terminals
        try:
            terminal_id = await terminals.create(command, by_user=True)
        except (TerminalError, ValueError) as error:
            controller.notice(f"! {command}: {error}", "error")
            return
        entry, changes = controller.conversation.add_user_shell(command, terminal_id)
        controller.apply(changes)
        self.running.add(terminal_id)
        self.on_change()
        try:
            status = await terminals.wait_for_exit(terminal_id)
            # Released once it exits: it no longer counts against the agent's live terminals,
            # nor shows in the capabilities view as one the agent left open; the card keeps
            # its output.
            await terminals.release(terminal_id)
        finally:
            self.running.discard(terminal_id)
            self.on_change()
        controller.apply(controller.conversation.finish_user_shell(entry, status.exit_code))

    async def stop_all(self) -> None:
        """Kill every `!` command still running (its card then says how it ended)."""
        session = self.controller.session
        if session is None:
            return
        for terminal_id in list(self.running):
            try:
                await session.client.terminals.kill(terminal_id)
            except KeyError:
                log.info("! terminal %s already gone", terminal_id)
