"""What was negotiated, as rows for the capabilities view: pure data, no Textual."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.sanitize import clean_line

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import (
        ClientCapabilities,
        InitializeResponse,
        LoadSessionResponse,
        NewSessionResponse,
    )


@dataclass(frozen=True)
class CapabilityRow:
    """One line of the view; `value` is True/False for a flag, or text for anything else."""

    name: str
    value: bool | str
    depth: int = 0


def _rows(data: Any, depth: int = 0) -> list[CapabilityRow]:
    rows: list[CapabilityRow] = []
    if not isinstance(data, dict):
        return rows
    for key, value in data.items():
        if isinstance(value, dict):
            rows.append(CapabilityRow(key, "" if value else "{}", depth))
            rows += _rows(value, depth + 1)
        elif isinstance(value, bool):
            rows.append(CapabilityRow(key, value, depth))
        elif isinstance(value, list):
            rows.append(CapabilityRow(key, ", ".join(map(str, value)) or "none", depth))
        else:
            rows.append(CapabilityRow(key, str(value), depth))
    return rows


def wire(model: Any) -> dict[str, Any]:
    """Exactly what went over the wire: aliases, defaults omitted, as the SDK sends it."""
    result: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return result


def client_rows(caps: ClientCapabilities) -> list[CapabilityRow]:
    data = wire(caps)
    # Show every flag the client decides, even when false, so the switch is visible.
    data.setdefault("terminal", bool(caps.terminal))
    return _rows(data)


def agent_rows(
    init: InitializeResponse, session: NewSessionResponse | LoadSessionResponse | None
) -> list[CapabilityRow]:
    rows = [CapabilityRow("protocolVersion", str(init.protocol_version))]
    if init.agent_info is not None:
        info = init.agent_info
        rows.append(CapabilityRow("agentInfo", f"{info.name} {info.version}".strip()))
    rows.append(CapabilityRow("agentCapabilities", ""))
    rows += _rows(wire(init.agent_capabilities) if init.agent_capabilities else {}, 1)
    methods = [method.id for method in init.auth_methods or []]
    rows.append(CapabilityRow("authMethods", ", ".join(methods) or "none"))
    if session is not None:
        modes = session.modes
        if modes is not None:
            names = ", ".join(m.id for m in modes.available_modes)
            rows.append(CapabilityRow("modes", f"{names} (current: {modes.current_mode_id})"))
        else:
            rows.append(CapabilityRow("modes", "none"))
        options = session.config_options or []
        for option in options:
            rows.append(CapabilityRow(f"config: {option.name}", str(option.current_value)))
        if not options:
            rows.append(CapabilityRow("configOptions", "none"))
    return rows


def consequences(
    caps: ClientCapabilities, init: InitializeResponse, mcp_passed: Sequence[str] = ()
) -> list[str]:
    """What follows from the negotiation, in words."""
    lines: list[str] = []
    meta = caps.field_meta or {}
    if meta.get("terminal_output") is True:
        lines.append("terminal cards on: commands render as live terminal panes")
    else:
        lines.append("terminal cards off: commands arrive as ```console text (the fallback)")
    if caps.fs is not None and caps.fs.read_text_file:
        lines.append("the agent may read and write files through the client, inside the workspace")
    agent = init.agent_capabilities
    if agent is not None and agent.load_session:
        lines.append("sessions can be resumed (session/load)")
    elif can_resume(init):
        lines.append("sessions can be resumed without their history (session/resume)")
    if can_fork(init):
        lines.append("sessions can be forked into a new tab (session/fork)")
    if mcp_passed:
        names = ", ".join(clean_line(name) for name in mcp_passed)
        lines.append(f"MCP servers passed to the session: {names}")
    if init.auth_methods:  # what a login would offer (tui/connection/login.py)
        offered = ", ".join(
            f"{clean_line(m.name)} ({getattr(m, 'type', None) or 'agent'})"
            for m in init.auth_methods
        )
        lines.append(f"auth methods the agent offers: {offered}")
    return lines


def can_load(init: InitializeResponse) -> bool:
    caps = init.agent_capabilities
    return bool(caps and caps.load_session)


def can_resume(init: InitializeResponse) -> bool:
    """session/resume: reconnect to a session without the agent replaying its history."""
    caps = init.agent_capabilities
    return bool(caps and caps.session_capabilities and caps.session_capabilities.resume is not None)


def can_fork(init: InitializeResponse) -> bool:
    """session/fork, and a way to open the fork in a tab's own process (load or resume)."""
    caps = init.agent_capabilities
    session = caps.session_capabilities if caps is not None else None
    return bool(session and session.fork is not None) and (can_load(init) or can_resume(init))


def can_close(init: InitializeResponse) -> bool:
    caps = init.agent_capabilities
    return bool(caps and caps.session_capabilities and caps.session_capabilities.close is not None)


def can_list(init: InitializeResponse) -> bool:
    caps = init.agent_capabilities
    return bool(caps and caps.session_capabilities and caps.session_capabilities.list is not None)
