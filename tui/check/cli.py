"""`dsh-tui check --agent AGENT [--prompt TEXT]... [--json FILE]`: the conformance report."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

from dsh_common.conformance import CHECK_FILE, CHECK_PROMPT
from tui.check.battery import evaluate, run_all
from tui.check.report import summary, table, write_json
from tui.check.results import evidence
from tui.check.runner import Agent, Timeouts
from tui.check.wire_log import Run
from tui.check.wire_view import exchange
from tui.launch import find_program


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dsh-tui check",
        description="Run a battery of ACP conformance checks against an agent over stdio and "
        "print a table of what passed, failed or was skipped, with the evidence. Each "
        "capability set (everything, terminal off, fs off) gets its own agent process and "
        f"scratch workspace holding {CHECK_FILE}; permission requests are allowed. Exits 1 "
        "when a check fails.",
    )
    parser.add_argument(
        "--agent",
        metavar="AGENT",
        default=None,
        help="the agent, as for dsh-tui: a named agent of the settings file, an ACP registry "
        "id, or a command line as one shell-quoted string (default: as dsh-tui's)",
    )
    parser.add_argument(
        "--prompt",
        action="append",
        default=None,
        metavar="TEXT",
        help="what the turn says (repeatable: one prompt after another; default: a request "
        f"to read {CHECK_FILE}, edit it and run a command)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="also write the results as JSON"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long one turn may take (default: 300)",
    )
    return parser


def resolve(agent: str | None) -> Agent:
    """The agent to start, found as dsh-tui finds it. Raises SystemExit with the reason."""
    from tui.settings_cli import effective, resolve_agent

    flags = argparse.Namespace(
        agent=agent, terminal=None, log_dir=None, handshake_timeout=None, mcp=[], no_mcp=True
    )
    choice = resolve_agent(effective(flags))
    if not choice.runnable:
        raise SystemExit(f"dsh-tui check: {choice.label or choice.command_line}: {choice.why}")
    program = find_program(choice.argv[0], dict(choice.env).get("PATH"))
    if program is None:
        raise SystemExit(f"dsh-tui check: {choice.argv[0]}: not found on PATH")
    return Agent(choice.argv, Path(), choice.env, program)


def agent_name(runs: Sequence[Run]) -> str:
    for run in runs:
        init = exchange(run, "initialize")
        result = init.result if init is not None and isinstance(init.result, dict) else {}
        info = result.get("agentInfo")
        if isinstance(info, dict):
            return evidence(f"{info.get('name', '?')} {info.get('version', '')}".strip(), 60)
    return "no agentInfo"


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    prompts = tuple(args.prompt or [CHECK_PROMPT])
    found = resolve(args.agent)
    # Nothing the SDK or the client logs may reach the terminal: it can hold agent text.
    logging.getLogger().addHandler(logging.NullHandler())
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(prefix="dsh-tui-check-") as base:
        agent = Agent(found.argv, Path(base), found.env, found.program)
        runs = asyncio.run(run_all(agent, prompts, Timeouts(turn_s=args.timeout)))
    results = evaluate(runs)
    command = evidence(" ".join(found.argv), 80)
    print(f"dsh-tui check: {command} ({agent_name(runs)})")
    print(table(results))
    print(summary(results))
    if args.json is not None:
        write_json(args.json, " ".join(found.argv), results)
    return 1 if any(each.status == "fail" for each in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
