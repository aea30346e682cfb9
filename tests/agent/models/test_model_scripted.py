"""The scenario format: loading, ${CWD}, step selection, streaming, errors, and the demo."""

from __future__ import annotations

import difflib
import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.models.base import (
    ChatMessage,
    Finish,
    ModelDelta,
    NoticeDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)
from agent.models.scripted import (
    ScenarioError,
    ScriptedModel,
    bundled_scenario,
    load_scenario,
    parse_scenario,
)

CWD = "/tmp/project"


async def collect(
    model: ScriptedModel, messages: Sequence[ChatMessage], cwd: str = CWD
) -> list[ModelDelta]:
    deltas = [delta async for delta in model.stream(messages, [], cwd=cwd)]
    assert sum(isinstance(delta, Finish) for delta in deltas) == 1
    assert isinstance(deltas[-1], Finish)
    return deltas


async def run_turn(
    model: ScriptedModel,
    prompt: str,
    history: list[ChatMessage] | None = None,
    result: Callable[[ToolCallDelta], str] = lambda call: "ok",
    cwd: str = CWD,
) -> list[list[ModelDelta]]:
    """Drive the model like the turn loop does; returns each step's deltas."""
    messages = history if history is not None else []
    messages.append({"role": "user", "content": prompt})
    steps: list[list[ModelDelta]] = []
    while True:
        deltas = await collect(model, messages, cwd)
        steps.append(deltas)
        tool_calls = [delta for delta in deltas if isinstance(delta, ToolCallDelta)]
        content = "".join(delta.text for delta in deltas if isinstance(delta, TextDelta))
        message: ChatMessage = {"role": "assistant", "content": content or None}
        if tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in tool_calls
            ]
        messages.append(message)
        for call in tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result(call)})
        finish = deltas[-1]
        assert isinstance(finish, Finish)
        if finish.reason != "tool_calls":
            return steps


def scenario(steps: list[Any], **extra: Any) -> ScriptedModel:
    return ScriptedModel(parse_scenario({"name": "t", "steps": steps, **extra}))


def tool_calls(steps: list[list[ModelDelta]]) -> list[ToolCallDelta]:
    return [delta for step in steps for delta in step if isinstance(delta, ToolCallDelta)]


async def test_steps_play_in_order_and_past_the_end_just_stops() -> None:
    model = scenario(
        [
            [{"text": "one"}, {"tool_call": {"name": "read", "arguments": {"file_path": "a"}}}],
            [{"text": "two"}],
        ]
    )
    steps = await run_turn(model, "go")
    assert [[type(delta).__name__ for delta in step] for step in steps] == [
        ["TextDelta", "ToolCallDelta", "Finish"],
        ["TextDelta", "Finish"],
    ]
    assert steps[0][-1] == Finish("tool_calls") and steps[1][-1] == Finish("stop")
    past_end = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "x"},
        {"role": "assistant", "content": "y"},
    ]
    assert await collect(model, past_end) == [Finish("stop")]


async def test_steps_restart_on_each_prompt_and_call_ids_keep_counting() -> None:
    model = scenario(
        [[{"tool_call": {"name": "bash", "arguments": {"command": "true"}}}], [{"text": "ok"}]]
    )
    history: list[ChatMessage] = []
    first = await run_turn(model, "one", history)
    second = await run_turn(model, "two", history)
    assert [call.id for call in tool_calls(first)] == ["call_1"]
    assert [call.id for call in tool_calls(second)] == ["call_2"]


async def test_turns_form_plays_one_step_list_per_prompt() -> None:
    model = ScriptedModel(
        parse_scenario({"turns": [[[{"text": "first"}]], [[{"text": "second"}]]]})
    )
    history: list[ChatMessage] = []
    assert (await run_turn(model, "a", history))[0][0] == TextDelta("first")
    assert (await run_turn(model, "b", history))[0][0] == TextDelta("second")
    assert (await run_turn(model, "c", history))[0] == [Finish("stop")]


async def test_cwd_is_substituted_everywhere() -> None:
    model = scenario(
        [
            [
                {"text": "In ${CWD} now"},
                {"reasoning": ["look at ${CWD}"]},
                {"notice": "cwd=${CWD}"},
                {
                    "tool_call": {
                        "name": "write",
                        "arguments": {
                            "file_path": "${CWD}/a.txt",
                            "content": "x",
                            "n": [1, "${CWD}"],
                        },
                    }
                },
                {"finish": "error", "message": "failed in ${CWD}"},
            ]
        ]
    )
    deltas = await collect(model, [{"role": "user", "content": "x"}], cwd="/home/me/proj")
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "In /home/me/proj now"
    assert ReasoningDelta("look at /home/me/proj") in deltas
    assert NoticeDelta("cwd=/home/me/proj") in deltas
    call = next(d for d in deltas if isinstance(d, ToolCallDelta))
    assert json.loads(call.arguments) == {
        "file_path": "/home/me/proj/a.txt",
        "content": "x",
        "n": [1, "/home/me/proj"],
    }
    assert deltas[-1] == Finish("error", "failed in /home/me/proj")


async def test_text_streams_in_word_chunks_and_lists_stream_exactly() -> None:
    model = scenario([[{"text": "The quick brown fox."}, {"text": ["ab", "c"]}]])
    deltas = await collect(model, [{"role": "user", "content": "x"}])
    texts = [d.text for d in deltas if isinstance(d, TextDelta)]
    assert texts == ["The ", "quick ", "brown ", "fox.", "ab", "c"]


async def test_usage_delay_ids_raw_arguments_and_finish_override() -> None:
    model = scenario(
        [
            [
                {"delay": 0},
                {"tool_call": {"name": "bash", "arguments": '{"command": "ls"', "id": "custom"}},
                {"tool_call": {"name": "read", "arguments": {"file_path": "a"}}},
                {"usage": {"input_tokens": 12, "output_tokens": 3}},
                {"finish": "length"},
            ]
        ],
        _comment="ignored",
    )
    history: list[ChatMessage] = [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "function": {"name": "bash"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        {"role": "user", "content": "now"},
    ]
    deltas = await collect(model, history)
    assert deltas == [
        ToolCallDelta("custom", "bash", '{"command": "ls"'),
        ToolCallDelta("call_3", "read", '{"file_path": "a"}'),
        UsageDelta(12, 3),
        Finish("length"),
    ]


def test_load_scenario_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "bug.json"
    path.write_text(json.dumps({"steps": [[{"text": "hi"}]]}), encoding="utf-8")
    loaded = load_scenario(path)
    assert loaded.name == "bug" and loaded.source == str(path)
    assert ScriptedModel(path).name == "scripted:bug"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"steps": [[{"text": "a"}]', "invalid JSON at line 1"),
        ("[]", "top level must be an object"),
        ('{"steps": [], "turns": []}', 'exactly one of "steps" or "turns"'),
        ('{"stepz": []}', "unknown key 'stepz'"),
        ('{"steps": [{"text": "a"}]}', "steps[0]: a step must be a list"),
        ('{"steps": [[{"txt": "a"}]]}', "steps[0][0]: unknown item 'txt'"),
        ('{"steps": [[{"text": "a", "reasoning": "b"}]]}', "exactly one of"),
        ('{"steps": [[{"finish": "stop"}, {"text": "a"}]]}', "must be the last item"),
        ('{"steps": [[{"finish": "done"}]]}', "'finish' must be one of"),
        ('{"steps": [[{"tool_call": {"arguments": {}}}]]}', "missing key 'name'"),
        ('{"steps": [[{"tool_call": {"name": "x", "arguments": 3}}]]}', "tool_call.arguments"),
        ('{"steps": [[{"usage": {"input_tokens": -1, "output_tokens": 0}}]]}', "non-negative"),
        ('{"steps": [[{"delay": "soon"}]]}', "'delay' must be"),
    ],
)
def test_malformed_scenarios_name_the_file_and_problem(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    assert str(path) in str(raised.value)
    assert problem in str(raised.value)


def test_missing_file_and_unknown_bundled_name(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"nope\.json: cannot read"):
        load_scenario(tmp_path / "nope.json")
    with pytest.raises(ScenarioError, match="no such bundled scenario"):
        bundled_scenario("no-such-thing")


def test_bundled_scenarios_all_load() -> None:
    folder = Path(__file__).parents[3] / "agent" / "models" / "scenarios"
    names = sorted(path.stem for path in folder.glob("*.json"))
    assert "demo" in names
    for name in names:
        assert bundled_scenario(name).name == name


async def test_demo_shows_every_card_kind() -> None:
    steps = await run_turn(ScriptedModel(bundled_scenario("demo")), "demo", cwd="/ws")
    calls = tool_calls(steps)
    by_name = [call.name for call in calls]
    assert by_name[0] == "todo_write" and by_name[-1] == "todo_write"
    assert {"write", "edit", "read", "bash", "todo_write"} <= set(by_name)
    args = [json.loads(call.arguments) for call in calls]
    write = next(a for c, a in zip(calls, args, strict=True) if c.name == "write")
    assert write["file_path"] == "/ws/dsh-demo/hello.py"
    edit = next(a for c, a in zip(calls, args, strict=True) if c.name == "edit")
    assert edit["replace_all"] is True
    commands = [a["command"] for c, a in zip(calls, args, strict=True) if c.name == "bash"]
    assert len(commands) == 4
    assert any(isinstance(d, ReasoningDelta) for step in steps for d in step)
    assert all(any(isinstance(d, TextDelta) for d in step) for step in steps)
    assert steps[-1][-1] == Finish("stop")


def test_demo_commands_and_edit_behave_as_advertised(tmp_path: Path) -> None:
    """Apply the demo's write and edit, then run its commands: exit 0, 3, SIGTERM, 400 lines."""
    steps = bundled_scenario("demo").steps
    assert steps is not None
    raw = [
        item.arguments
        for step in steps
        for item in step.items
        if hasattr(item, "arguments") and isinstance(item.arguments, dict)
    ]
    write = next(a for a in raw if "content" in a)
    edit = next(a for a in raw if "old_string" in a)
    before = write["content"]
    assert before.count(edit["old_string"]) == 2
    after = before.replace(edit["old_string"], edit["new_string"])
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), n=3, lineterm=""))
    assert sum(line.startswith("@@") for line in diff) == 2, "the edit must give two hunks"
    (tmp_path / "hello.py").write_text(after, encoding="utf-8")
    results = []
    for arguments in raw:
        if "command" in arguments:
            done = subprocess.run(
                ["bash", "-c", arguments["command"]],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=10,
            )
            results.append((done.returncode, done.stdout))
            assert arguments["workdir"] == "${CWD}/dsh-demo"  # each in the demo's folder
    assert [code for code, _ in results] == [0, 3, -15, 0]
    assert "version 2" in results[0][1]
    assert results[3][1].splitlines() == [str(n) for n in range(1, 401)]
