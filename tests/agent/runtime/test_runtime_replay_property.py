"""Replay equals live: for any event log, `session/load` re-emits exactly what the turn sent.

Live is the real `AgentSession.emit` path (log, then translate with the session presenter,
without the user's own prompt); replay is the server's path (read the file back, then
`translate.replay` through a throwaway presenter). Logs are generated with hypothesis, with
the terminal capability on and off, including calls left open by a "crash".
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.bridge import wire_dict
from agent.events import (
    Event,
    Notice,
    ReasoningChunk,
    StepEnd,
    TextChunk,
    Title,
    ToolCall,
    ToolFinished,
    ToolOutput,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
)
from agent.log import SessionStore
from agent.mcp.present import call_record
from agent.models.config import ModelSettings
from agent.session import AgentSession, AnyUpdate, SessionSettings
from agent.translate import replay

CWD = "/home/u/proj"
LEGAL = {
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "session_info_update",
    "usage_update",
}

texts = st.text(max_size=12)
paths = st.sampled_from([f"{CWD}/a.py", "b.txt", "/etc/hosts", f"{CWD}/sub/c.md"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
diff_meta = st.fixed_dictionaries(
    {
        "diffs": st.lists(
            st.fixed_dictionaries({"path": paths, "oldText": texts, "newText": texts}), max_size=2
        )
    }
)
todo_args = st.fixed_dictionaries(
    {
        "todos": st.lists(
            st.fixed_dictionaries(
                {
                    "content": texts,
                    "status": st.sampled_from(["pending", "in_progress", "completed"]),
                }
            ),
            max_size=3,
        )
    }
)
bash_args = st.fixed_dictionaries(
    {"command": st.sampled_from(["ls", "echo hi", "sleep 1"]), "description": texts},
    optional={"workdir": st.sampled_from(["sub", "/tmp"]), "run_in_background": st.booleans()},
)
tool_args = st.one_of(
    st.tuples(
        st.just("read"),
        st.fixed_dictionaries({"file_path": paths}, optional={"offset": st.integers(1, 9)}),
    ),
    st.tuples(st.just("write"), st.fixed_dictionaries({"file_path": paths, "content": texts})),
    st.tuples(
        st.just("edit"),
        st.fixed_dictionaries({"file_path": paths, "old_string": texts, "new_string": texts}),
    ),
    st.tuples(st.just("bash"), bash_args),
    st.tuples(st.just("todo_write"), todo_args),
    st.tuples(st.sampled_from(["mcp__probe__echo", "mcp__a-b__c__d"]), json_values),
    st.tuples(st.sampled_from(["nope", "read"]), json_values),
)
# What an MCP call logs: the card's record with the call, the result's blocks with the result.
mcp_call_meta = st.one_of(
    json_values,
    st.builds(
        call_record,
        texts,
        texts,
        st.sampled_from(["read", "edit", "delete", "other"]),
    ),
)
mcp_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": texts}),
    st.fixed_dictionaries(
        {"type": st.just("image"), "data": texts, "mimeType": st.just("image/png")}
    ),
    st.fixed_dictionaries(
        {"type": st.just("resource"), "uri": texts},
        optional={"text": texts, "mimeType": st.just("text/plain")},
    ),
    json_values,
)
mcp_result_meta = st.fixed_dictionaries({"blocks": st.lists(mcp_block, max_size=3)})
outputs = st.one_of(
    texts,
    st.sampled_from(["(no output)", "oops\n[exit code: 3]", "x\n[killed by signal: SIGTERM]"]),
)


@st.composite
def turn(draw: st.DrawFn, number: int, next_id: list[int], first: bool, last: bool) -> list[Event]:
    command = draw(st.booleans()) if not first else False
    events: list[Event] = [TurnStart(number, command), UserMessage(draw(texts))]
    if first and draw(st.booleans()):
        events.append(Title(draw(texts)))
    if command:
        return [*events, TextChunk(draw(texts)), TurnEnd("end_turn")]
    for _ in range(draw(st.integers(0, 3))):
        chatter = st.one_of(
            texts.map(TextChunk),
            texts.map(ReasoningChunk),
            st.builds(Notice, texts, st.sampled_from(["info", "warning", "error"])),
            st.builds(Usage, st.integers(0, 9), st.integers(0, 9), st.just(128_000)),
        )
        events += draw(st.lists(chatter, max_size=4))
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            name, args = draw(tool_args)
            next_id[0] += 1
            # Mostly the model's JSON; sometimes what a broken model sends instead.
            raw = draw(st.sampled_from([json.dumps(args)] * 3 + ["not json", ""]))
            call_meta = draw(mcp_call_meta) if name.startswith("mcp__") else None
            calls.append(ToolCall(f"call_{next_id[0]}", name, raw, call_meta))
        events += calls
        events.append(StepEnd(draw(st.sampled_from(["stop", "tool_calls", "error"]))))
        for call in calls:
            events += [
                ToolOutput(call.call_id, draw(texts)) for _ in range(draw(st.integers(0, 2)))
            ]
            if last and draw(st.integers(0, 3)) == 0:
                continue  # left open: the agent "crashed" here
            meta = draw(st.one_of(json_values, diff_meta, todo_args, mcp_result_meta))
            events.append(
                ToolFinished(call.call_id, call.name, draw(outputs), draw(st.booleans()), meta)
            )
    if not last or draw(st.booleans()):
        events.append(TurnEnd(draw(st.sampled_from(["end_turn", "cancelled", "max_tokens"]))))
    return events


@st.composite
def event_logs(draw: st.DrawFn) -> list[Event]:
    count = draw(st.integers(1, 3))
    next_id = [0]
    events: list[Event] = []
    for number in range(1, count + 1):
        events += draw(turn(number, next_id, number == 1, number == count))
    return events


def live_and_replay(
    events: list[Event], terminal: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    sent: list[AnyUpdate] = []

    async def send(update: AnyUpdate) -> None:
        sent.append(update)

    async def ask(*args: Any) -> Any:
        raise AssertionError("no permission requests while emitting events")

    async def run(root: Path) -> list[dict[str, Any]]:
        store = SessionStore(root)
        session = AgentSession(
            session_id="s1",
            cwd=CWD,
            log=store.create("s1", CWD),
            terminal_cards=terminal,
            settings=SessionSettings("ask", ModelSettings(), 50),
            send=send,
            ask=ask,
        )
        for event in events:
            session.emit(event)
        await session.flush()
        await session.close()
        loaded = store.load("s1", CWD)
        loaded.log.close()
        return [wire_dict(update) for update in replay(loaded.events, CWD, terminal)]

    with tempfile.TemporaryDirectory() as root:
        replayed = asyncio.run(run(Path(root)))
    return [wire_dict(update) for update in sent], replayed


def check(events: list[Event], terminal: bool) -> None:
    live, replayed = live_and_replay(events, terminal)
    kinds = {update["sessionUpdate"] for update in replayed}
    assert kinds <= LEGAL
    # The user's prompts are shown by the client live, and replayed on load.
    prompts = [u for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
    assert [u["content"]["text"] for u in prompts] == [
        e.text for e in events if isinstance(e, UserMessage)
    ]
    others = [u for u in replayed if u["sessionUpdate"] != "user_message_chunk"]
    assert others[: len(live)] == live
    # What a crash left open is closed on load: one failed update per open call, nothing else.
    open_calls = {e.call_id for e in events if isinstance(e, ToolCall)} - {
        e.call_id for e in events if isinstance(e, ToolFinished)
    }
    recovered = others[len(live) :]
    assert {u["toolCallId"] for u in recovered} == open_calls
    assert all(
        u["sessionUpdate"] == "tool_call_update" and u["status"] == "failed" for u in recovered
    )
    # A tool call never arrives after one of its updates.
    started: set[str] = set()
    for update in replayed:
        if update["sessionUpdate"] == "tool_call":
            started.add(update["toolCallId"])
        elif update["sessionUpdate"] == "tool_call_update":
            assert update["toolCallId"] in started


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_logs())
def test_replay_equals_live_with_terminal_cards(events: list[Event]) -> None:
    check(events, terminal=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_logs())
def test_replay_equals_live_without_terminal_cards(events: list[Event]) -> None:
    check(events, terminal=False)


def test_streamed_bash_output_replays_chunk_by_chunk() -> None:
    call = ToolCall("call_1", "bash", json.dumps({"command": "seq 3", "description": "Count"}))
    events: list[Event] = [
        TurnStart(1),
        UserMessage("count"),
        call,
        StepEnd("tool_calls"),
        ToolOutput("call_1", "1\n"),
        ToolOutput("call_1", "2\n3\n"),
        ToolFinished("call_1", "bash", "1\n2\n3\n", False, None),
        TurnEnd("end_turn"),
    ]
    live, replayed = live_and_replay(events, terminal=True)
    updates = [u for u in live if u["sessionUpdate"] == "tool_call_update"]
    data = [
        u["_meta"]["terminal_output"]["data"] for u in updates if "terminal_output" in u["_meta"]
    ]
    assert data == ["1\n", "2\n3\n"]  # the final update has nothing left to append
    assert updates[-1]["status"] == "completed"
    assert [u for u in replayed if u["sessionUpdate"] != "user_message_chunk"] == live
