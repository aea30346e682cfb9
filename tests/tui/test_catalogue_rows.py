"""The agent catalogue's rows: named agents first, then the registry's, each saying whether it
can run here, and why not."""

from __future__ import annotations

from pathlib import Path

from tests.tui.test_catalogue import REGISTRY
from tui.catalogue.registry import parse_registry
from tui.catalogue.rows import agent_rows
from tui.user_config import parse


def only_npx(name: str) -> str | None:
    return f"/usr/bin/{name}" if name == "npx" else None


def test_rows_name_each_agent_its_version_and_whether_it_runs_here(tmp_path: Path) -> None:
    registry = parse_registry(REGISTRY)
    config = parse(
        '[agents.mine]\ncommand = "/opt/mine"\nenv = {K = "v"}\n'
        '[agents.gone]\ncommand = "nowhere-\\u001b[31m"\n',
        Path("c"),
    )
    rows = agent_rows(config, registry, tmp_path, only_npx)
    titles = [row.title for row in rows]
    assert titles == [
        "mine (settings file)",
        "gone (settings file)",
        "Bin Agent 2.0.0",
        "Npm Agent 1.2.3",
        "Py Agent 0.4.0",
    ]
    mine, gone, binary, npm, py = rows
    assert mine.choice is not None and mine.choice.env == (("K", "v"),)
    assert mine.note.startswith("runs here")
    assert gone.choice is None and "\x1b" not in gone.note and "\x1b" not in gone.why
    assert gone.note.startswith("cannot run here: nowhere-")
    assert binary.choice is None and binary.why  # not installed, or not for this platform
    assert npm.choice is not None and npm.choice.command_line.startswith("npx --yes @acme/agent@")
    assert npm.note == "runs here · registry: npm-agent"
    assert py.choice is None and py.why == "uvx is not installed"
