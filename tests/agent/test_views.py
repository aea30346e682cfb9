"""The render-intent union, the tool registry, and the import boundary of the agent core."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest

from agent.tools import ALL_TOOLS, openai_tool_specs
from agent.tools.base import ToolResult
from agent.views import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    fence_console,
)

VIEW_CLASSES: list[tuple[type[Any], str, dict[str, Any]]] = [
    (GenericCallView, "generic", {"title": "t"}),
    (TerminalCallView, "terminal", {"title": "ls"}),
    (DiffCallView, "diff", {"title": "t", "diffs": ()}),
    (GenericResultView, "generic", {}),
    (TerminalResultView, "terminal", {}),
    (DiffResultView, "diff", {}),
]


@pytest.mark.parametrize(("cls", "card", "fields"), VIEW_CLASSES)
def test_card_is_a_required_discriminant(cls: type[Any], card: str, fields: dict[str, Any]) -> None:
    assert cls(card=card, **fields).card == card
    with pytest.raises(TypeError):
        cls(**fields)  # no default: the tag is never implied
    with pytest.raises(ValueError, match="card must be"):
        cls(card="table", **fields)


@pytest.mark.parametrize(("cls", "card", "fields"), VIEW_CLASSES)
def test_views_are_frozen_and_slotted(cls: type[Any], card: str, fields: dict[str, Any]) -> None:
    view = cls(card=card, **fields)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.card = card
    assert not hasattr(view, "__dict__")


def test_file_shapes() -> None:
    assert FileLocation("a.py").line is None
    assert FileLocation("a.py", 3).line == 3
    assert FileDiff("a.py", None, "new").old_text is None


@pytest.mark.parametrize(
    ("output", "fenced"),
    [
        ("hi\n", "```console\nhi\n```"),
        ("", "```console\n\n```"),
        ("oops\n[exit code: 3]", "```console\noops\n[exit code: 3]\n```"),
        ("a\n\n\n", "```console\na\n```"),
        ("keep \r\n \n", "```console\nkeep \r\n \n```"),  # only trailing \n is stripped
    ],
)
def test_fence_console(output: str, fenced: str) -> None:
    assert fence_console(output) == fenced


def test_registry_has_the_five_tools() -> None:
    assert list(ALL_TOOLS) == ["read", "write", "edit", "bash", "todo_write"]
    assert {name for name, tool in ALL_TOOLS.items() if tool.read_only} == {"read", "todo_write"}
    for name, tool in ALL_TOOLS.items():
        assert tool.name == name


def test_openai_tool_specs() -> None:
    specs = openai_tool_specs()
    assert [spec["type"] for spec in specs] == ["function"] * 5
    by_name = {spec["function"]["name"]: spec["function"] for spec in specs}  # type: ignore[index]
    assert by_name["read"]["parameters"]["required"] == ["file_path"]
    assert by_name["bash"]["parameters"]["required"] == ["command", "description"]
    assert set(by_name["bash"]["parameters"]["properties"]) == {
        "command",
        "description",
        "timeoutMs",
        "workdir",
        "run_in_background",
    }
    assert by_name["edit"]["parameters"]["required"] == ["file_path", "old_string", "new_string"]
    assert by_name["todo_write"]["parameters"]["required"] == ["todos"]
    for spec in by_name.values():
        assert spec["description"]
        assert spec["parameters"]["type"] == "object"


MALFORMED: list[tuple[str, dict[str, object]]] = [
    ("read", {}),
    ("read", {"file_path": 3}),
    ("read", {"file_path": "a", "offset": "x"}),
    ("read", {"file_path": "a", "offset": 0}),
    ("write", {"file_path": "a"}),
    ("write", {"content": "x"}),
    ("edit", {"file_path": "a", "old_string": "x"}),
    ("edit", {"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"}),
    ("bash", {}),
    ("bash", {"command": "   "}),
    ("bash", {"command": "ls", "timeoutMs": "soon"}),
    ("todo_write", {"todos": "nope"}),
]


@pytest.mark.parametrize(("name", "args"), MALFORMED)
def test_presenters_answer_none_for_malformed_args(name: str, args: dict[str, object]) -> None:
    tool = ALL_TOOLS[name]
    assert tool.present_call(args) is None
    assert tool.present_result(args, ToolResult("x")) is None


def test_presenters_are_pure(tmp_path: Any) -> None:
    target = tmp_path / "new" / "file.txt"
    args: dict[str, object] = {"file_path": str(target), "content": "x\n"}
    first = ALL_TOOLS["write"].present_call(args)
    assert first == ALL_TOOLS["write"].present_call(args)  # same input, same view
    assert not target.parent.exists()  # and nothing touched on disk
    result = ToolResult("Created", meta={"diffs": []})
    assert ALL_TOOLS["write"].present_result(args, result) == ALL_TOOLS["write"].present_result(
        args, result
    )


def test_agent_core_imports_no_textual() -> None:
    code = (
        "import sys, agent.views, agent.tools, agent.bridge, agent.presenter\n"
        "assert 'textual' not in sys.modules, 'agent imported textual'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_views_and_tools_import_no_acp() -> None:
    code = (
        "import sys, agent.views, agent.tools\n"
        "assert not any(m == 'acp' or m.startswith('acp.') for m in sys.modules), 'acp leaked'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
