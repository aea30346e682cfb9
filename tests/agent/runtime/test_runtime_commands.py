"""The offline command language and the slash commands, each through the real turn loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from runtime_support import Connect, Harness

from agent.models.offline import HELP


@pytest.fixture
async def h(connect: Connect) -> AsyncIterator[Harness]:
    async with connect(mode="full-access") as harness:
        yield harness


async def run(h: Harness, prompt: str) -> tuple[str, list[dict[str, Any]]]:
    """(the agent's text, the tool calls' wire updates) of one prompt in a fresh session."""
    sid = await h.new()
    h.client.clear()
    assert await h.prompt(sid, prompt) == "end_turn"
    calls = [u for u in h.client.updates(sid) if u["sessionUpdate"].startswith("tool_call")]
    return h.client.text(sid), calls


def finals(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in calls if "status" in u and u["sessionUpdate"] == "tool_call_update"]


# --- the offline command language ---------------------------------------------------------


async def test_dollar_runs_a_command(h: Harness) -> None:
    text, calls = await run(h, "$ echo hi && echo there")
    assert calls[0]["title"] == "echo hi && echo there" and calls[0]["kind"] == "execute"
    output = "".join(u["_meta"].get("terminal_output", {}).get("data", "") for u in calls[1:])
    assert output == "hi\nthere\n"
    assert finals(calls)[0]["_meta"]["terminal_exit"] == {"terminal_id": "call_1", "exit_code": 0}
    assert text == "Done.\n"


async def test_read_with_offset_and_limit(h: Harness) -> None:
    (h.workspace / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    text, calls = await run(h, "read f.txt 3 2")
    assert calls[0]["title"] == "Read f.txt (3 - 4)"
    body = finals(calls)[0]["content"][0]["content"]["text"]
    assert "line 3" in body and "line 4" in body and "line 5" not in body
    assert text == "Done.\n"


async def test_write_with_following_lines(h: Harness) -> None:
    _, calls = await run(h, "write notes/a.md\n# Title\n\nbody")
    assert (h.workspace / "notes" / "a.md").read_text() == "# Title\n\nbody\n"
    assert calls[0]["title"] == "Write notes/a.md"
    assert finals(calls)[0]["status"] == "completed"


async def test_write_inline(h: Harness) -> None:
    await run(h, r"write b.txt: one\ntwo")
    assert (h.workspace / "b.txt").read_text() == "one\ntwo\n"


async def test_edit_with_one_line_per_edit(h: Harness) -> None:
    (h.workspace / "c.py").write_text("a = 1\nb = 2\n")
    _, calls = await run(h, "edit c.py\na = 1 => a = 10\nb = 2 => b = 20")
    assert (h.workspace / "c.py").read_text() == "a = 10\nb = 20\n"
    assert [u["status"] for u in finals(calls)] == ["completed", "completed"]
    assert finals(calls)[0]["content"][0]["type"] == "diff"


async def test_edit_inline_and_replace_all(h: Harness) -> None:
    (h.workspace / "d.txt").write_text("x x x\n")
    await run(h, "edit --all d.txt: x => y")
    assert (h.workspace / "d.txt").read_text() == "y y y\n"


async def test_edit_failure_is_reported(h: Harness) -> None:
    (h.workspace / "e.txt").write_text("abc\n")
    text, calls = await run(h, "edit e.txt: zzz => y")
    assert finals(calls)[0]["status"] == "failed"
    assert "`edit` failed: old_string was not found" in text


async def test_todo_writes_a_plan(h: Harness) -> None:
    sid = await h.new()
    await h.prompt(sid, "todo [x] look; fix; test")
    [plan] = [u for u in h.client.updates(sid) if u["sessionUpdate"] == "plan"]
    assert [(e["content"], e["status"]) for e in plan["entries"]] == [
        ("look", "completed"),
        ("fix", "in_progress"),
        ("test", "pending"),
    ]


async def test_help_lists_the_commands(h: Harness) -> None:
    text, calls = await run(h, "help")
    assert text == HELP and calls == []


async def test_demo_shows_every_card_kind(h: Harness) -> None:
    sid = await h.new()
    assert await h.prompt(sid, "demo") == "end_turn"
    kinds = h.client.kinds(sid)
    assert kinds.count("plan") == 2 and "agent_thought_chunk" in kinds
    results = h.client.results(sid)
    assert len(results) == 9
    exits = [u["_meta"].get("terminal_exit") for u in results.values() if "_meta" in u]
    assert {"terminal_id": "call_6", "exit_code": 3} in exits
    assert {"terminal_id": "call_7", "signal": "SIGTERM"} in exits
    # The demo works in a folder of its own, and says so.
    assert (h.workspace / "dsh-demo" / "hello.py").exists()
    assert sorted(p.name for p in h.workspace.iterdir()) == ["dsh-demo"]
    assert "`dsh-demo/`" in h.client.text(sid)


async def test_anything_else_explains_offline_mode(h: Harness) -> None:
    text, calls = await run(h, "what can you do?")
    assert "> what can you do?" in text and "offline mode" in text and calls == []


# --- slash commands -----------------------------------------------------------------------


async def test_slash_help(h: Harness) -> None:
    text, _ = await run(h, "/help")
    assert "`/mode [ask | accept-edits | full-access | read-only]`" in text
    assert "type `help` (no slash)" in text


async def test_slash_mode_shows_and_switches(h: Harness) -> None:
    sid = await h.new()
    await h.prompt(sid, "/mode")
    assert "Mode: **full-access**" in h.client.text(sid)
    h.client.clear()
    await h.prompt(sid, "/mode read-only")
    assert h.client.kinds(sid) == [
        "current_mode_update",
        "config_option_update",
        "agent_message_chunk",
    ]
    h.client.clear()
    await h.prompt(sid, "/mode sideways")
    assert h.client.text(sid).startswith("Error: unknown mode 'sideways'")


async def test_slash_model_lists_and_switches(h: Harness) -> None:
    sid = await h.new()
    await h.prompt(sid, "/model")
    text = h.client.text(sid)
    assert "Model: **offline**" in text and "`deepseek-reasoner`" in text
    h.client.clear()
    await h.prompt(sid, "/model deepseek-chat")
    assert h.client.kinds(sid) == ["config_option_update", "agent_message_chunk"]
    h.client.clear()
    await h.prompt(sid, "/model nope")
    assert h.client.text(sid).startswith("Error: unknown model 'nope'")


async def test_slash_status(h: Harness) -> None:
    sid = await h.new()
    await h.prompt(sid, "/status")
    text = h.client.text(sid)
    assert sid in text and str(h.workspace) in text and f"{sid}.jsonl" in text


async def test_slash_demo_plays_the_demo_with_any_model(h: Harness) -> None:
    sid = await h.new()
    await h.conn.set_config_option(session_id=sid, config_id="model", value="deepseek-chat")
    assert await h.prompt(sid, "/demo") == "end_turn"
    assert len(h.client.results(sid)) == 9
    infos = [u for u in h.client.updates(sid) if u["sessionUpdate"] == "session_info_update"]
    assert infos[0]["title"] == "dsh-agent demo"


async def test_an_unknown_slash_word_goes_to_the_model(h: Harness) -> None:
    text, _ = await run(h, "/usr/bin/python is broken")
    assert "> /usr/bin/python is broken" in text
