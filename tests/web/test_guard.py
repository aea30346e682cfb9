"""Nobody gets in uninvited: every request needs the printed URL's token and, when it says
where it comes from, this server's own origin. Plain HTTP and WebSocket clients here, no
browser; tests/web/test_page.py checks the same from Chromium."""

from __future__ import annotations

import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest
from served import DSH_TUI, Served, app_env

from tui.serve.guard import is_loopback

Serve = Callable[..., Served]


def status(url: str, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def without_token(url: str) -> str:
    return url.rsplit("/", 2)[0] + "/"


def with_wrong_token(url: str) -> str:
    token = url.rstrip("/").rsplit("/", 1)[1]
    return url.replace(token, token[:-1] + ("A" if token[-1] != "A" else "B"))


def test_the_printed_url_serves_the_page_and_its_files(serve: Serve) -> None:
    served = serve()
    with urllib.request.urlopen(served.url, timeout=30) as response:
        assert response.headers["Referrer-Policy"] == "no-referrer"  # the token stays here
        page = response.read().decode()
    assert "googleapis" not in page and "<title>dsh-tui</title>" in page
    assert served.url + "ws" in page.replace("ws://", "http://")
    assert status(served.url + "static/js/textual.js") == 200
    assert status(served.url, {"Origin": served.origin}) == 200


@pytest.mark.parametrize("path", ["", "static/js/textual.js", "ws", "favicon.ico"])
def test_no_token_or_a_wrong_one_is_forbidden(serve: Serve, path: str) -> None:
    served = serve()
    assert status(without_token(served.url) + path) == 403
    assert status(with_wrong_token(served.url) + path) == 403
    assert status(served.url.rstrip("/")) == 403  # the token alone, not a path under it


def test_another_origin_is_forbidden(serve: Serve) -> None:
    served = serve()
    assert status(served.url, {"Origin": "http://evil.example"}) == 403
    assert status(served.url, {"Origin": served.origin + "0"}) == 403


def test_a_host_that_is_not_this_machine_is_forbidden(serve: Serve) -> None:
    """DNS rebinding: a page of another site whose name now points to 127.0.0.1."""
    served = serve()
    port = served.origin.rsplit(":", 1)[1]
    assert status(served.url, {"Host": f"evil.example:{port}"}) == 403
    assert status(served.url, {"Host": f"localhost:{port}"}) == 200


async def test_websocket_needs_the_token_and_the_origin(serve: Serve) -> None:
    served = serve()
    ws_url = "ws" + served.url.removeprefix("http") + "ws"
    async with aiohttp.ClientSession() as client:
        for url, origin in [
            (ws_url, "http://evil.example"),
            (without_token(served.url).replace("http", "ws", 1) + "ws", served.origin),
            (with_wrong_token(served.url).replace("http", "ws", 1) + "ws", served.origin),
        ]:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(url, headers={"Origin": origin})
            assert refused.value.status == 403
        async with client.ws_connect(ws_url, headers={"Origin": served.origin}) as socket:
            assert not socket.closed
    served.tree()  # the app the accepted socket started is checked for leftovers too


def run_serve(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(DSH_TUI), "serve", *args],
        env=app_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_another_address_needs_public(home: Path) -> None:
    done = run_serve(home, "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2
    assert "--host 0.0.0.0 can be reached from other machines; add --public" in done.stderr


def test_public_warns_what_it_exposes(serve: Serve) -> None:
    served = serve(serve_args=["--host", "0.0.0.0", "--public"])
    warning = next(line for line in served.lines if "WARNING" in line)
    assert "Whoever has the URL below gets an agent session" in warning
    assert served.url.startswith(f"http://{socket.gethostname()}:")  # a name others can use


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "--port 70000: not a port number"),
        (["--max-sessions", "0"], "--max-sessions 0: must be at least 1"),
        (["--", "serve"], "`serve` cannot serve itself"),
    ],
)
def test_bad_arguments_get_a_clear_error(home: Path, args: list[str], message: str) -> None:
    done = run_serve(home, *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_port_in_use_is_said_so(home: Path, serve: Serve) -> None:
    served = serve()
    port = served.origin.rsplit(":", 1)[1]
    done = run_serve(home, "--port", port)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
