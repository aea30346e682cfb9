"""An agent that never answers a start-up request ends in AgentFailed naming the request,
and the agent process is stopped, instead of the app waiting forever."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path

import pytest
from scripted import NoteSink

from tui.connection import open_session
from tui.connection.session import HandshakeTimeout
from tui.launch import AgentFailed, AgentProcess, LaunchSpec

SILENT = "import time; time.sleep(600)"
# Answers initialize, then reads on and never answers session/new.
INIT_ONLY = (
    "import json, sys, time\n"
    "line = sys.stdin.readline()\n"
    "msg = json.loads(line)\n"
    "res = {'protocolVersion': 1, 'agentCapabilities': {}, 'authMethods': []}\n"
    "print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': res}), flush=True)\n"
    "sys.stdin.readline()\n"
    "time.sleep(600)\n"
)


@pytest.mark.parametrize(("code", "method"), [(SILENT, "initialize"), (INIT_ONLY, "session/new")])
async def test_an_unanswered_start_up_request_fails_and_stops_the_agent(
    tmp_path: Path, code: str, method: str
) -> None:
    command = shlex.join([sys.executable, "-c", code])
    spec = LaunchSpec.from_command(command, tmp_path, tmp_path / "agent.log", True)
    spec = dataclasses.replace(spec, handshake_timeout=0.5)
    process = AgentProcess.start(spec)
    with pytest.raises(AgentFailed) as failed:
        async with open_session(spec, NoteSink(), process=process):
            pass
    assert f"did not answer {method} within 0.5 s" in failed.value.reason
    assert isinstance(failed.value.__cause__, HandshakeTimeout)
    assert process.returncode is not None  # killed, not left sleeping
