"""`dsh-tui compare` and `dsh-tui demo`: their command lines, checked before any UI starts."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tui.compare.capability_set import PRESETS, WORDS, SpecError, plan_sides
from tui.compare.setup import CompareSetup, SideSetup
from tui.compare.workspaces import SideWorkspaces, recording_paths
from tui.launch import find_program


def compare_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-tui compare",
        description="Run 2 to 4 client sessions side by side, each with its own agent process, "
        "capability set and copy of the workspace; one prompt box sends to every side.",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="CMD_OR_ID",
        help="the agent: a command line, a named agent or an ACP registry id; once for every "
        "side, or once per side in --side order",
    )
    parser.add_argument(
        "--side",
        action="append",
        default=[],
        metavar="SPEC",
        help=f"what one side advertises: a comma list of {', '.join(WORDS)}, or a preset "
        f"({', '.join(PRESETS)}); 2 to 4 times",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        default=None,
        metavar="DIR",
        help="copied once per side, so no two sides write into the same directory "
        "(default: the current directory; the copies are removed on quit)",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="write one recording per side into DIR (side-N-SPEC.jsonl; see `dsh-tui replay`)",
    )
    parser.add_argument("--pace", type=float, default=0.0, metavar="S", help=PACE_HELP)
    parser.add_argument("--log-dir", type=Path, default=None, help="where the agents' stderr goes")
    return parser


PACE_HELP = "show each tool call at least S seconds after the previous one (default: 0)"


def resolved(agent: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A named or registry agent as its command line and variables (a command line as is)."""
    from tui.settings_cli import effective, resolve_agent

    flags = argparse.Namespace(
        agent=agent, terminal=None, log_dir=None, mcp=[], no_mcp=True, handshake_timeout=None
    )
    choice = resolve_agent(effective(flags))
    if not choice.runnable:
        raise SpecError(f"--agent {agent}: {choice.why}")
    if find_program(choice.argv[0], dict(choice.env).get("PATH")) is None:
        raise SpecError(f"--agent {agent}: {choice.argv[0]} not found on PATH")
    return choice.command_line, choice.env


def compare_setup(args: argparse.Namespace) -> CompareSetup:
    """Raises SpecError for anything that cannot run, before a workspace is copied."""
    plans = plan_sides(args.agent, args.side)
    if args.pace < 0:
        raise SpecError("--pace must be 0 or more seconds")
    agents = {agent: resolved(agent) for agent in dict.fromkeys(plan.agent for plan in plans)}
    labels = [plan.capabilities.label for plan in plans]
    records: list[Path | None] = [None] * len(plans)
    if args.record is not None:
        directory = args.record.expanduser().resolve()
        if not directory.parent.is_dir():
            raise SpecError(f"--record {directory}: {directory.parent} is not a directory")
        directory.mkdir(exist_ok=True)
        records = list(recording_paths(directory, labels))
    source = (args.workspace or Path.cwd()).expanduser().resolve()
    workspaces = SideWorkspaces.copy(source, labels)
    sides = tuple(
        SideSetup(
            agents[plan.agent][0],
            plan.capabilities,
            f"{number} · {plan.capabilities.label}"
            + (f" · {plan.agent}" if len(agents) > 1 else ""),
            env=agents[plan.agent][1],
            record=record,
        )
        for number, (plan, record) in enumerate(zip(plans, records, strict=True), 1)
    )
    legend = (
        f"dsh-tui compare · {len(sides)} sides, each in its own copy of {source.name or source}/"
        " · one prompt goes to every side"
    )
    return CompareSetup(sides, workspaces, legend, pace=args.pace, log_dir=args.log_dir)


def run_compare(argv: Sequence[str]) -> None:
    args = compare_parser().parse_args(argv)
    try:
        setup = compare_setup(args)
    except SpecError as error:
        raise SystemExit(f"dsh-tui compare: {error}") from error
    from dsh_common.proc_tree import become_subreaper
    from tui.heap import freeze_startup_heap
    from tui.widgets.compare.screen import CompareApp

    # As the app does: a daemon that double-forks away from a side's terminal is reparented
    # here, so quit still finds and kills it.
    become_subreaper()
    freeze_startup_heap()
    try:
        CompareApp(setup).run()
    finally:
        setup.workspaces.remove()


def run_demo(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="dsh-tui demo",
        description="Play the bundled demo twice, side by side: with the terminal capability "
        "(live terminal panes) and without it (the agent's console fallback). Offline. "
        "The bundled case of `dsh-tui compare`.",
    )
    parser.add_argument("--log-dir", type=Path, default=None, help="where the agents' stderr goes")
    parser.add_argument(
        "--replay",
        action="store_true",
        help="play both sides from the bundled recordings: no agent runs, no command either",
    )
    parser.add_argument(
        "--pace", type=float, default=0.0, metavar="S", help=PACE_HELP + "; try 1 to follow"
    )
    args = parser.parse_args(argv)
    if args.pace < 0:
        parser.error("--pace must be 0 or more seconds")
    from dsh_common.proc_tree import become_subreaper
    from tui.demo import DemoApp
    from tui.heap import freeze_startup_heap

    become_subreaper()
    freeze_startup_heap()
    DemoApp(log_dir=args.log_dir, replay=args.replay, pace=args.pace).run()
