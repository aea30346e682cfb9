"""dsh-agent's command line: every option documented, bad settings refused on stderr."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.cli import build_parser, main

MANUAL = Path(__file__).resolve().parents[3] / "docs" / "agent.md"


@pytest.fixture(autouse=True)
def keep_logging() -> Iterator[None]:
    """`main` configures the root logger; give the other tests theirs back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def long_options() -> list[str]:
    return [
        option
        for action in build_parser()._actions
        for option in action.option_strings
        if option.startswith("--")
    ]


def test_help_documents_every_option_and_mode() -> None:
    text = build_parser().format_help()
    for option in long_options():
        assert option in text
    for mode in ("ask", "accept-edits", "full-access", "read-only"):
        assert f"  {mode} " in text
    assert "DSH_SESSION_DIR" in text and "DEEPSEEK_API_KEY" in text


def test_the_manual_documents_every_option() -> None:
    section = MANUAL.read_text().split("## Options", 1)[1].split("\n## ", 1)[0]
    for option in long_options():
        assert option == "--help" or option in section, option


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenario", "no-such-scenario"], "no such bundled scenario"),
        (["--provider", "openai"], "needs a base URL"),
        (["--config", "/nonexistent/dir"], None),
    ],
)
def test_bad_model_settings_exit_with_a_message(
    argv: list[str], message: str | None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    if message is None:  # a directory is not a readable config file
        argv = ["--config", str(tmp_path)]
        message = "cannot read"
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_mode_and_step_limit_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--mode", "yolo"], ["--max-steps", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
    assert "--max-steps must be at least 1" in capsys.readouterr().err
