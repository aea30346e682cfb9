"""The settings file and the registry through the real command line: `dsh-tui config`,
`dsh-tui agents [--refresh]`, and `--agent` naming a named or a registry agent."""

from __future__ import annotations

import http.server
import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli
from scripted import SCRIPT_AGENT

REGISTRY = {
    "version": "1.0.0",
    "agents": [
        {
            "id": "npm-agent",
            "name": "Npm Agent",
            "version": "1.2.3",
            "description": "an agent from npm",
            "distribution": {"npx": {"package": "@acme/agent", "args": ["--acp"]}},
        }
    ],
}


def settings_file(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "dsh-tui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def dsh_tui(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"prompts": [[]]}))
    return path


def test_config_prints_each_value_with_where_it_came_from(tmp_path: Path) -> None:
    path = settings_file(
        f'agent = "mine"\nlog_dir = "{tmp_path}/logs"\n'
        '[agents.mine]\ncommand = "my-agent"\nenv = { K = "v" }\n'
        '[mcp_servers.files]\ncommand = "mcp-files"\n'
        '[mcp_servers.docs]\nurl = "https://docs.test/mcp"\n'
    )
    done = dsh_tui("config", "--no-terminal", "--mcp", "docs")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"settings file: {path}"
    assert f"agent = mine  ({path})" in lines
    assert "terminal = false  (--no-terminal)" in lines
    assert f"log_dir = {tmp_path}/logs  ({path})" in lines
    assert f"agents.mine: my-agent; env: K  ({path})" in lines
    assert "mcp_servers.files: stdio mcp-files  (not passed: --mcp)" in lines
    assert "mcp_servers.docs: http https://docs.test/mcp  (passed: --mcp)" in lines


def test_the_handshake_timeout_comes_from_the_flag_then_the_file_then_the_default() -> None:
    assert "handshake_timeout = 30  (default)" in dsh_tui("config").stdout.splitlines()
    path = settings_file("handshake_timeout = 90\n")
    assert f"handshake_timeout = 90  ({path})" in dsh_tui("config").stdout.splitlines()
    done = dsh_tui("config", "--handshake-timeout", "2.5")
    assert "handshake_timeout = 2.5  (--handshake-timeout)" in done.stdout.splitlines()
    refused = dsh_tui("config", "--handshake-timeout", "0")
    assert refused.returncode != 0 and "must be more than 0" in refused.stderr


def test_a_bad_file_is_reported_with_line_and_column() -> None:
    path = settings_file('agent = "a"\nterminal = tru\n')
    done = dsh_tui("config")
    assert done.returncode == 0, done.stderr
    assert f"problem: {path}:2:12: " in done.stdout
    assert "agent = dsh-agent  (default)" in done.stdout


def test_an_unknown_mcp_name_stops_before_anything_runs() -> None:
    settings_file('[mcp_servers.files]\ncommand = "mcp-files"\n')
    done = dsh_tui("--mcp", "nope")
    assert done.returncode != 0
    assert "--mcp nope: no such server" in done.stderr and "defined: files" in done.stderr


def test_a_named_agent_runs_with_its_env_and_the_file_problems_are_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "marker"
    inner = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script(tmp_path))])
    settings_file(
        'agent = "scripted"\ncolour = "blue"\n[agents.scripted]\ncommand = "sh"\n'
        f"args = ['-c', 'echo \"$MARK\" > {marker}; exec {inner}']\n"
        'env = { MARK = "from-settings" }\n'
    )
    monkeypatch.delenv("DSH_AGENT", raising=False)
    argv = ["--cwd", str(tmp_path), "--log-dir", str(tmp_path / "logs")]
    shown = run_cli(monkeypatch, argv, lambda app: app.controller.session is not None)
    assert marker.read_text() == "from-settings\n"
    assert any("colour: unknown key" in text for text in shown)


def test_agent_id_runs_the_registry_command_pinned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "dsh-tui"
    cache.mkdir(parents=True)
    (cache / "registry.json").write_text(json.dumps(REGISTRY))
    # A stand-in npx on PATH: it notes how it was called, then runs the scripted agent.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    called = tmp_path / "npx-argv"
    inner = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script(tmp_path))])
    (bin_dir / "npx").write_text(f'#!/bin/sh\necho "$@" > {called}\nexec {inner}\n')
    (bin_dir / "npx").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    listed = dsh_tui("agents")
    assert "  npm-agent  Npm Agent 1.2.3" in listed.stdout
    assert "npx: npx --yes @acme/agent@1.2.3 --acp  [runs here]" in listed.stdout
    argv = ["--agent", "npm-agent", "--cwd", str(tmp_path), "--log-dir", str(tmp_path / "l")]
    run_cli(monkeypatch, argv, lambda app: app.controller.session is not None)
    assert called.read_text() == "--yes @acme/agent@1.2.3 --acp\n"


class RegistryHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(REGISTRY).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_refresh_fetches_the_live_registry_and_offline_keeps_the_last() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RegistryHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/registry.json"
    try:
        fetched = dsh_tui("agents", "--refresh", env={"DSH_REGISTRY_URL": url})
    finally:
        server.shutdown()
        server.server_close()
    assert fetched.returncode == 0, fetched.stderr
    assert "fetched the live registry: 1 agents" in fetched.stdout
    assert "npm-agent" in fetched.stdout
    offline = dsh_tui("agents", "--refresh", env={"DSH_REGISTRY_URL": url})
    assert "offline? could not fetch" in offline.stdout
    assert "keeping the registry of" in offline.stdout and "npm-agent" in offline.stdout


def test_without_a_fetch_the_bundled_snapshot_is_listed() -> None:
    listed = dsh_tui("agents")
    assert listed.stdout.startswith("ACP registry (20")
    assert "gemini  Gemini CLI" in listed.stdout
    assert "@latest" not in listed.stdout
