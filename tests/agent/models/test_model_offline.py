"""The offline command language: one test per command, plus the step after a tool call."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.models.base import (
    ChatMessage,
    Finish,
    ModelDelta,
    TextDelta,
    ToolCallDelta,
)
from agent.models.offline import OfflineModel
from agent.models.scripted import ScriptedModel, bundled_scenario
from dsh_common.conformance import CHECK_PROMPT

CWD = "/work/space"


async def collect(
    model: OfflineModel | ScriptedModel, messages: Sequence[ChatMessage], cwd: str = CWD
) -> list[ModelDelta]:
    deltas = [delta async for delta in model.stream(messages, [], cwd=cwd)]
    assert sum(isinstance(delta, Finish) for delta in deltas) == 1
    assert isinstance(deltas[-1], Finish)
    return deltas


async def run(prompt: str, history: Sequence[ChatMessage] = ()) -> list[ModelDelta]:
    return await collect(OfflineModel(), [*history, {"role": "user", "content": prompt}])


def calls(deltas: list[ModelDelta]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (delta.id, delta.name, json.loads(delta.arguments))
        for delta in deltas
        if isinstance(delta, ToolCallDelta)
    ]


def text(deltas: list[ModelDelta]) -> str:
    return "".join(delta.text for delta in deltas if isinstance(delta, TextDelta))


def finish(deltas: list[ModelDelta]) -> Finish:
    last = deltas[-1]
    assert isinstance(last, Finish)
    return last


async def test_dollar_runs_bash() -> None:
    deltas = await run("$ ls -la")
    assert calls(deltas) == [("call_1", "bash", {"command": "ls -la", "description": "Run ls -la"})]
    assert finish(deltas) == Finish("tool_calls")


async def test_dollar_takes_following_lines_as_the_script() -> None:
    deltas = await run("$ echo one\necho two")
    assert calls(deltas)[0][2]["command"] == "echo one\necho two"
    assert calls(deltas)[0][2]["description"] == "Run echo one"


async def test_read_with_offset_and_limit_absolutizes_the_path() -> None:
    deltas = await run("read src/app.py 5 10")
    assert calls(deltas) == [
        ("call_1", "read", {"file_path": "/work/space/src/app.py", "offset": 5, "limit": 10})
    ]
    plain = await run("read /etc/hosts")
    assert calls(plain)[0][2] == {"file_path": "/etc/hosts"}
    offset_only = await run("read notes.txt 3")
    assert calls(offset_only)[0][2] == {"file_path": "/work/space/notes.txt", "offset": 3}


async def test_write_with_content_on_following_lines() -> None:
    deltas = await run("write notes.txt\nfirst line\n  second line")
    assert calls(deltas) == [
        (
            "call_1",
            "write",
            {"file_path": "/work/space/notes.txt", "content": "first line\n  second line\n"},
        )
    ]


async def test_write_on_one_line_turns_backslash_n_into_newlines() -> None:
    deltas = await run(r"write docs/a.md: # Title\n\nBody")
    assert calls(deltas)[0][2] == {
        "file_path": "/work/space/docs/a.md",
        "content": "# Title\n\nBody\n",
    }


async def test_edit_with_one_call_per_line_in_order() -> None:
    deltas = await run("edit app.py\nfoo => bar\n\nx = 1 => x = 2")
    assert calls(deltas) == [
        (
            "call_1",
            "edit",
            {"file_path": "/work/space/app.py", "old_string": "foo", "new_string": "bar"},
        ),
        (
            "call_2",
            "edit",
            {"file_path": "/work/space/app.py", "old_string": "x = 1", "new_string": "x = 2"},
        ),
    ]
    assert finish(deltas) == Finish("tool_calls")


async def test_edit_on_one_line_with_replace_all_and_deletion() -> None:
    one = await run(r"edit app.py: def a():\n    pass => def a():\n    return 1")
    assert calls(one)[0][2] == {
        "file_path": "/work/space/app.py",
        "old_string": "def a():\n    pass",
        "new_string": "def a():\n    return 1",
    }
    every = await run("edit --all app.py: DEBUG => RELEASE")
    assert calls(every)[0][2]["replace_all"] is True
    deletion = await run("edit app.py: # TODO =>")
    assert calls(deletion)[0][2]["new_string"] == ""


async def test_edit_line_without_arrow_is_explained_not_called() -> None:
    deltas = await run("edit app.py\nfoo bar")
    assert calls(deltas) == []
    assert "`=>`" in text(deltas)
    assert finish(deltas) == Finish("stop")


async def test_todo_first_item_in_progress_rest_pending() -> None:
    deltas = await run("todo plan it; build it; ship it")
    assert calls(deltas) == [
        (
            "call_1",
            "todo_write",
            {
                "todos": [
                    {"content": "plan it", "status": "in_progress"},
                    {"content": "build it", "status": "pending"},
                    {"content": "ship it", "status": "pending"},
                ]
            },
        )
    ]


async def test_todo_marks() -> None:
    deltas = await run("todo [x] plan; build; [ ] ship")
    assert calls(deltas)[0][2]["todos"] == [
        {"content": "plan", "status": "completed"},
        {"content": "build", "status": "in_progress"},
        {"content": "ship", "status": "pending"},
    ]


async def test_help_lists_every_command() -> None:
    deltas = await run("help")
    body = text(deltas)
    for command in ("`$ CMD`", "`read PATH", "`write PATH`", "`write PATH: TEXT`", "`edit PATH`"):
        assert command in body
    for command in ("`edit PATH: OLD => NEW`", "`todo a; b; c`", "`demo`", "`help`"):
        assert command in body
    assert sum(isinstance(delta, TextDelta) for delta in deltas) > 10
    assert calls(deltas) == []


async def test_demo_plays_the_bundled_scenario() -> None:
    messages: list[ChatMessage] = [{"role": "user", "content": "demo"}]
    offline = await collect(OfflineModel(), messages)
    scripted = await collect(ScriptedModel(bundled_scenario("demo")), messages)
    assert offline == scripted
    assert calls(offline)[0][1] == "todo_write"


async def test_the_check_prompt_plays_the_check_scenario() -> None:
    """`dsh-tui check`'s default turn runs offline: a read, an edit and a command."""
    messages: list[ChatMessage] = [{"role": "user", "content": CHECK_PROMPT}]
    offline = await collect(OfflineModel(), messages)
    assert offline == await collect(ScriptedModel(bundled_scenario("check")), messages)
    assert [name for _, name, _ in calls(offline)] == ["read"]
    steps = bundled_scenario("check").steps or ()
    names = [getattr(item, "name", None) for step in steps for item in step.items]
    assert [name for name in names if name] == ["read", "edit", "bash"]
    said = await collect(OfflineModel(), [{"role": "user", "content": CHECK_PROMPT + " now"}])
    assert said != offline  # only that exact prompt plays the scenario


async def test_anything_else_explains_offline_mode() -> None:
    deltas = await run("please refactor the parser")
    body = text(deltas)
    assert "> please refactor the parser" in body
    assert "offline mode" in body
    assert "DEEPSEEK_API_KEY" in body and "--base-url" in body and "`help`" in body
    assert sum(isinstance(delta, TextDelta) for delta in deltas) > 10
    assert finish(deltas) == Finish("stop")


def after_call(prompt: str, name: str, result: str) -> list[ChatMessage]:
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


async def test_step_after_a_tool_result_summarizes_and_stops() -> None:
    ok = await collect(OfflineModel(), after_call("$ true", "bash", "(no output)"))
    assert text(ok) == "Done.\n"
    assert finish(ok) == Finish("stop")
    failed = await collect(OfflineModel(), after_call("$ x", "bash", "oops\n[exit code: 3]"))
    assert text(failed) == "The command exited with code 3.\n"
    killed = await collect(
        OfflineModel(), after_call("$ x", "bash", "bye\n[killed by signal: SIGTERM]")
    )
    assert text(killed) == "The command was killed by signal SIGTERM.\n"
    error = await collect(
        OfflineModel(), after_call("read x", "read", "Error: file not found: /work/space/x")
    )
    assert text(error) == "`read` failed: file not found: /work/space/x.\n"


async def test_summary_of_several_calls_lists_each() -> None:
    messages: list[ChatMessage] = [
        {"role": "user", "content": "edit a.py\nx => y\ny => z"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": "edit"}}
                for n in (1, 2)
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "The file a.py has been updated."},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: old_string not found"},
    ]
    body = text(await collect(OfflineModel(), messages))
    assert body.startswith("1 of 2 calls did not succeed:")
    assert "1. `edit`: done" in body and "2. `edit`: failed: old_string not found" in body


async def test_call_ids_continue_across_turns() -> None:
    history: list[ChatMessage] = [
        *after_call("$ true", "bash", "(no output)"),
        {"role": "assistant", "content": "Done."},
    ]
    deltas = await run("$ echo again", history)
    assert calls(deltas)[0][0] == "call_2"


async def test_content_parts_are_read_as_text() -> None:
    deltas = await collect(
        OfflineModel(),
        [{"role": "user", "content": [{"type": "text", "text": "$ pwd"}]}],
    )
    assert calls(deltas)[0][1:] == ("bash", {"command": "pwd", "description": "Run pwd"})
