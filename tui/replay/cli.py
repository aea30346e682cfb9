"""`dsh-tui replay FILE [--speed X | --step]`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-tui replay",
        description="Play a recording (dsh-tui --record FILE) back into the client, with no "
        "agent: its files and commands are answered from the recording, never touched or run.",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the recording (JSONL)")
    timing = parser.add_mutually_exclusive_group()
    timing.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="play at X times the recorded pace: 1 keeps the recorded timing (default), "
        "0 plays as fast as possible",
    )
    timing.add_argument(
        "--step",
        action="store_true",
        help="hand the client one agent message per key press (space or n)",
    )
    parser.add_argument("--log-dir", type=Path, default=None, help="where dsh-tui's log goes")
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.speed < 0:
        raise SystemExit("dsh-tui replay: --speed must be 0 or more")
    if not args.file.is_file():
        raise SystemExit(f"dsh-tui replay: {args.file}: no such file")
    from tui.agent_log import default_log_dir
    from tui.cli import configure_logging
    from tui.replay.app import replay_app

    log_dir = args.log_dir or default_log_dir()
    log_dir.mkdir(parents=True, exist_ok=True)
    configure_logging(log_dir)
    try:
        app = replay_app(args.file, speed=args.speed, step=args.step, log_dir=log_dir)
    except OSError as error:
        raise SystemExit(f"dsh-tui replay: {args.file}: {error}") from error
    app.run()
    return app.return_code or 0
