"""The `initialize` exchange as one table: what the client offered beside what the agent
answered, a row per capability path. Pure data, no Textual.

The two sides describe different things (what the client can do for the agent, what the agent
can do), so the rows are the union of both sides' paths, each cell the value that side sent or
nothing: `fs.readTextFile` is the client's alone, `loadSession` the agent's alone, and a path
both sent (`protocolVersion`, a `_meta` key) shows whether they agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tui.inspector.traffic import Negotiation

MAX_ROWS = 200
MAX_VALUE_CHARS = 48
PARSE_LIMIT = 1024 * 1024
"""An initialize message larger than this is not parsed for the table (its list row stays)."""


@dataclass(frozen=True, slots=True)
class NegotiationRow:
    path: str
    offered: str | None
    """What the client sent at this path, None when it sent nothing there."""
    answered: str | None

    @property
    def differs(self) -> bool:
        """Both sides sent this path, with different values (the names of the two programs
        always differ, and are not a disagreement)."""
        if self.path == "info" or self.offered is None or self.answered is None:
            return False
        return self.offered != self.answered


@dataclass(frozen=True, slots=True)
class NegotiationTable:
    rows: tuple[NegotiationRow, ...]
    note: str = ""
    """What is missing or was cut (no answer yet, an error answer, rows over MAX_ROWS)."""


def value_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """Leaf paths of nested objects (`fs.readTextFile`); lists and scalars are leaves, and an
    empty object is one too (`{}`: the side sent it, with nothing in it)."""
    if isinstance(value, dict) and value:
        leaves: dict[str, str] = {}
        for key, item in value.items():
            leaves.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return leaves
    return {prefix: value_text(value)} if prefix else {}


def _info(info: Any) -> str | None:
    if not isinstance(info, dict):
        return None
    name = info.get("title") or info.get("name")
    version = info.get("version")
    shown = " ".join(str(part) for part in (name, version) if part)
    return shown or None


def _side(message: Any, key: str) -> dict[str, Any]:
    part = message.get(key) if isinstance(message, dict) else None
    return part if isinstance(part, dict) else {}


def negotiation_table(negotiation: Negotiation) -> NegotiationTable:
    request = negotiation.request
    if request is None:
        return NegotiationTable((), "no initialize request yet")
    offered = request.parsed(PARSE_LIMIT)
    if offered is None:
        return NegotiationTable((), f"the initialize request is not shown ({request.size} bytes)")
    response = negotiation.response
    answered = None if response is None else response.parsed(PARSE_LIMIT)
    notes = []
    if response is None:
        notes.append("no answer yet")
    elif answered is None:
        notes.append(f"the answer is not shown ({response.size} bytes)")
    params, result = _side(offered, "params"), _side(answered, "result")
    error = _side(answered, "error")
    if error:
        notes.append(f"the agent answered an error: {value_text(error.get('message'))}")
    rows = [
        NegotiationRow(
            "protocolVersion",
            value_text(params["protocolVersion"]) if "protocolVersion" in params else None,
            value_text(result["protocolVersion"]) if "protocolVersion" in result else None,
        ),
        NegotiationRow("info", _info(params.get("clientInfo")), _info(result.get("agentInfo"))),
    ]
    client = flatten(params.get("clientCapabilities"))
    agent = flatten(result.get("agentCapabilities"))
    if "authMethods" in result:
        agent["authMethods"] = value_text(
            [m.get("id") if isinstance(m, dict) else m for m in result["authMethods"] or []]
        )
    for path in [*client, *(path for path in agent if path not in client)]:
        rows.append(NegotiationRow(path, client.get(path), agent.get(path)))
    if len(rows) > MAX_ROWS:
        notes.append(f"{len(rows) - MAX_ROWS} more rows not shown")
        rows = rows[:MAX_ROWS]
    return NegotiationTable(tuple(rows), "; ".join(notes))
