"""Properties: every payload the bridge emits is a valid ACP `session/update`, and the
presenter is a pure function of its event log (replay equals live)."""

from __future__ import annotations

import json
from typing import Any

from acp.schema import SessionNotification
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.bridge import (
    ToolUpdate,
    call_update,
    output_update,
    plan_update,
    result_update,
    wire_dict,
)
from agent.events import Event, ToolCall, ToolFinished, ToolOutput, event_from_json, event_to_json
from agent.presenter import SessionPresenter
from agent.tools.base import ToolResult
from agent.translate import replay, translate
from agent.views import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    ImageBlock,
    PlanItem,
    ResourceBlock,
    TerminalCallView,
    TerminalResultView,
    TextBlock,
    ToolCallView,
    ToolResultView,
)

texts = st.text(max_size=30)
paths = st.one_of(
    st.sampled_from(["a.py", "src/b.ts", "/home/u/proj/c.txt", "/etc/passwd", "/home/u/proj"]),
    st.text(min_size=1, max_size=20),
)
cwds = st.one_of(st.none(), st.sampled_from(["/home/u/proj", "/", "rel/dir"]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
kinds = st.sampled_from(["read", "edit", "delete", "move", "search", "execute", "fetch", "other"])
locations = st.lists(
    st.builds(FileLocation, paths, st.one_of(st.none(), st.integers(0, 10_000))), max_size=3
).map(tuple)
start_lines = st.one_of(st.none(), st.integers(1, 10_000))
diffs = st.lists(
    st.builds(FileDiff, paths, st.one_of(st.none(), texts), texts, start_lines, start_lines),
    max_size=3,
).map(tuple)
blocks = st.lists(st.builds(TextBlock, texts), max_size=3).map(tuple)
mimes = st.sampled_from(["image/png", "text/plain", "application/json"])
# A result may also show what an MCP server returned: images and resources, embedded or linked.
result_blocks = st.lists(
    st.one_of(
        st.builds(TextBlock, texts),
        st.builds(ImageBlock, texts, mimes),
        st.builds(ResourceBlock, texts, st.one_of(st.none(), texts), st.one_of(st.none(), mimes)),
    ),
    max_size=3,
).map(tuple)

call_views: st.SearchStrategy[ToolCallView] = st.one_of(
    st.builds(
        GenericCallView,
        card=st.just("generic"),
        title=texts,
        kind=st.one_of(st.none(), kinds),
        raw_input=st.one_of(st.none(), st.dictionaries(texts, json_values, max_size=3)),
        content=blocks,
        locations=locations,
    ),
    st.builds(
        TerminalCallView,
        card=st.just("terminal"),
        title=texts,
        description=st.one_of(st.none(), texts),
        cwd=st.one_of(st.none(), paths),
    ),
    st.builds(DiffCallView, card=st.just("diff"), title=texts, diffs=diffs, locations=locations),
)
result_views: st.SearchStrategy[ToolResultView] = st.one_of(
    st.builds(
        GenericResultView,
        card=st.just("generic"),
        title=st.one_of(st.none(), texts),
        content=st.one_of(st.none(), result_blocks),
    ),
    st.builds(
        TerminalResultView,
        card=st.just("terminal"),
        title=st.one_of(st.none(), texts),
        output=st.one_of(st.none(), texts),
        exit_code=st.one_of(st.none(), st.integers(0, 255)),
        signal=st.one_of(st.none(), st.sampled_from(["SIGTERM", "SIGKILL", "SIGINT"])),
    ),
    st.builds(
        DiffResultView,
        card=st.just("diff"),
        title=st.one_of(st.none(), texts),
        diffs=diffs,
        locations=locations,
    ),
)
plans = st.lists(
    st.builds(PlanItem, texts, st.sampled_from(["pending", "in_progress", "completed"])),
    max_size=4,
)


def assert_valid(update: ToolUpdate) -> None:
    """The payload validates as a session/update and survives the round trip unchanged.

    The SDK's lenient parsing silently drops invalid list items or nulls invalid fields, so
    equality after the round trip is what proves nothing was off-spec.
    """
    payload = wire_dict(update)
    notification = SessionNotification.model_validate({"sessionId": "s1", "update": payload})
    assert wire_dict(notification.update) == payload


@settings(max_examples=300, deadline=None)
@given(view=call_views, call_id=st.text(min_size=1, max_size=8), cwd=cwds, terminal=st.booleans())
def test_every_call_update_is_a_valid_session_update(
    view: ToolCallView, call_id: str, cwd: str | None, terminal: bool
) -> None:
    update = call_update(view, call_id, cwd, terminal)
    assert update.status == "in_progress"
    assert_valid(update)


@settings(max_examples=300, deadline=None)
@given(
    view=result_views,
    call_id=st.text(min_size=1, max_size=8),
    cwd=cwds,
    terminal=st.booleans(),
    error=st.booleans(),
    streamed=texts,
)
def test_every_result_update_is_a_valid_session_update(
    view: ToolResultView, call_id: str, cwd: str | None, terminal: bool, error: bool, streamed: str
) -> None:
    update = result_update(
        view, call_id, is_error=error, session_cwd=cwd, terminal_cards=terminal, streamed=streamed
    )
    assert update.status == ("failed" if error else "completed")
    if isinstance(view, TerminalResultView) and terminal:
        assert update.content is None  # never clobber the terminal block
    assert_valid(update)


@given(call_id=st.text(min_size=1, max_size=8), data=texts, items=plans)
def test_output_and_plan_updates_are_valid(call_id: str, data: str, items: list[PlanItem]) -> None:
    assert_valid(output_update(call_id, data))
    assert_valid(plan_update(items))


# --- replay equals live ----------------------------------------------------------------------

TOOL_ARGS: dict[str, st.SearchStrategy[Any]] = {
    "bash": st.fixed_dictionaries(
        {"command": st.sampled_from(["ls", "make"]), "description": texts},
        optional={"workdir": st.sampled_from(["sub", "/abs"]), "run_in_background": st.booleans()},
    ),
    "read": st.fixed_dictionaries(
        {"file_path": paths}, optional={"offset": st.integers(1, 9), "limit": st.integers(1, 9)}
    ),
    "edit": st.fixed_dictionaries({"file_path": paths, "old_string": texts, "new_string": texts}),
    "write": st.fixed_dictionaries({"file_path": paths, "content": texts}),
    "todo_write": st.fixed_dictionaries(
        {
            "todos": st.lists(
                st.fixed_dictionaries(
                    {"content": texts, "status": st.sampled_from(["pending", "completed"])}
                ),
                max_size=3,
            )
        }
    ),
    "mystery": json_values,
}

results = st.builds(
    ToolResult,
    output=st.one_of(texts, st.sampled_from(["hi\n", "oops\n[exit code: 3]", "(no output)"])),
    is_error=st.booleans(),
    meta=st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {
                "diffs": st.lists(
                    st.fixed_dictionaries(
                        {"path": paths, "oldText": st.none() | texts, "newText": texts},
                        optional={
                            "oldLine": st.integers(-1, 99) | json_values,
                            "newLine": st.integers(-1, 99),
                            "line": st.integers(-1, 99) | json_values,
                        },
                    ),
                    max_size=2,
                )
            }
        ),
        json_values,
    ),
)


@st.composite
def event_logs(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """A session's tool events: calls, live output for open calls, results for open calls."""
    events: list[tuple[Any, ...]] = []
    open_calls: list[tuple[str, str, Any]] = []
    for n in range(draw(st.integers(0, 12))):
        choice = draw(st.integers(0, 2)) if open_calls else 0
        if choice == 0:
            name = draw(st.sampled_from(sorted(TOOL_ARGS)))
            call = (f"c{n}", name, draw(TOOL_ARGS[name]))
            open_calls.append(call)
            # What the call logged when it arrived: the edit tool's start line, or junk.
            meta = draw(
                st.one_of(st.none(), st.integers(-1, 99).map(lambda n: {"line": n}), json_values)
            )
            events.append(("call", *call, meta))
        else:
            call_id, name, args = open_calls[draw(st.integers(0, len(open_calls) - 1))]
            if choice == 1:
                events.append(("output", call_id, draw(st.text(min_size=1, max_size=10))))
            else:
                open_calls.remove((call_id, name, args))
                events.append(("result", call_id, name, args, draw(results)))
    return events


def render(log: list[tuple[Any, ...]], cwd: str, terminal: bool) -> list[dict[str, Any]]:
    presenter = SessionPresenter(cwd, terminal)
    out: list[ToolUpdate] = []
    for event in log:
        if event[0] == "call":
            out += presenter.on_call(event[1], event[2], event[3], event[4])
        elif event[0] == "output":
            out += presenter.on_output(event[1], event[2])
        else:
            out += presenter.on_result(event[1], event[2], event[3], event[4])
    for update in out:
        assert_valid(update)
    return [wire_dict(update) for update in out]


@settings(max_examples=150, deadline=None)
@given(log=event_logs(), terminal=st.booleans(), cwd=st.sampled_from(["/home/u/proj", "/"]))
def test_replay_equals_live(log: list[tuple[Any, ...]], terminal: bool, cwd: str) -> None:
    live = render(log, cwd, terminal)
    assert render(log, cwd, terminal) == live  # a throwaway presenter reproduces it exactly
    started: set[str] = set()
    for update in live:
        kind = update["sessionUpdate"]
        assert kind in {"tool_call", "tool_call_update", "plan"}
        if kind == "tool_call":
            started.add(update["toolCallId"])
        elif kind == "tool_call_update":
            assert update["toolCallId"] in started  # never an update before its call
            if not terminal:
                assert "_meta" not in update


def as_events(log: list[tuple[Any, ...]]) -> list[Event]:
    """The same tool events as the session log records them (arguments as JSON text)."""
    out: list[Event] = []
    for event in log:
        if event[0] == "call":
            out.append(ToolCall(event[1], event[2], json.dumps(event[3]), event[4]))
        elif event[0] == "output":
            out.append(ToolOutput(event[1], event[2]))
        else:
            result: ToolResult = event[4]
            out.append(
                ToolFinished(event[1], event[2], result.output, result.is_error, result.meta)
            )
    return out


@settings(max_examples=100, deadline=None)
@given(log=event_logs(), terminal=st.booleans())
def test_replay_of_the_written_log_equals_live(log: list[tuple[Any, ...]], terminal: bool) -> None:
    """The call-time meta (the edit's start line) goes through the log file and back: a
    `session/load` replay of the records renders what the live turn rendered."""
    events = as_events(log)
    presenter = SessionPresenter("/home/u/proj", terminal)
    live = [wire_dict(u) for e in events for u in translate(e, presenter, include_user=False)]
    records = [json.loads(json.dumps(event_to_json(e))) for e in events]
    loaded = [event_from_json(r) for r in records]
    assert loaded == events
    assert [wire_dict(u) for u in replay(loaded, "/home/u/proj", terminal)] == live
