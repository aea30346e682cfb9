"""The resume picker's rows stay apart when titles are long and alike: each shows its time,
which a cut title would otherwise push out of the row."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, turns_ended, wait_until

Start = Callable[..., TtyApp]
PROMPT = "please explain in detail how the offline agent reads the commands it is given today"
WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  please explain")


def test_long_alike_titles_keep_their_times_in_the_picker(tty: Start, home: Path) -> None:
    for n in (1, 2):
        app = tty(size=(80, 24))
        app.wait_for(header_ready)
        app.type(PROMPT)
        app.key("enter")
        wait_until(lambda n=n: turns_ended(home) == n, what=f"session {n}'s turn", timeout=30)
        assert app.quit() == 0
    picker = tty(["--resume"], size=(80, 24))
    # Each row: the time and the title, then the first prompt on a line of its own.
    lines = picker.wait_for(lambda lines: sum("› please explain" in x for x in lines) == 2, 30)
    rows = [line for line in lines if "please explain" in line and "›" not in line]
    assert len(rows) == 2 and all(WHEN.search(row) for row in rows), picker.dump()
