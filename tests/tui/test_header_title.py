"""A long session title is cut to the room the header leaves; it never pushes out the
protocol, file-system and workspace fields, nor vanishes itself."""

from __future__ import annotations

from tui.widgets.header import HeaderInfo, fitted_header


def info(title: str | None) -> HeaderInfo:
    return HeaderInfo(
        agent_name="script-agent",
        agent_version="1",
        protocol_version=1,
        terminal=True,
        fs=True,
        workspace="~/project",
        title=title,
    )


def test_long_title_keeps_the_fields_and_is_cut_with_an_ellipsis() -> None:
    width = 100
    text = fitted_header(info("Refactor " * 40), width)
    shown = text.plain
    assert text.cell_len <= width
    assert "ACP v1" in shown and "fs ✓" in shown and "~/project" in shown
    assert "Refactor" in shown
    assert shown.endswith("…")


def test_short_title_shows_whole() -> None:
    shown = fitted_header(info("Fix the parser"), 120).plain
    assert shown.endswith(" · Fix the parser")
    assert "ACP v1" in shown


def test_no_room_for_the_title_keeps_the_agent() -> None:
    text = fitted_header(info("Refactor " * 40), 24)
    assert "script-agent" in text.plain
