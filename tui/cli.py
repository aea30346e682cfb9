"""Command line of dsh-tui.

It starts the agent before it imports the UI: the agent's own start-up (it imports the ACP
SDK) then overlaps the client's imports and first frame. Only light modules are imported here.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import logging.handlers
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dsh_common.private_files import open_private, private_dir
from tui import __version__
from tui.agent_log import default_log_dir, new_agent_log
from tui.launch import HANDSHAKE_TIMEOUT_S, AgentFailed, AgentProcess, LaunchSpec
from tui.quiet_tty import quiet_terminal
from tui.user_config import MAX_SECONDS, McpServer
from tui.web_keys import in_browser

LOG_MAX_BYTES = 10 * 1024 * 1024
LOG_BACKUPS = 2


def seconds(text: str) -> float:
    """A flag's positive number of seconds, at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_SECONDS}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-tui",
        description="A terminal client for the Agent Client Protocol (ACP). "
        "`dsh-tui demo` plays the capability-negotiation demo; `dsh-tui replay FILE` plays "
        "a recording back; `dsh-tui agents` lists the agents it can run by name; "
        "`dsh-tui config` shows the settings in force and where each came from; "
        "`dsh-tui check --agent AGENT` runs ACP conformance checks against an agent; "
        "`dsh-tui compare --agent AGENT --side SPEC --side SPEC` runs it side by side under "
        "different client capabilities; `dsh-tui serve` serves dsh-tui to a browser.",
    )
    parser.add_argument("--version", action="version", version=f"dsh-tui {__version__}")
    parser.add_argument(
        "--agent",
        metavar="AGENT",
        default=None,
        help="the ACP agent to run: a named agent of the settings file, an ACP registry id "
        "(see `dsh-tui agents`), or a command line as one shell-quoted string, e.g. --agent "
        '"dsh-agent --log-level DEBUG" (default: $DSH_AGENT, the settings file\'s agent, '
        "or dsh-agent)",
    )
    parser.add_argument(
        "--cwd",
        type=Path,
        default=Path.cwd(),
        help="the workspace: the agent's working directory and the session cwd "
        "(default: the current directory)",
    )
    parser.add_argument(
        "--terminal",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="advertise the terminal capability (clientCapabilities.terminal and "
        "_meta.terminal_output); --no-terminal exercises the agent's console fallback",
    )
    parser.add_argument(
        "--allow-dir",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also let the agent read and write files under DIR (repeatable); "
        "by default only the workspace is reachable",
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="resume a session: the given id, or pick one from the agent's session list "
        "(after quitting with several tabs: those tabs again, each on its session)",
    )
    parser.add_argument(
        "--log-dir",
        type=Path,
        default=None,
        help=f"where the agent's stderr and dsh-tui's own log go (default: {default_log_dir()})",
    )
    parser.add_argument(
        "--handshake-timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="how long to wait for the agent to answer initialize and session/new before "
        f"stopping it (default: {HANDSHAKE_TIMEOUT_S:g}, or the settings file's handshake_timeout)",
    )
    parser.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="NAME",
        help="pass only this MCP server of the settings file (repeatable; default: all of them)",
    )
    parser.add_argument(
        "--no-mcp", action="store_true", help="pass no MCP server to the agent this run"
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="FILE",
        help="write every JSON-RPC message of the session, both ways, to FILE as JSONL "
        "(it holds the conversation and the contents of files the agent reads or writes)",
    )
    parser.add_argument(
        "--tab",
        action="append",
        default=[],
        metavar="AGENT[@DIR]",
        help="open a tab on AGENT (as --agent names one) in DIR (default: --cwd); repeatable: "
        "the first --tab is the first tab, in place of --agent",
    )
    return parser


def start_agent(
    args: argparse.Namespace,
    cwd: Path,
    log_dir: Path,
    allow_dirs: tuple[Path, ...],
    env: tuple[tuple[str, str], ...] = (),
    mcp_servers: tuple[McpServer, ...] = (),
    handshake_timeout: float = HANDSHAKE_TIMEOUT_S,
) -> AgentProcess | AgentFailed:
    """Start the agent now, or say why it cannot start: the app shows that on its failure screen."""
    try:
        spec = LaunchSpec.from_command(
            args.agent,
            cwd,
            new_agent_log(log_dir),
            args.terminal,
            allow_dirs,
            args.record,
            env,
            mcp_servers,
            handshake_timeout,
        )
    except ValueError as error:
        raise SystemExit(f"dsh-tui: --agent {args.agent!r}: {error}") from error
    try:
        return AgentProcess.start(spec)
    except AgentFailed as failure:
        return failure


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Each file it opens, the first and every one after a rotation, is 0600: the log holds
    what the agent said."""

    def _open(self) -> Any:
        return open_private(
            self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors
        )


def configure_logging(log_dir: Path) -> None:
    """dsh-tui.log in `log_dir`, rotated at LOG_MAX_BYTES with LOG_BACKUPS old files kept.

    Logging goes to a file: a handler on the real stderr would paint over the screen.
    """
    handler = PrivateRotatingFileHandler(
        log_dir / "dsh-tui.log", maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
    )
    logging.basicConfig(
        handlers=[handler],
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Exits with the app's status: 0 after a normal quit, 1 after quitting a failed agent."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] in (["demo"], ["compare"]):
        from tui.compare.cli import run_compare, run_demo

        (run_demo if arguments[0] == "demo" else run_compare)(arguments[1:])
        return
    if arguments[:1] == ["replay"]:
        from tui.replay.cli import main as replay

        with quiet_terminal():
            sys.exit(replay(arguments[1:]))
    if arguments[:1] == ["serve"]:
        from tui.serve.cli import main as serve

        sys.exit(serve(arguments[1:]))
    if arguments[:1] == ["check"]:
        from tui.check.cli import main as check

        sys.exit(check(arguments[1:]))
    if arguments[:1] in (["config"], ["agents"]):
        from tui.settings_cli import main as settings_main

        sys.exit(settings_main(arguments[0], arguments[1:], build_parser()))
    args = build_parser().parse_args(arguments)
    with quiet_terminal():
        run_app(args)


def run_app(args: argparse.Namespace) -> None:
    cwd = args.cwd.expanduser().resolve()
    if not cwd.is_dir():
        raise SystemExit(f"dsh-tui: --cwd {cwd} is not a directory")
    from tui.catalogue.choice import AgentChoice
    from tui.settings_cli import effective, notices, resolve_agent
    from tui.tabs import window
    from tui.tabs.spec import split_tab

    base_cwd = cwd
    tabs = [split_tab(value, cwd) for value in args.tab]
    if tabs:  # the first tab is the session the CLI starts first
        args.agent, first_dir = tabs[0]
        cwd = first_dir or cwd
    # `--resume` with no id after a window of several tabs: those tabs, each its session.
    window_path = window.default_path()
    saved = window.load(window_path) if args.resume == "" and not tabs else []
    if len(saved) > 1:
        args.agent, cwd, args.resume = saved[0].agent_command, saved[0].cwd, saved[0].session_id
    settings = effective(args)
    choice = resolve_agent(settings)
    if len(saved) > 1 and saved[0].env:
        choice = dataclasses.replace(choice, env=saved[0].env)
    extra: list[tuple[AgentChoice, Path, str | None]] = []
    for agent, directory in tabs[1:]:
        args.agent = agent
        extra.append((resolve_agent(effective(args)), directory or base_cwd, None))
    for tab in saved[1:] if len(saved) > 1 else []:
        again = AgentChoice(tuple(shlex.split(tab.agent_command)), tab.env)
        extra.append((again, tab.cwd, tab.session_id))
    args.agent, args.terminal = choice.command_line, settings.terminal
    log_dir = private_dir(settings.log_dir.expanduser())
    configure_logging(log_dir)
    allow_dirs = tuple(path.expanduser().resolve() for path in args.allow_dir)
    if args.record is not None:
        args.record = args.record.expanduser().resolve()
        if not args.record.parent.is_dir():
            raise SystemExit(f"dsh-tui: --record {args.record}: no such directory")
    started = start_agent(
        args,
        cwd,
        log_dir,
        allow_dirs,
        choice.env,
        settings.mcp_servers,
        settings.handshake_timeout,
    )
    try:
        from dsh_common.proc_tree import become_subreaper

        # Before any descendant can be orphaned (the agent has only just started, and nothing
        # else has): orphans below dsh-tui (daemons that double-forked away from a terminal's
        # command) are then reparented to it, so quit can still find and kill them.
        become_subreaper()
        from tui import settings_store
        from tui.app import DshApp
        from tui.config import AppConfig, TabSpec

        app = DshApp(
            AppConfig(
                args.agent,
                cwd,
                args.terminal,
                log_dir,
                allow_dirs=allow_dirs,
                resume=args.resume,
                record=args.record,
                agent_env=choice.env,
                mcp_servers=settings.mcp_servers,
                handshake_timeout=settings.handshake_timeout,
                notices=notices(settings.config),
                agent_mode=choice.mode,
                agent_model=choice.model,
                settings_path=settings_store.default_path(),
                freeze_heap=True,
                started=started,
                web=in_browser(),
                tabs=tuple(TabSpec(*tab) for tab in extra),
                window_path=window_path,
            )
        )
        app.run()
    finally:
        if isinstance(started, AgentProcess):
            started.discard()  # only if the app never took it
    sys.exit(app.return_code or 0)


if __name__ == "__main__":
    main()
