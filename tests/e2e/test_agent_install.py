"""`dsh-tui agents install ID` against a local HTTP server serving small archives: the
download's checksum, the progress bar, the unpacked command, and archives that are refused."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import io
import json
import os
import shlex
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli
from scripted import SCRIPT_AGENT

from tui.catalogue.install import InstallFailed, install
from tui.catalogue.registry import parse_registry, platform_key


@contextlib.contextmanager
def serving(files: dict[str, bytes]) -> Iterator[str]:
    """A local HTTP server of `files` by path; its base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as bundle:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            bundle.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def registry(url: str, cmd: str = "./bin-agent") -> dict[str, Any]:
    return {
        "version": "1.0.0",
        "agents": [
            {
                "id": "bin-agent",
                "name": "Bin Agent",
                "version": "2.0.0",
                "distribution": {"binary": {platform_key(): {"archive": url, "cmd": cmd}}},
            }
        ],
    }


def dsh_tui(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv], capture_output=True, text=True, timeout=60
    )


def test_install_downloads_checks_and_unpacks_then_the_agent_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"agent_name": "installed-one", "prompts": [[]]}))
    inner = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script)])
    archive = tar_gz({"bin-agent": f"#!/bin/sh\nexec {inner}\n".encode()})
    with serving({"/bin-agent-2.0.0.tar.gz": archive}) as base:
        cache = Path(os.environ["XDG_CACHE_HOME"]) / "dsh-tui"
        cache.mkdir(parents=True)
        (cache / "registry.json").write_text(json.dumps(registry(f"{base}/bin-agent-2.0.0.tar.gz")))
        before = dsh_tui("agents")
        assert "[cannot run here: not installed: dsh-tui agents install bin-agent]" in before.stdout
        done = dsh_tui("agents", "install", "bin-agent")
    assert done.returncode == 0, done.stderr
    assert f"sha256 {hashlib.sha256(archive).hexdigest()}  ({len(archive)} bytes)" in done.stdout
    assert "] 100%" in done.stderr
    program = Path(os.environ["XDG_DATA_HOME"]) / "dsh-tui/agents/bin-agent/2.0.0/bin-agent"
    assert f"installed Bin Agent 2.0.0: {program}" in done.stdout
    assert os.access(program, os.X_OK)
    after = dsh_tui("agents")
    assert f"binary: {program}  [runs here]" in after.stdout
    argv = ["--agent", "bin-agent", "--cwd", str(tmp_path), "--log-dir", str(tmp_path / "logs")]
    run_cli(monkeypatch, argv, lambda app: app.controller.session is not None)


def test_archives_that_would_escape_or_lack_the_command_are_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("../escaped", b"x")
    files = {"/evil.zip": buffer.getvalue(), "/empty.tar.gz": tar_gz({"other": b"x"})}
    with serving(files) as base:
        for path, expected in (("/evil.zip", "outside"), ("/empty.tar.gz", "has no ./bin-agent")):
            agent = parse_registry(registry(base + path)).agents[0]
            with pytest.raises(InstallFailed, match=expected):
                install(agent, tmp_path / "data", lambda done, total: None)
        missing = parse_registry(registry(base + "/missing.zip")).agents[0]
        with pytest.raises(InstallFailed, match="could not download"):
            install(missing, tmp_path / "data", lambda done, total: None)
    assert not (tmp_path / "escaped").exists()
    assert not (tmp_path / "data" / "agents" / "bin-agent" / "2.0.0").exists()
