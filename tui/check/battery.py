"""The whole battery: the runs, concurrently, then every check over their records."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tui.check import methods, robustness, schema, session_checks, tool_calls
from tui.check.prober import probe
from tui.check.results import Result
from tui.check.runner import Agent, Timeouts, capabilities, run_session
from tui.check.wire_log import Run

ROBUSTNESS = "robustness"


async def run_all(agent: Agent, prompts: Sequence[str], timeouts: Timeouts) -> list[Run]:
    """One process per capability set, and one for the raw probes, all at once: the turn
    with everything offered (then the method probes), with terminal off (then the turn again
    and a cancelled turn), and with fs off."""
    return list(
        await asyncio.gather(
            run_session(agent, "all", capabilities(True, True), prompts, timeouts, probe=True),
            run_session(
                agent,
                "no-terminal",
                capabilities(False, True),
                prompts,
                timeouts,
                cancel=True,
                repeat=True,
            ),
            run_session(agent, "no-fs", capabilities(True, False), prompts, timeouts),
            probe(agent.spec(ROBUSTNESS, False), ROBUSTNESS, timeouts.probe_s),
        )
    )


SESSION_CHECKS = (
    tool_calls.check_unique_ids,
    tool_calls.check_known_ids,
    tool_calls.check_status_forward,
    tool_calls.check_finished,
    tool_calls.check_paths,
    session_checks.check_terminal_off,
    session_checks.check_fs_off,
    session_checks.check_cancel,
)


def evaluate(runs: Sequence[Run]) -> list[Result]:
    sessions = [run for run in runs if run.name != ROBUSTNESS]
    raw = [run for run in runs if run.name == ROBUSTNESS]
    results = [
        session_checks.check_handshake(sessions),
        session_checks.check_session(sessions),
        schema.check_schema(list(runs)),
    ]
    missing = session_checks.needs_session(sessions)
    session_results = [check(sessions) for check in SESSION_CHECKS]
    probed = next((run for run in sessions if run.name == "all"), None)
    for method in methods.PROBES:
        if probed is not None:
            session_results.append(methods.check_method(probed, method))
    if missing is not None:
        session_results = [Result.skipped(each.check, missing) for each in session_results]
    results += session_results
    for run in raw:
        results += robustness.robustness_checks(run)
    return results
