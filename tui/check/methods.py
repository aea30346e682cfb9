"""The session methods an agent may offer: probed where advertised, and "method not found"
expected where not. A session/load must replay the same tool calls the live turn made."""

from __future__ import annotations

from typing import Any

from tui.check.results import Result
from tui.check.wire_log import Run
from tui.check.wire_view import Exchange, exchange, updates

METHOD_NOT_FOUND = -32601
PROBES = (
    "session/list",
    "session/load",
    "session/resume",
    "session/set_mode",
    "session/set_config_option",
    "session/set_model",
)
NO_SUCH = "dsh-check-no-such-id"  # what a probe of a method not advertised names


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def advertised(method: str, init: dict[str, Any], session: dict[str, Any]) -> bool:
    """Whether the initialize result (`init`) or the session/new result offers `method`."""
    agent = _dict(init.get("agentCapabilities"))
    sessions = _dict(agent.get("sessionCapabilities"))
    if method == "session/list":
        return isinstance(sessions.get("list"), dict)
    if method == "session/load":
        return agent.get("loadSession") is True
    if method == "session/resume":
        return isinstance(sessions.get("resume"), dict)
    if method == "session/set_mode":
        return bool(_list(_dict(session.get("modes")).get("availableModes")))
    if method == "session/set_config_option":
        return bool(_list(session.get("configOptions")))
    if method == "session/set_model":
        return bool(_list(_dict(session.get("models")).get("availableModels")))
    return False


def probe_params(
    method: str, session_id: str, cwd: str, init: dict[str, Any], session: dict[str, Any]
) -> dict[str, Any]:
    """What the probe sends: the current value where one is advertised (nothing changes)."""
    offered = advertised(method, init, session)
    if method == "session/list":
        return {"cwd": cwd}
    if method in ("session/load", "session/resume"):
        return {"sessionId": session_id, "cwd": cwd, "mcpServers": []}
    if method == "session/set_mode":
        mode = _dict(session.get("modes")).get("currentModeId") if offered else NO_SUCH
        return {"sessionId": session_id, "modeId": mode}
    if method == "session/set_config_option":
        options = [_dict(each) for each in _list(session.get("configOptions"))]
        if not offered or not options:
            return {"sessionId": session_id, "configId": NO_SUCH, "value": NO_SUCH}
        first = options[0]
        return {
            "sessionId": session_id,
            "configId": first.get("id"),
            "value": first.get("currentValue"),
        }
    if method == "session/set_model":
        model = _dict(session.get("models")).get("currentModelId") if offered else NO_SUCH
        return {"sessionId": session_id, "modelId": model}
    return {}


def _error_text(error: dict[str, Any]) -> str:
    return f"{error.get('code')} {error.get('message', '')}".strip()


def _call_ids(run: Run, session_id: str, replayed: bool, before: int) -> set[str]:
    return {
        str(each.update.get("toolCallId"))
        for each in updates(run)
        if each.replayed == replayed
        and each.session_id == session_id
        and each.kind == "tool_call"
        and each.index < before
    }


def _load_matches(run: Run, probe: Exchange) -> str | None:
    """Why the replay differs from the live session's tool calls, or None."""
    session_id = str(probe.params.get("sessionId"))
    live = _call_ids(run, session_id, False, probe.index)
    replayed = _call_ids(run, session_id, True, probe.end)
    if live == replayed:
        return None
    missing = sorted(live - replayed)[:3]
    extra = sorted(replayed - live)[:3]
    said = [f"not replayed: {', '.join(missing)}" if missing else ""]
    said.append(f"replayed but never made: {', '.join(extra)}" if extra else "")
    return "the replay's tool calls differ from the live turn's: " + "; ".join(
        part for part in said if part
    )


def check_method(run: Run, method: str) -> Result:
    name = f"method {method}"
    init, opened = exchange(run, "initialize"), exchange(run, "session/new")
    probe = exchange(run, method)
    if probe is None or init is None or opened is None:
        return Result.skipped(name, run.problem or "not probed")
    offered = advertised(method, _dict(init.result), _dict(opened.result))
    if probe.answer is None:
        return Result.failed(name, "no answer to the probe")
    error = probe.error
    if not offered:
        if error is not None and error.get("code") == METHOD_NOT_FOUND:
            return Result.passed(name, "not advertised; answers -32601 method not found")
        answered = "an error " + _error_text(error) if error is not None else "a result"
        return Result.passed(name, f"not advertised; answers {answered}")
    if error is not None:
        return Result.failed(name, f"advertised, but answers {_error_text(error)}")
    if method == "session/load":
        problem = _load_matches(run, probe)
        if problem is not None:
            return Result.failed(name, problem)
        return Result.passed(name, "advertised; the replay has the live turn's tool calls")
    return Result.passed(name, "advertised; answers")
