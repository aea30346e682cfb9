"""At 80 columns the footer hides its least needed keys rather than cut one mid-word, also
while a permission question adds `tab Answer`."""

from __future__ import annotations

from collections.abc import Callable

from harness import TtyApp, header_ready

Start = Callable[..., TtyApp]
LABELS = {
    "esc": "Cancel turn",
    "tab": ("Answer", "Prompt"),
    "shift+tab": "Mode",
    "^l": "Model",
    "^r": "Resume",
    "^q": "Quit",
    "^k": "Capabilities",
}


def assert_whole(footer: str, dump: str) -> None:
    assert footer.rstrip().endswith("▏^p palette"), dump
    for key, labels in LABELS.items():
        if f" {key} " in footer:
            words = labels if isinstance(labels, tuple) else (labels,)
            assert any(f" {key} {word} " in footer + " " for word in words), dump
    assert "^q Quit" in footer, dump


def test_the_footer_fits_80_columns_with_whole_words(tty: Start) -> None:
    app = tty(size=(80, 24))
    lines = app.wait_for(header_ready)
    lines = app.wait_for(lambda lines: "Mode" in lines[-1], 15, "the session's keys")
    assert_whole(lines[-1], app.dump())
    assert "^k Capabilities" in lines[-1], app.dump()  # room for every key when idle
    app.type("$ echo hello")
    app.key("enter")
    lines = app.wait_for(lambda lines: "tab Answer" in lines[-1], 20, "the question's keys")
    assert "esc Cancel turn" in lines[-1], app.dump()
    assert_whole(lines[-1], app.dump())
    app.key("tab")
    lines = app.wait_for(lambda lines: "tab Prompt" in lines[-1], 15, "tab back")
    assert_whole(lines[-1], app.dump())
    app.type("r")
    app.wait_for(lambda lines: "Cancel turn" not in lines[-1], 20, "the turn to end")
