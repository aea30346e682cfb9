"""`dsh-tui serve [--host H] [--port P] [--public] [--max-sessions N] [-- DSH_TUI_ARGS…]`."""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from collections.abc import Sequence

from tui.serve.guard import Guard, is_loopback, new_token

PUBLIC_WARNING = (
    "dsh-tui serve: WARNING: listening on {host}, which other machines can reach. Whoever has "
    "the URL below gets an agent session that reads, writes and runs commands in {what}, as "
    "you. The connection is plain HTTP: anyone on the network path can read the token."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-tui serve",
        description="Serve dsh-tui to a browser: each page gets its own dsh-tui and agent, "
        "started with the arguments after `--`. Every request must carry the random token of "
        "the printed URL.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: %(default)s)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port; 0 picks a free one (default: %(default)s)"
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="allow binding an address other machines can reach (it prints a warning)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help="at most N pages (app processes) at once (default: %(default)s)",
    )
    return parser


def split_arguments(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """serve's own options, and dsh-tui's after `--`."""
    arguments = list(argv)
    if "--" in arguments:
        cut = arguments.index("--")
        return arguments[:cut], arguments[cut + 1 :]
    return arguments, []


def app_command(app_args: Sequence[str]) -> list[str]:
    """This interpreter and this dsh-tui, whatever PATH says."""
    return [sys.executable, "-m", "tui.cli", *app_args]


def workspace_words(app_args: Sequence[str]) -> str:
    if "--cwd" in app_args[:-1]:
        return app_args[list(app_args).index("--cwd") + 1]
    return "the directory serve runs in"


def shown_name(host: str) -> str:
    """The host of the printed URL: for "every address", this machine's name."""
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def main(argv: Sequence[str]) -> int:
    own, app_args = split_arguments(argv)
    parser = build_parser()
    args = parser.parse_args(own)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: not a port number (0 to 65535)")
    if args.max_sessions < 1:
        parser.error(f"--max-sessions {args.max_sessions}: must be at least 1")
    if app_args[:1] == ["serve"]:
        parser.error("the arguments after -- are dsh-tui's; `serve` cannot serve itself")
    loopback = is_loopback(args.host)
    if not loopback and not args.public:
        parser.error(
            f"--host {args.host} can be reached from other machines; add --public to mean it"
        )
    guard = Guard(new_token(), loopback_only=loopback)
    if not loopback:
        print(
            PUBLIC_WARNING.format(host=args.host, what=workspace_words(app_args)),
            file=sys.stderr,
        )
    from tui.serve.server import DshServer

    server = DshServer(app_command(app_args), guard, args.host, args.port, args.max_sessions)
    shown_host = shown_name(args.host)

    def listening(port: int) -> None:
        print(f"dsh-tui serve: http://{shown_host}:{port}{guard.prefix}", flush=True)
        print("dsh-tui serve: Ctrl+C ends every session and the server", flush=True)

    try:
        asyncio.run(server.run(listening))
    except OSError as error:
        print(f"dsh-tui serve: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    return 0
