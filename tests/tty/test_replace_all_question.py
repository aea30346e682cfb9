"""Item 5 of issue 24: the permission question about a `replace_all` edit shows every place it
will change (`+2 −2`, lines 1 and 17), not one snippet with `line numbers unknown`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready

Start = Callable[..., TtyApp]

BODY = "".join(
    [
        '"""greeter, version 1."""\n',
        *[f"line_{n} = {n}\n" for n in range(2, 17)],
        "V = 'version 1'\n",
    ]
)


def test_the_question_counts_every_site_of_a_replace_all(tty: Start, home: Path) -> None:
    workspace = home / "work"
    workspace.mkdir(parents=True)
    (workspace / "hello.py").write_text(BODY)
    app = tty([], size=(100, 40))
    app.wait_for(header_ready)
    app.type("edit --all hello.py: version 1 => version 2")
    app.key("enter")
    app.wait_for("Permission · ✎ Edit hello.py", timeout=30)
    app.wait_for("+2 −2", timeout=15)
    text = app.text()
    assert "line numbers unknown" not in text and "+1 −1" not in text, app.dump()
    assert '1 + """greeter, version 2."""' in text, app.dump()  # numbered from the file
    app.key("escape")
    app.wait_gone("Permission ·", timeout=15)
    assert (workspace / "hello.py").read_text() == BODY  # nothing changed unanswered
