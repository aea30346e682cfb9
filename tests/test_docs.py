"""The documentation agrees with the code: links and anchors resolve, every dotted name and
path that docs/architecture.md names exists, the README's commands are the ones `dev` runs and
CI runs, every dsh-tui option is in the user manual, and its settings file example parses
without a problem.

File reading and imports only: no app runs.
"""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from tui.check.cli import build_parser as build_check_parser
from tui.cli import build_parser
from tui.compare.cli import compare_parser
from tui.replay.cli import build_parser as build_replay_parser
from tui.serve.cli import build_parser as build_serve_parser
from tui.user_config import parse

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
ARCHITECTURE = DOCS / "architecture.md"
PAGES = [
    README,
    *sorted(DOCS.glob("*.md")),
    ROOT / "tests" / "README.md",
    ROOT / "bench" / "README.md",
]

LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"^(?:tui|agent|dsh_common|acp)(?:\.\w+)+$")
PATH_ROOTS = ("tui/", "agent/", "dsh_common/", "tests/", "bench/", "docs/", "screenshots/")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to '-'."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def links(page: Path) -> list[str]:
    text = CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    return [m["target"] for m in LINK.finditer(text) if "://" not in m["target"]]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (file.suffix == ".md" and anchor and anchor not in anchors(file)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: broken links {broken}"


def resolves(dotted: str) -> bool:
    """A module, or a name reached by attributes from the longest importable module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def architecture_names() -> list[str]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return sorted({token for token in CODE.findall(FENCE.sub("", text)) if DOTTED.match(token)})


PATH = re.compile(r"\b(?:tui|agent|dsh_common|tests|bench)/[\w/.-]*\w/?")


def architecture_paths() -> list[str]:
    """Paths in inline code, and every path in the fenced blocks (the map and the layout)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    inline = [token for token in CODE.findall(FENCE.sub("", text)) if token.startswith(PATH_ROOTS)]
    fenced = [path for block in FENCE.findall(text) for path in PATH.findall(block)]
    return sorted(set(inline + fenced))


def test_the_architecture_page_names_things() -> None:
    """Guards the two checks below against a page their patterns no longer read."""
    assert len(architecture_names()) > 20
    assert len(architecture_paths()) > 15


@pytest.mark.parametrize("dotted", architecture_names())
def test_every_dotted_name_in_the_architecture_exists(dotted: str) -> None:
    assert resolves(dotted), f"docs/architecture.md names {dotted}, which does not exist"


@pytest.mark.parametrize("path", architecture_paths())
def test_every_path_in_the_architecture_exists(path: str) -> None:
    assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


def test_the_layout_names_every_module() -> None:
    """A module is named by its path, or by a package folder the layout names whole."""
    named = set(architecture_paths())
    # A sub-package's folder (tui/connection/) covers its modules; a root (tui/) does not.
    folders = tuple(path for path in named if path.endswith("/") and path.count("/") > 1)
    modules = [
        str(path.relative_to(ROOT))
        for package in ("tui", "agent", "dsh_common")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "__init__.py"
    ]
    missing = [m for m in modules if m not in named and not m.startswith(folders)]
    assert not missing, f"docs/architecture.md's layout leaves out {missing}"


def test_the_readme_is_a_short_page() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) < 250


def test_the_readme_commands_are_the_ones_dev_and_ci_run() -> None:
    """The quick start's commands are `dev` cases, and CI runs the README's test command."""
    readme = README.read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^(\./dev \w+)", quick_start, re.MULTILINE)
    assert commands == ["./dev tui", "./dev test"]
    cases = set(
        re.findall(r"^\s+(\w+)\)", (ROOT / "dev").read_text(encoding="utf-8"), re.MULTILINE)
    )
    assert {command.split()[1] for command in commands} <= cases
    assert re.search(
        r"^\s*DSH_PYTHON=\"\$1\" \./dev test$", (ROOT / ".ci" / "run").read_text(), re.MULTILINE
    )


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def test_the_user_manual_documents_every_option() -> None:
    manual = (DOCS / "client.md").read_text(encoding="utf-8")
    section = manual.split("## Using dsh-tui", 1)[1].split("\n## ", 1)[0]
    options = long_options(build_parser()) | long_options(build_replay_parser())
    options |= long_options(compare_parser())
    missing = sorted(option for option in options if option not in section)
    assert not missing, f"docs/client.md's 'Using dsh-tui' does not name {missing}"


def test_the_conformance_check_documents_every_option() -> None:
    testing = (DOCS / "testing.md").read_text(encoding="utf-8")
    section = testing.split("### Conformance check", 1)[1].split("\n### ", 1)[0]
    missing = sorted(
        option for option in long_options(build_check_parser()) if option not in section
    )
    assert not missing, f"docs/testing.md's 'Conformance check' does not name {missing}"


def test_the_browser_section_documents_every_serve_option() -> None:
    manual = (DOCS / "client.md").read_text(encoding="utf-8")
    section = manual.split("## In a browser", 1)[1].split("\n## ", 1)[0]
    missing = sorted(o for o in long_options(build_serve_parser()) if o not in section)
    assert not missing, f"docs/client.md's 'In a browser' does not name {missing}"


def toml_blocks(page: Path) -> list[str]:
    return re.findall(r"^```toml\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)


def test_the_manuals_settings_file_is_one_dsh_tui_reads_without_a_problem() -> None:
    [example] = toml_blocks(DOCS / "client.md")
    config = parse(example, Path("config.toml"))
    assert config.problems == ()
    assert config.agent == "claude" and set(config.agents) == {"claude"}
    assert set(config.mcp_servers) == {"files", "issues"}
    assert config.mcp_servers["issues"].transport == "http"
