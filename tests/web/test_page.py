"""dsh-tui in a real headless Chromium (the system's, driven by Playwright): the page with the
token shows the welcome, the demo runs through its permission questions to a diff panel and
terminal panes, a page without the token or with a wrong one gets 403, and a closed page ends
its app and agent. The text is read from the bytes the page's terminal drew (served.py)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from served import PageScreen, Served, wait_until
from test_guard import with_wrong_token, without_token

from support import holding

pytestmark = pytest.mark.xdist_group("chromium")  # one browser at a time on the machine

Serve = Callable[..., Served]
NewPage = Callable[..., Any]

# Set to a path to keep the gallery picture there, e.g. screenshots/browser--demo-edit.png.
SCREENSHOT_ENV = "DSH_WEB_SCREENSHOT"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EDIT_QUESTION = "Permission · ✎ Edit dsh-demo/hello.py"
DEMO_WORKSPACE = Path("/tmp/dsh-web-demo")


def open_page(new_page: NewPage, served: Served) -> tuple[Any, PageScreen]:
    page = new_page()
    response = page.goto(served.url)
    assert response is not None and response.status == 200
    screen = PageScreen(page)
    screen.wait_for("Talking to dsh-agent", timeout=60)
    # xterm's input, as when a person clicks into the page (a click would also reach the app).
    page.focus(".xterm-helper-textarea")
    return page, screen


def test_the_page_with_the_token_shows_the_welcome(serve: Serve, new_page: NewPage) -> None:
    served = serve()
    page = new_page()
    elsewhere: list[str] = []
    page.on(
        "request",
        lambda request: (
            None if request.url.startswith(served.origin) else elsewhere.append(request.url)
        ),
    )
    page.goto("about:blank")
    page, screen = open_page(lambda: page, served)
    assert not elsewhere, f"the page asked other servers: {elsewhere}"  # no Google Fonts
    text = screen.text()
    assert "dsh-tui · dsh-agent 0.1.0 · mode: Ask" in text
    assert "Message the agent" in text
    assert "first-byte" in page.evaluate("document.body.className")  # the intro is gone


def test_f1_in_the_page_says_which_keys_the_browser_keeps(serve: Serve, new_page: NewPage) -> None:
    served = serve()
    page, screen = open_page(new_page, served)
    page.keyboard.press("F1")
    text = screen.wait_for("In a browser", timeout=30)
    assert "ctrl+t, ctrl+w, ctrl+n, ctrl+tab" in text
    page.keyboard.press("Escape")
    screen.wait_for(lambda shown: "In a browser" not in shown, timeout=30)


def test_a_page_without_the_token_or_with_a_wrong_one_is_forbidden(
    serve: Serve, new_page: NewPage
) -> None:
    served = serve()
    page = new_page()
    for url in (without_token(served.url), with_wrong_token(served.url)):
        response = page.goto(url)
        assert response is not None and response.status == 403
        assert "403 Forbidden" in page.inner_text("body")
    assert not served.tree()  # no app was started for them


def test_the_demo_asks_shows_a_diff_and_terminal_panes(
    serve: Serve, new_page: NewPage, tmp_path: Path
) -> None:
    with holding(DEMO_WORKSPACE) as workspace:  # on screen, in the gallery picture
        shutil.rmtree(workspace, ignore_errors=True)
        workspace.mkdir()
        play_the_demo(serve(["--cwd", str(workspace)]), new_page, tmp_path)


def play_the_demo(served: Served, new_page: NewPage, tmp_path: Path) -> None:
    page, screen = open_page(new_page, served)
    page.keyboard.type("demo")
    page.keyboard.press("Enter")
    answered: list[str] = []
    diff_seen = ""
    while True:
        text = screen.wait_for(
            lambda shown: "tab ▸ [a] Allow once" in shown or "a real model." in shown, 90
        )
        if "tab ▸ [a] Allow once" not in text:
            break
        question = next(line for line in text.splitlines() if "Permission ·" in line)
        if EDIT_QUESTION in question and not diff_seen:
            # The diff panel draws a placeholder row until its thread-built rows arrive.
            diff_seen = screen.wait_for(
                lambda shown: re.search(r"\d+ +- .*version 1", shown) is not None, 30
            )
            shot = page.screenshot()
            assert shot.startswith(PNG_MAGIC)
            (tmp_path / "demo-edit.png").write_bytes(shot)
            if os.environ.get(SCREENSHOT_ENV):
                shutil.copy(tmp_path / "demo-edit.png", os.environ[SCREENSHOT_ENV])
        page.keyboard.press("Tab")  # the question takes the keys
        screen.wait_for("keys answer", timeout=30)
        page.keyboard.press("a")  # allow once
        # Until this question is gone: a frame drawn between the answer and the panel's
        # removal still shows it, keys back at the prompt (each of the demo's questions differs).
        screen.wait_for(
            lambda shown, asked=question: "keys answer" not in shown and asked not in shown, 30
        )
        assert question not in answered, answered
        answered.append(question)
    assert len(answered) >= 4, answered  # the new file, the edit and the commands
    # The edit's diff panel: version 1 out, version 2 in, with line numbers.
    assert re.search(r"\d+ +- .*version 1", diff_seen), diff_seen
    assert re.search(r"\d+ \+ .*version 2", diff_seen), diff_seen
    # Terminal panes: the last one's output, then, a page up, one with its header (the
    # directory and the exit) above the command's output.
    assert "▮ 400 lines" in text
    page.keyboard.press("PageUp")
    earlier = screen.wait_for("dsh-demo · ✕ exit 3", timeout=30)
    assert re.search(r"version 3 not found", earlier), earlier


def test_closing_the_page_ends_its_app_and_agent(serve: Serve, new_page: NewPage) -> None:
    served = serve()
    page, _screen = open_page(new_page, served)
    running = served.tree()
    assert len(running) >= 2  # the app and its agent
    page.close()
    wait_until(lambda: not served.tree(), 30, "the page's app and agent to end")
    assert served.process.poll() is None


def test_a_page_beyond_max_sessions_says_the_server_is_full(
    serve: Serve, new_page: NewPage
) -> None:
    served = serve(serve_args=["--max-sessions", "1"])
    first, _screen = open_page(new_page, served)
    second = new_page()
    response = second.goto(served.url)
    assert response is not None and response.status == 503
    assert "All 1 sessions are in use" in second.inner_text("#full")
    first.close()
    wait_until(lambda: not served.tree(), 30, "the first page's app to end")
    # Serve's event loop hears of the exit a moment after the process table shows it.
    wait_until(lambda: second.reload().status == 200, 30, "the page to get in after a reload")
    PageScreen(second).wait_for("Talking to dsh-agent", timeout=60)
