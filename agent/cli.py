"""Command line of dsh-agent: an ACP agent on stdio. stdout carries only the protocol."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Sequence

from agent import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-agent",
        description=(
            "A coding agent that speaks the Agent Client Protocol (ACP) over stdio. "
            "Run it from an ACP client such as dsh-tui or an editor; stdout is the protocol "
            "channel, logs go to stderr or --log-file."
        ),
    )
    parser.add_argument("--version", action="version", version=f"dsh-agent {__version__}")
    parser.add_argument(
        "--log-file",
        metavar="PATH",
        help="append logs to PATH instead of stderr",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log verbosity (default: INFO)",
    )
    return parser


def configure_logging(log_file: str | None, level: str) -> None:
    """Logs never go to stdout: that stream is the JSON-RPC channel."""
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8")
        if log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    configure_logging(args.log_file, args.log_level)
    from acp import run_agent

    from agent.server import DshAgent

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_agent(DshAgent()))


if __name__ == "__main__":
    main()
