"""The report: a table for the terminal, and JSON for `--json`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tui.check.results import Result, evidence

SHOWN = {"pass": "pass", "fail": "FAIL", "skipped": "skipped"}


def table(results: Sequence[Result], width: int = 120) -> str:
    name_width = max((len(each.check) for each in results), default=5)
    status_width = max(len(shown) for shown in SHOWN.values())
    room = max(20, width - name_width - status_width - 4)
    lines = [f"{'check':<{name_width}}  {'status':<{status_width}}  evidence"]
    for each in results:
        said = evidence(each.evidence, room)
        lines.append(f"{each.check:<{name_width}}  {SHOWN[each.status]:<{status_width}}  {said}")
    return "\n".join(lines)


def summary(results: Sequence[Result]) -> str:
    counts = {status: sum(each.status == status for each in results) for status in SHOWN}
    return f"{counts['pass']} passed, {counts['fail']} failed, {counts['skipped']} skipped"


def write_json(path: Path, agent: str, results: Sequence[Result]) -> None:
    data = {
        "agent": agent,
        "results": [
            {"check": each.check, "status": each.status, "evidence": each.evidence}
            for each in results
        ],
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
