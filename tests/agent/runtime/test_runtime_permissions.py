"""The permission policy as a table, plus the fail-closed reading of answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from agent.permissions import (
    Grants,
    Mode,
    PathArgError,
    decide,
    is_inside,
    parse_mode,
    permission_options,
    read_answer,
    resolve_path,
)
from agent.tools import ALL_TOOLS

CWD = "/work/space"
INSIDE = {"file_path": f"{CWD}/a.py", "content": "x", "old_string": "a", "new_string": "b"}
OUTSIDE = {"file_path": "/etc/hosts", "content": "x", "old_string": "a", "new_string": "b"}
BASH = {"command": "ls", "description": "List"}

# (mode, tool, args) -> verdict
TABLE = [
    ("ask", "read", INSIDE, "allow"),
    ("ask", "todo_write", {"todos": []}, "allow"),
    ("ask", "write", INSIDE, "ask"),
    ("ask", "edit", INSIDE, "ask"),
    ("ask", "bash", BASH, "ask"),
    ("ask", "read", OUTSIDE, "ask"),
    ("accept-edits", "write", INSIDE, "allow"),
    ("accept-edits", "edit", INSIDE, "allow"),
    ("accept-edits", "edit", OUTSIDE, "ask"),
    ("accept-edits", "bash", BASH, "ask"),
    ("full-access", "write", INSIDE, "allow"),
    ("full-access", "bash", BASH, "allow"),
    ("full-access", "bash", {**BASH, "workdir": "sub"}, "allow"),
    ("full-access", "bash", {**BASH, "workdir": "/tmp"}, "ask"),
    ("full-access", "write", OUTSIDE, "ask"),
    ("full-access", "read", OUTSIDE, "ask"),
    ("read-only", "read", INSIDE, "allow"),
    ("read-only", "todo_write", {"todos": []}, "allow"),
    ("read-only", "read", OUTSIDE, "refuse"),
    ("read-only", "write", INSIDE, "refuse"),
    ("read-only", "edit", INSIDE, "refuse"),
    ("read-only", "bash", BASH, "refuse"),
]


@pytest.mark.parametrize(("mode", "tool", "args", "verdict"), TABLE)
def test_policy_table(mode: Mode, tool: str, args: dict[str, object], verdict: str) -> None:
    decision = decide(mode, tool, ALL_TOOLS[tool], args, CWD, Grants())
    assert decision.verdict == verdict
    if verdict != "allow":
        assert decision.reason


def test_refusals_say_why() -> None:
    decision = decide("read-only", "bash", ALL_TOOLS["bash"], BASH, CWD, Grants())
    assert "read-only mode" in decision.reason and "/mode" in decision.reason
    outside = decide("ask", "read", ALL_TOOLS["read"], OUTSIDE, CWD, Grants())
    assert "outside the workspace" in outside.reason and outside.outside


def test_relative_paths_are_inside_unless_they_climb_out() -> None:
    assert is_inside("a/b.py", CWD)
    assert is_inside(".", CWD)
    assert is_inside("..cache/x", CWD)
    assert not is_inside("../other/x", CWD)
    assert not is_inside("/work/spaceship/x", CWD)


def test_a_symlink_out_of_the_workspace_is_outside(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.symlink(tmp_path, workspace / "escape")
    assert not is_inside("escape/secret", str(workspace))


def test_allow_always_covers_the_tool_in_the_workspace_only() -> None:
    grants = Grants()
    grants.grant("bash", None)
    assert decide("ask", "bash", ALL_TOOLS["bash"], BASH, CWD, grants).verdict == "allow"
    assert decide("ask", "write", ALL_TOOLS["write"], INSIDE, CWD, grants).verdict == "ask"
    away = {**BASH, "workdir": "/tmp"}
    assert decide("ask", "bash", ALL_TOOLS["bash"], away, CWD, grants).verdict == "ask"
    # Grants never beat read-only.
    assert decide("read-only", "bash", ALL_TOOLS["bash"], BASH, CWD, grants).verdict == "refuse"


def test_allow_always_on_an_outside_path_covers_that_path_only(tmp_path: Path) -> None:
    cwd = tmp_path / "ws"
    cwd.mkdir()
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = {**BASH, "workdir": str(tmp_path / "one")}
    two = {**BASH, "workdir": str(tmp_path / "two")}
    first = decide("ask", "bash", ALL_TOOLS["bash"], one, str(cwd), Grants())
    assert first.verdict == "ask" and first.path == os.path.realpath(tmp_path / "one")
    grants = Grants()
    grants.grant("bash", first.path)
    assert decide("ask", "bash", ALL_TOOLS["bash"], one, str(cwd), grants).verdict == "allow"
    assert decide("ask", "bash", ALL_TOOLS["bash"], two, str(cwd), grants).verdict == "ask"
    hosts = decide("ask", "read", ALL_TOOLS["read"], OUTSIDE, str(cwd), grants)
    assert hosts.verdict == "ask"
    # The workspace is not granted by an outside grant either.
    inside = decide("ask", "bash", ALL_TOOLS["bash"], BASH, str(cwd), grants)
    assert inside.verdict == "ask"
    option = permission_options("bash", first.path)[1]
    assert option.option_id == "allow-always" and str(first.path) in option.name


def test_a_link_then_dotdot_is_judged_where_the_link_leads(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "d1" / "d2" / "d3").mkdir(parents=True)
    os.symlink("d1/d2/d3", workspace / "a")
    # The kernel follows `a` first: a/../../x is ws/d1/x, inside, not tmp_path/x.
    assert resolve_path(str(workspace), "a/../../x") == str(workspace / "d1" / "x")
    assert is_inside("a/../../x", str(workspace))
    # And climbing further from where the link leads is outside.
    assert not is_inside("a/../../../../x", str(workspace))


def test_a_nul_byte_in_a_path_is_a_clear_error() -> None:
    with pytest.raises(PathArgError, match="NUL byte"):
        decide("ask", "read", ALL_TOOLS["read"], {"file_path": "a\0b"}, CWD, Grants())


def test_options_are_allow_once_allow_always_reject() -> None:
    options = permission_options("bash")
    assert [(o.option_id, o.kind) for o in options] == [
        ("allow-once", "allow_once"),
        ("allow-always", "allow_always"),
        ("reject-once", "reject_once"),
    ]
    assert "bash" in options[1].name


@pytest.mark.parametrize(
    ("outcome", "answer"),
    [
        (AllowedOutcome(outcome="selected", option_id="allow-once"), "allow-once"),
        (AllowedOutcome(outcome="selected", option_id="allow-always"), "allow-always"),
        (AllowedOutcome(outcome="selected", option_id="reject-once"), "reject"),
        (AllowedOutcome(outcome="selected", option_id="yes-please"), "reject"),
        (DeniedOutcome(outcome="cancelled"), "cancelled"),
    ],
)
def test_answers_fail_closed(outcome: object, answer: str) -> None:
    assert read_answer(RequestPermissionResponse(outcome=outcome)) == answer  # type: ignore[arg-type]


def test_parse_mode() -> None:
    assert parse_mode("accept-edits") == "accept-edits"
    with pytest.raises(ValueError, match="choose one of ask, accept-edits"):
        parse_mode("yolo")
