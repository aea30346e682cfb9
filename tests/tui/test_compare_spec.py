"""`dsh-tui compare`: what a `--side` spec means, and which agent each side runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.compare.capability_set import WORDS, SpecError, parse_side, plan_sides
from tui.compare.workspaces import SideWorkspaces, recording_paths


def test_words_and_presets() -> None:
    assert parse_side("all").words == set(WORDS)
    assert parse_side("none").words == set()
    assert parse_side("no-terminal").words == {"fs.read", "fs.write", "auth.terminal"}
    assert parse_side("read-only-fs").words == set(WORDS) - {"fs.write"}
    assert parse_side(" terminal , fs.read ").words == {"terminal", "fs.read"}
    assert parse_side("no-terminal,terminal_output").words == set(WORDS) - {"terminal"}


def test_the_wire_capabilities_follow_the_words() -> None:
    caps = parse_side("terminal,fs.read").client_capabilities()
    assert caps.terminal is True
    assert caps.fs is not None and caps.fs.read_text_file and not caps.fs.write_text_file
    assert caps.auth is not None and caps.auth.terminal is False
    assert caps.field_meta == {"terminal_output": False}
    none = parse_side("none").client_capabilities()
    assert none.terminal is False and none.field_meta == {"terminal_output": False}


@pytest.mark.parametrize("spec", ["", " , ", "termnal", "all,fs.exec", "no_terminal"])
def test_a_bad_side_names_the_valid_words(spec: str) -> None:
    with pytest.raises(SpecError) as raised:
        parse_side(spec)
    message = str(raised.value)
    for word in (*WORDS, "all", "none", "no-terminal", "read-only-fs"):
        assert word in message


def test_one_agent_for_all_sides_or_one_per_side() -> None:
    plans = plan_sides(["dsh-agent"], ["all", "none", "terminal"])
    assert [plan.agent for plan in plans] == ["dsh-agent"] * 3
    assert [plan.capabilities.label for plan in plans] == ["all", "none", "terminal"]
    plans = plan_sides(["a", "b"], ["all", "all"])
    assert [plan.agent for plan in plans] == ["a", "b"]


@pytest.mark.parametrize(
    ("agents", "sides", "says"),
    [
        (["a"], ["all"], "2 to 4 sides; got 1"),
        (["a"], ["all"] * 5, "2 to 4 sides; got 5"),
        ([], ["all", "none"], "--agent is required"),
        (["a", "b", "c"], ["all", "none"], "--agent given 3 times for 2 sides"),
    ],
)
def test_bad_side_counts(agents: list[str], sides: list[str], says: str) -> None:
    with pytest.raises(SpecError, match=says):
        plan_sides(agents, sides)


def test_each_side_gets_its_own_copy(tmp_path: Path) -> None:
    source = tmp_path / "project"
    (source / "src").mkdir(parents=True)
    (source / "src" / "main.py").write_text("print(1)\n")
    (source / "link").symlink_to("src/main.py")
    workspaces = SideWorkspaces.copy(source, ["all", "no-terminal"])
    try:
        first, second = workspaces.copies
        assert (first.name, second.name) == ("side-1-all", "side-2-no-terminal")
        for copy in workspaces.copies:
            assert (copy / "src" / "main.py").read_text() == "print(1)\n"
            assert (copy / "link").is_symlink()
        (first / "src" / "main.py").write_text("changed\n")
        assert (second / "src" / "main.py").read_text() == "print(1)\n"
        assert (source / "src" / "main.py").read_text() == "print(1)\n"
    finally:
        workspaces.remove()
    assert not workspaces.root.exists()


def test_no_source_gives_empty_workspaces() -> None:
    workspaces = SideWorkspaces.copy(None, ["a", "b"])
    try:
        assert all(copy.is_dir() and not any(copy.iterdir()) for copy in workspaces.copies)
    finally:
        workspaces.remove()


def test_a_missing_or_huge_workspace_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SpecError, match="is not a directory"):
        SideWorkspaces.copy(tmp_path / "missing", ["a", "b"])
    (tmp_path / "one").write_text("x")
    (tmp_path / "two").write_text("y")
    monkeypatch.setattr("tui.compare.workspaces.MAX_FILES", 1)
    with pytest.raises(SpecError, match="holds 2 files"):
        SideWorkspaces.copy(tmp_path, ["a", "b"])


def test_recordings_are_named_per_side(tmp_path: Path) -> None:
    paths = recording_paths(tmp_path, ["terminal,fs.read", "none"])
    assert [path.name for path in paths] == ["side-1-terminal-fs.read.jsonl", "side-2-none.jsonl"]


def test_a_source_that_holds_the_copies_is_not_copied_into_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from /tmp, the copies' root is inside the source: each copy leaves it out, and
    leaves out what is not a file, a directory or a symlink (a socket here)."""
    import socket

    (tmp_path / "keep.txt").write_text("kept\n")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "agent.sock"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    try:
        workspaces = SideWorkspaces.copy(tmp_path, ["a", "b"])
    finally:
        server.close()
    try:
        assert workspaces.root.parent == tmp_path
        for copy in workspaces.copies:
            assert sorted(path.name for path in copy.iterdir()) == ["keep.txt"]
        workspaces.refresh(0)
        assert sorted(path.name for path in workspaces.copies[0].iterdir()) == ["keep.txt"]
    finally:
        workspaces.remove()
