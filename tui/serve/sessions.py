"""One app process per page, started and ended so that nothing outlives the page.

textual-serve's AppService starts the app through a shell in serve's own process group, so a
Ctrl+C on serve's terminal would reach every app and agent at once, and it waits for ever for an
app that does not quit. Here the app is exec'd directly as the leader of a session of its own,
and when it has not ended QUIT_GRACE seconds after `quit`, its whole tree is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from textual_serve.app_service import AppService

from tui.serve.reaper import kill_tree
from tui.web_keys import WEB_ENV

QUIT_GRACE = 10.0  # the app reaps its agent first: a terminal's command gets 2 s after SIGTERM


class AppSession(AppService):
    def __init__(self, argv: Sequence[str], **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = tuple(argv)

    @property
    def running(self) -> bool:
        """The app process has not ended (what --max-sessions counts)."""
        return self._process is not None and self._process.returncode is None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment[WEB_ENV] = "1"
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Ask the app to quit, give it QUIT_GRACE seconds, then end its tree; idempotent."""
        task, self._task = self._task, None
        process = self._process
        if task is None or process is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), QUIT_GRACE)
        # Also after a clean exit: whatever the app left in its session goes with it.
        kill_tree(process.pid)
        await process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await task
