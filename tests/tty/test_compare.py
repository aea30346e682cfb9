"""`dsh-tui compare` and `dsh-tui demo` in a real pty: every side can be driven from the
keyboard, at 80×24 too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, agent_command

Start = Callable[..., TtyApp]
LAST_WORDS = "the prompt goes to a real model."  # the demo's closing line


def column(lines: list[str], side: int, width: int) -> list[str]:
    """One side's rows (of two side by side), between the legend and the footer."""
    half = width // 2
    return [line[side * half : (side + 1) * half] for line in lines[1:-1]]


def side_text(lines: list[str], side: int, width: int) -> str:
    """One side's words, its rows joined, borders and runs of spaces dropped (wrapping
    differs with the width)."""
    return " ".join(" ".join(row.strip(" │┃").split()) for row in column(lines, side, width))


def test_demo_at_80x24_moves_focus_and_scrolls_the_right_side(tty: Start) -> None:
    app = tty(["demo"], size=(80, 24))
    lines = app.wait_for("done", timeout=60)
    # The legend fits, and the footer names the keys (F1 lists the rest).
    assert "dsh-tui demo · done" in lines[0] and lines[0].rstrip().endswith("yourself")
    for key in ("tab Side", "PgUp/PgDn Scroll", "f1 Keys", "f5 Restart"):
        assert key in lines[-1]
    lines = app.wait_for(lambda ls: all(LAST_WORDS in "".join(column(ls, n, 80)) for n in (0, 1)))
    assert "▶ terminal on" in lines[1] and "▶ terminal off" not in lines[1]
    app.key("tab")
    lines = app.wait_for("▶ terminal off")
    assert "▶ terminal on" not in lines[1]
    left_before = column(app.wait_stable(0.5), 0, 80)
    app.key("pageup")
    # Wait for the key to move the view (on a loaded machine it can land after a quiet frame).
    lines = app.wait_for(lambda ls: LAST_WORDS not in side_text(ls, 1, 80))
    assert column(lines, 0, 80) == left_before  # only the focused side moved
    app.key("pagedown")
    lines = app.wait_for(lambda ls: LAST_WORDS in side_text(ls, 1, 80))
    assert column(lines, 0, 80) == left_before
    # F1 lists the keys; esc closes it.
    app.key("f1")
    app.wait_for("compare keys")
    app.key("escape")
    app.wait_gone("compare keys")
    assert app.quit() == 0


def test_compare_two_sides_at_140x45(tty: Start, home: Path) -> None:
    project = home / "project"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# project\n")
    args = [
        "compare",
        "--agent",
        agent_command("--mode", "full-access"),
        "--side",
        "all",
        "--side",
        "no-terminal",
        "--workspace",
        str(project),
    ]
    app = tty(args, size=(140, 45))
    app.wait_for("a prompt for every side", timeout=30)
    app.wait_for(lambda ls: sum(line.count("dsh-agent 0.1.0") for line in ls) == 2)
    app.type("demo")
    app.key("enter")
    lines = app.wait_for(
        lambda ls: all(LAST_WORDS in side_text(ls, n, 140) for n in (0, 1)), timeout=60
    )
    assert "copy of project/" in lines[0]
    assert "1 · all" in lines[1] and "2 · no-terminal" in lines[1]
    left, right = (side_text(lines, n, 140) for n in (0, 1))
    assert "terminal cards on" in left and "console text" in right
    # The project itself got nothing: each side wrote into its own copy.
    assert sorted(path.name for path in project.iterdir()) == ["README.md"]
    assert app.quit() == 0


def test_a_bad_side_is_refused_with_the_valid_words(tty: Start) -> None:
    app = tty(
        ["compare", "--agent", "dsh-agent", "--side", "all", "--side", "termnal"], size=(200, 10)
    )
    assert app.wait_exit(timeout=20) != 0
    text = app.text()
    assert "unknown 'termnal'" in text and "no-terminal" in text and "fs.write" in text


def test_an_agent_that_is_not_there_is_refused_up_front(tty: Start) -> None:
    app = tty(
        ["compare", "--agent", "no-such-agent-x", "--side", "all", "--side", "none"],
        size=(200, 10),
    )
    assert app.wait_exit(timeout=20) != 0
    assert "--agent no-such-agent-x: no-such-agent-x not found on PATH" in app.text()


def test_a_paced_demo_at_80x24_opens_with_its_whole_title(tty: Start) -> None:
    """Paced, the demo is still under way when the title can be read: one whole line."""
    from tui.demo import LEGEND

    app = tty(["demo", "--pace", "2"], size=(80, 24))
    lines = app.wait_for(lambda ls: "terminal on" in ls[1], timeout=30)
    assert lines[0].strip() == LEGEND
    # A key sent with the very first frame can be lost while the app still reads the
    # terminal's answers to its start-up queries: quit once the screen has settled.
    app.wait_stable(0.3)
    assert app.quit() == 0  # mid-turn: every agent reaped (the fixture checks)


def test_three_sides_at_80x24_say_the_screen_is_too_narrow_and_f2_stacks_them(
    tty: Start, home: Path
) -> None:
    project = home / "project"
    project.mkdir(parents=True)
    agent = agent_command("--mode", "full-access")
    sides = ["--side", "all", "--side", "no-terminal", "--side", "none"]
    app = tty(["compare", "--agent", agent, *sides, "--workspace", str(project)], size=(80, 24))
    lines = app.wait_for("F2 stacks them", timeout=30)
    assert "80 columns are too few for 3 sides" in "".join(lines), app.dump()

    # Side by side, the three strips share one row; stacked, each side has its own rows.
    def one_row(lines: list[str]) -> bool:
        return any("1 · all" in line and "3 · none" in line for line in lines)

    app.wait_for(one_row)
    app.key("f2")
    lines = app.wait_for(lambda ls: not one_row(ls) and any("1 · all" in line for line in ls))
    assert any("3 · none" in line for line in lines), app.dump()
    assert app.quit() == 0
