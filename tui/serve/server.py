"""textual-serve's Server with every route under the token, a session limit and a clean end.

Routes are `/TOKEN/` (the page), `/TOKEN/ws` (one app process per WebSocket) and
`/TOKEN/static/…`; the guard's middleware answers 403 to anything else. URLs in the page are
built from the Host the browser used, so the page works under whatever name or address reached
the server.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server, to_int

from tui.serve.guard import Guard
from tui.serve.sessions import AppSession

log = logging.getLogger("dsh-tui serve")

# textual-serve's page, less its Google Fonts link (tui/serve/templates/app_index.html).
TEMPLATES = Path(__file__).resolve().parent / "templates"

FULL_PAGE = """<!DOCTYPE html>
<html><head><title>dsh-tui: full</title></head>
<body style="background:#0c181f;color:#eee;font-family:monospace;padding:2em">
<h1>dsh-tui serve is full</h1>
<p id="full">All {limit} sessions are in use. Close one of their pages, then reload this one.</p>
</body></html>
"""

FULL_TERMINAL = (
    "\r\n  dsh-tui serve is full: all {limit} sessions are in use.\r\n"
    "  Close one of their pages, then reload this one.\r\n"
)


class DshServer(Server):
    def __init__(
        self,
        argv: Sequence[str],
        guard: Guard,
        host: str,
        port: int,
        max_sessions: int,
    ) -> None:
        super().__init__(
            " ".join(argv), host=host, port=port, title="dsh-tui", templates_path=TEMPLATES
        )
        self.argv = tuple(argv)
        self.guard = guard
        self.max_sessions = max_sessions
        self.sessions: set[AppSession] = set()
        self.starting = 0  # WebSockets admitted whose app is not in `sessions` yet

    def initialize_logging(self) -> None:
        logging.basicConfig(level=logging.WARNING, format="dsh-tui serve: %(message)s")

    async def run(self, listening: Callable[[int], None]) -> None:
        """Serve until SIGINT or SIGTERM; `listening` gets the bound port (--port 0 picks
        one). Then every session ends before this returns."""
        self.initialize_logging()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        runner = web.AppRunner(await self._make_app(), handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            listening(_bound_port(runner, self.port))
            await stop.wait()
        finally:
            await runner.cleanup()

    @property
    def full(self) -> bool:
        """A page's slot is free once its app process ended, before serve has finished
        reaping what the app left and closing the socket."""
        running = sum(1 for session in self.sessions if session.running)
        return running + self.starting >= self.max_sessions

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard.middleware])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        prefix = self.guard.prefix
        app.add_routes(
            [
                web.get(prefix, self.handle_index, name="index"),
                web.get(prefix + "ws", self.handle_websocket, name="websocket"),
                web.static(prefix + "static", self.statics_path, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """The URL is printed by the command line, which knows what to warn about."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Ctrl+C: every app quits (or its tree is killed) before the server is gone."""
        await asyncio.gather(*(session.stop() for session in list(self.sessions)))

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if self.full:
            return web.Response(
                text=FULL_PAGE.format(limit=self.max_sessions),
                content_type="text/html",
                status=503,
            )
        base = f"{request.scheme}://{request.host}{self.guard.prefix}"
        websocket = ("wss:" if request.scheme == "https" else "ws:") + base.split(":", 1)[1]
        context: dict[str, Any] = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": websocket + "ws",
            "config": {"static": {"url": base + "static/"}},
            "application": {"name": self.title},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        if self.full:
            await websocket.send_bytes(FULL_TERMINAL.format(limit=self.max_sessions).encode())
            await websocket.close()
            return websocket
        self.starting += 1
        session = AppSession(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        try:
            try:
                await session.start(
                    to_int(request.query.get("width", "80"), 80),
                    to_int(request.query.get("height", "24"), 24),
                )
            finally:
                self.starting -= 1
            self.sessions.add(session)
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("the page's session failed")
        finally:
            await asyncio.shield(self._end(session, websocket))
        return websocket

    async def _end(self, session: AppSession, websocket: web.WebSocketResponse) -> None:
        try:
            await session.stop()
        finally:
            self.sessions.discard(session)
            await websocket.close()


def _bound_port(runner: web.AppRunner, asked: int) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return asked
