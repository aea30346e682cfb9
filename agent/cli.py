"""Command line of dsh-agent: an ACP agent on stdio. stdout carries only the protocol."""
# ruff: noqa: E402 (the SDK's schema is imported first, at its quickest, before the rest)

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from dsh_common.quick_schema import import_acp_schema

import_acp_schema()

from agent import __version__
from agent.log import SESSION_DIR_ENV, default_session_dir
from agent.loop import DEFAULT_MAX_STEPS
from agent.models.config import (
    ConfigError,
    add_model_arguments,
    build_model,
    settings_from_args,
)
from agent.models.scripted import ScenarioError
from agent.permissions import DEFAULT_MODE, MODES
from agent.session import SessionSettings

EPILOG = f"""\
modes:
{chr(10).join(f"  {info.id:<13} {info.description}" for info in MODES)}
  A file path or bash workdir outside the workspace always asks, or is refused in read-only.
  bash is a shell: a command can read and write any path you can, wherever it runs, and
  full-access runs commands without asking.

model selection (highest first): the flags above, then DSH_MODEL_PROVIDER, DSH_MODEL,
DSH_BASE_URL, DSH_API_KEY, DEEPSEEK_API_KEY, DSH_SCENARIO, then the [model] table of the
config file (--config, DSH_CONFIG, or the per-user config.toml). With nothing configured the
embedded offline model answers: type `help` in a session for its tool commands.

session logs: one JSONL file per session in --session-dir, else ${SESSION_DIR_ENV},
else {default_session_dir({})}.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-agent",
        description=(
            "A coding agent that speaks the Agent Client Protocol (ACP) over stdio. "
            "Run it from an ACP client such as dsh-tui or an editor; stdout is the protocol "
            "channel, logs go to stderr or --log-file."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dsh-agent {__version__}")
    parser.add_argument(
        "--mode",
        default=DEFAULT_MODE,
        choices=[info.id for info in MODES],
        help=f"the permission mode sessions start in (default: {DEFAULT_MODE})",
    )
    parser.add_argument(
        "--session-dir",
        metavar="DIR",
        type=Path,
        help=f"where session logs live (default: ${SESSION_DIR_ENV} or the user data dir)",
    )
    parser.add_argument(
        "--max-steps",
        metavar="N",
        type=int,
        default=DEFAULT_MAX_STEPS,
        help=f"model calls allowed per prompt before the turn stops (default: {DEFAULT_MAX_STEPS})",
    )
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
    add_model_arguments(parser)
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


async def serve(settings: SessionSettings, session_dir: Path) -> None:
    from agent.server import AgentConfig, DshAgent, serve_stdio

    agent = DshAgent(AgentConfig(settings, session_dir))
    try:
        await serve_stdio(agent)
    finally:
        await agent.shutdown()


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_steps < 1:
        parser.error("--max-steps must be at least 1")
    configure_logging(args.log_file, args.log_level)
    try:
        configured = settings_from_args(args)
        build_model(configured)  # fail now, on stderr, rather than at the first prompt
    except (ConfigError, ScenarioError) as error:
        print(f"dsh-agent: {error}", file=sys.stderr)
        sys.exit(2)
    settings = SessionSettings(args.mode, configured, args.max_steps)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, args.session_dir or default_session_dir()))


if __name__ == "__main__":
    main()
