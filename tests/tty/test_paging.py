"""PageUp and PageDown that arrive together (a held key, a terminal that sends several at
once) each move the transcript a page: the keys of one read are not all paged from the same
place. And PageUp through a long transcript, whose window of widgets moves up under the view,
shows every card on the way."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, script_agent_command
from loads import nonce, tall_reply, tool_calls

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


CARD = re.compile(r"Read file(\d+)\.py")


def cards(lines: list[str]) -> list[int]:
    return [int(match) for line in lines for match in CARD.findall(line)]


def test_page_up_through_300_cards_skips_none(tty: Start, home: Path) -> None:
    """Each PageUp shows the cards just above the page before it, all the way to the top,
    while the window of mounted cards moves up under the view. The view used to be held by
    a row read after a mount, and PageUp then jumped a few cards at once."""
    marker = f"last card {nonce()}"
    script = {"agent_name": "script-agent", "prompts": [tool_calls(300, 1, marker)]}
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(140, 45))
    app.wait_for(header_ready)
    app.type("go")
    time.sleep(0.1)
    app.key("enter")
    app.wait_for(marker, timeout=60)
    page = cards(app.wait_stable(0.5, timeout=20))
    assert page and max(page) == 299, app.dump()
    pages = [page]
    while min(page) > 0:
        top = min(page)
        app.key("pageup")
        app.wait_for(lambda lines, top=top: min(cards(lines), default=top) < top, 20, "PageUp")
        page = cards(app.wait_stable(0.2, timeout=20))
        assert page, app.dump()
        # A card may be cut off at either edge, so the pages may share one, or touch.
        assert max(page) >= top - 1, f"PageUp from card {top} showed {page}\n{app.dump()}"
        pages.append(page)
    assert len(pages) > 20  # the whole transcript, a page at a time
