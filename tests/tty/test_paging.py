"""PageUp and PageDown that arrive together (a held key, a terminal that sends several at
once) each move the transcript a page: the keys of one read are not all paged from the same
place."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, script_agent_command
from loads import nonce, tall_reply

Start = Callable[..., TtyApp]
PARAGRAPH = re.compile(r"paragraph (\d{3}) of a reply")
PAGE_UP, PAGE_DOWN = b"\x1b[5~", b"\x1b[6~"


def paragraphs(lines: list[str]) -> list[int]:
    return [int(match) for line in lines for match in PARAGRAPH.findall(line)]


def still(app: TtyApp) -> list[int]:
    """The paragraphs on screen once the screen stopped changing (a scroll has landed)."""
    return paragraphs(app.wait_stable(0.5, timeout=20))


def test_ten_page_ups_in_one_read_move_ten_pages(tty: Start, home: Path) -> None:
    marker = f"END-{nonce()}"
    script = {"agent_name": "script-agent", "prompts": [tall_reply(400, marker)]}
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    app.wait_for(header_ready)
    app.type("go")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(marker, timeout=30)
    at_end = still(app)
    assert at_end and max(at_end) == 399, app.dump()
    page = len(at_end)  # a page of the transcript: about as many paragraphs as it shows

    app.send(PAGE_UP * 10)
    app.wait_for(lambda lines: max(paragraphs(lines), default=999) < 399, 20, "PageUp")
    shown = still(app)
    assert shown, app.dump()
    moved = 399 - max(shown)
    # Ten pages, give or take the rows a page leaves in view; one page was the bug.
    assert moved >= 8 * page, f"ten PageUps moved {moved} paragraphs\n{app.dump()}"

    app.send(PAGE_DOWN * 12)
    app.wait_for(marker, timeout=20)
