"""The client side of ACP: spawn the agent, negotiate, and hand every update to the app.

This package holds no widgets, and it is the only part of dsh-tui that uses the SDK's
connection layer. Updates are passed to a sink synchronously, in wire order, before anything
awaits, so the conversation can never be applied out of order; notes about what could not be
shown take the same path (`client.TuiClient`).

* `transport`: NDJSON on the agent's pipes, the shared line guard, the look at each message;
* `wire`: checks on raw messages (parameters the SDK would default, parts it would drop);
* `client`: the ACP client object (updates, fs, terminals, permission);
* `session`: one agent connection (spawn, negotiate, prompt, cancel, load, modes, models);
* `recording`: `--record`, every line on the wire written to a file off the event loop.
"""

from __future__ import annotations

from dsh_common.jsonrpc_lines import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from tui.connection.client import ClientSink, TuiClient
from tui.connection.session import (
    AgentConnection,
    SessionChooser,
    client_capabilities,
    open_session,
)
from tui.connection.transport import InspectingTransport, WireWatcher
from tui.connection.wire import SessionUpdate
from tui.launch import AgentFailed, LaunchSpec

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "AgentConnection",
    "AgentFailed",
    "ClientSink",
    "InspectingTransport",
    "LaunchSpec",
    "SessionChooser",
    "SessionUpdate",
    "TuiClient",
    "WireWatcher",
    "client_capabilities",
    "open_session",
]
