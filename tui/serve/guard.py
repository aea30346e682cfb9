"""Who may talk to the server: requests under the token's path, from the server's own origin.

textual-serve has no authentication, and a page's WebSocket gets an agent session with the
user's files. The token is a path prefix (`/TOKEN/`), not a query parameter: textual.js appends
its own `?width=…` to the WebSocket URL, and static URLs are built by concatenation, so a prefix
reaches every request the page makes. The Origin check stops another site's page in the same
browser from opening the WebSocket (browsers send Origin on every WebSocket handshake).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    """`localhost`, 127.0.0.0/8 or ::1: only this machine can connect."""
    if host.strip("[]") in ("localhost", "::1"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(host_header: str) -> str:
    """The name part of a Host header: `127.0.0.1` of `127.0.0.1:8000`, `[::1]` of `[::1]:80`."""
    if host_header.startswith("["):
        return host_header[: host_header.find("]") + 1]
    return host_header.rsplit(":", 1)[0]


@dataclass(frozen=True)
class Guard:
    """The token every path starts with, and whether the server listens on loopback only
    (then the Host a browser used must be a loopback name too, which defeats DNS rebinding
    even before the token does)."""

    token: str
    loopback_only: bool

    @property
    def prefix(self) -> str:
        return f"/{self.token}/"

    def refusal(self, request: web.Request) -> str | None:
        """Why the request gets 403, or None when it may pass."""
        given = request.raw_path[: len(self.prefix)]
        if not secrets.compare_digest(given.encode(), self.prefix.encode()):
            return "no valid token in the URL"
        host = request.headers.get("Host", "")
        if self.loopback_only and not is_loopback(_host_name(host)):
            return f"Host {host!r} is not this machine"
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{host}":
            return f"Origin {origin!r} is not this server"
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        reason = self.refusal(request)
        if reason is not None:
            raise web.HTTPForbidden(text=f"403 Forbidden: {reason}.\n")
        response = await handler(request)
        # The token is in the URL: no link the app opens may carry it away in a Referer.
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
