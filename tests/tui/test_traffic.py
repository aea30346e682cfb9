"""The traffic store behind the inspector: what each message is, bounds, pins, tool calls."""

from __future__ import annotations

import itertools
import json
from typing import Any

from tui.inspector.json_view import DISPLAY_BYTES, display, pretty
from tui.inspector.negotiation import negotiation_table
from tui.inspector.traffic import (
    KEEP_BYTES,
    SCAN_BYTES,
    Query,
    Traffic,
    format_gap,
    format_size,
    summarize,
)


def line(message: Any) -> bytes:
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def update(update_kind: str, **fields: Any) -> bytes:
    body = {"sessionUpdate": update_kind, **fields}
    params = {"sessionId": "s1", "update": body}
    return line({"jsonrpc": "2.0", "method": "session/update", "params": params})


INITIALIZE = line(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": 1,
            "clientCapabilities": {
                "fs": {"readTextFile": True, "writeTextFile": True},
                "terminal": False,
                "_meta": {"terminal_output": False},
            },
            "clientInfo": {"name": "dsh-tui", "version": "0.1.0"},
        },
    }
)
ANSWER = line(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": True, "promptCapabilities": {"image": False}},
            "agentInfo": {"name": "agent", "version": "2"},
            "authMethods": [],
        },
    }
)


def ticking() -> Traffic:
    """A store on a clock that moves 5 ms a message."""
    clock = itertools.count(0, 0.005)
    return Traffic(clock=lambda: next(clock))


def test_each_message_is_summarised_by_direction_method_id_and_tool_call() -> None:
    traffic = ticking()
    traffic.line_out(INITIALIZE)
    traffic.line_in(ANSWER, True)
    traffic.line_in(update("tool_call", toolCallId="c1", title="Read"), True)
    traffic.line_in(b'{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}\n', True)
    traffic.line_in(b"oops\n", False)
    shown = [
        (m.direction, m.summary.label, m.summary.id, m.summary.tool_call_id, m.size)
        for m in traffic.since(1)
    ]
    assert shown == [
        ("out", "initialize", "0", None, len(INITIALIZE) - 1),
        ("in", "result", "0", None, len(ANSWER) - 1),
        ("in", "session/update", None, "c1", shown[2][4]),
        ("in", "error", "3", None, shown[3][4]),
        ("in", "not JSON", None, None, 4),
    ]
    assert [round(m.gap, 3) for m in traffic.since(1)] == [0.0, 0.005, 0.005, 0.005, 0.005]


def test_a_long_line_is_summarised_from_its_prefix_without_parsing_it() -> None:
    text = "x" * (SCAN_BYTES * 4)
    raw = update("tool_call_update", toolCallId="c9", content=[{"type": "text", "text": text}])
    summary = summarize(raw, len(raw))
    assert (summary.label, summary.update, summary.tool_call_id) == (
        "session/update",
        "tool_call_update",
        "c9",
    )
    assert not summary.exact
    # The same message cut before its tool call id: what the prefix cannot say stays unsaid.
    late = line(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "update": {"content": text, "sessionUpdate": "tool_call", "toolCallId": "c9"}
            },
        }
    )
    assert summarize(late, len(late)).tool_call_id is None


def test_a_line_dropped_at_the_cap_keeps_its_head_and_size() -> None:
    traffic = ticking()
    traffic.oversized_in(70_000_000, b'{"jsonrpc":"2.0","id":7,"result":{"content":"xxx')
    message = traffic.get(1)
    assert message is not None and message.cut and message.size == 70_000_000
    assert message.summary.label == "result (dropped: over the cap)"
    assert message.summary.id == "7"


def test_the_store_keeps_the_newest_and_counts_the_rest() -> None:
    traffic = Traffic(clock=lambda: 0.0, max_messages=3)
    traffic.line_out(INITIALIZE)
    traffic.line_in(ANSWER, True)
    for index in range(5):
        traffic.line_in(
            update("agent_message_chunk", content={"type": "text", "text": f"{index}"}), True
        )
    assert (len(traffic), traffic.dropped, traffic.total, traffic.first_seq) == (3, 4, 7, 5)
    assert traffic.get(4) is None and traffic.get(5) is not None
    # The negotiation outlives the messages the bound dropped.
    assert traffic.negotiation.request is not None and traffic.negotiation.response is not None


def test_the_byte_bound_keeps_at_least_the_newest_message() -> None:
    traffic = Traffic(clock=lambda: 0.0, max_bytes=100)
    traffic.line_in(b"x" * 80 + b"\n", False)
    traffic.line_in(b"y" * 500 + b"\n", False)
    assert len(traffic) == 1 and traffic.dropped == 1 and traffic.get(2) is not None


def test_a_long_line_is_kept_as_its_first_megabyte_with_its_size() -> None:
    traffic = ticking()
    raw = update("agent_message_chunk", content={"type": "text", "text": "y" * 3_000_000})
    traffic.line_in(raw, True)
    message = traffic.get(1)
    assert message is not None and message.size == len(raw) - 1
    assert message.raw == raw[:KEEP_BYTES]
    assert message.summary.update == "agent_message_chunk"
    last = "".join(piece for piece, _ in display(message).lines[-1])
    assert last == f"… {format_size(len(raw) - 1 - DISPLAY_BYTES)} more, truncated for display"


def test_a_reconnect_pins_the_new_negotiation() -> None:
    traffic = ticking()
    traffic.line_out(INITIALIZE)
    traffic.line_in(ANSWER, True)
    again = INITIALIZE.replace(b'"id":0', b'"id":5')
    traffic.line_out(again)
    assert traffic.negotiation.request is not None and traffic.negotiation.request.seq == 3
    assert traffic.negotiation.response is None
    traffic.line_in(ANSWER, True)  # id 0: the old call's id, not this one's
    assert traffic.negotiation.response is None
    traffic.line_in(ANSWER.replace(b'"id":0', b'"id":5'), True)
    assert traffic.negotiation.response is not None and traffic.negotiation.response.seq == 5


def test_messages_of_one_tool_call_in_wire_order() -> None:
    traffic = ticking()
    traffic.line_in(update("tool_call", toolCallId="a"), True)
    traffic.line_in(update("tool_call", toolCallId="b"), True)
    assert traffic.for_tool_call("a") == [1]
    traffic.line_in(update("tool_call_update", toolCallId="a", status="completed"), True)
    traffic.line_in(update("agent_message_chunk", content={"type": "text", "text": "a"}), True)
    permission = {"toolCall": {"toolCallId": "a"}, "options": [], "sessionId": "s1"}
    traffic.line_in(
        line(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "session/request_permission",
                "params": permission,
            }
        ),
        True,
    )
    assert traffic.for_tool_call("a") == [1, 3, 5]
    assert traffic.for_tool_call("b") == [2]
    assert traffic.for_tool_call("zzz") == []


def test_the_filter_matches_method_text_and_tool_call() -> None:
    traffic = ticking()
    traffic.line_out(INITIALIZE)
    traffic.line_in(update("tool_call", toolCallId="c1", title="Read Hello.py"), True)
    traffic.line_in(update("tool_call_update", toolCallId="c2"), True)

    def seqs(text: str) -> list[int]:
        matches = Query(text).matcher()
        return [m.seq for m in traffic.since(1) if matches(m)]

    assert seqs("") == [1, 2, 3]
    assert seqs("INIT") == [1]  # labels ignore case
    assert seqs("hello") == [2]  # lower case: any case in the text
    assert seqs("Hello") == [2]
    assert seqs("HELLO") == []  # not all lower case: exact case in the text
    assert seqs("tool_call_update") == [3]
    assert seqs("tool:c2") == [3]


def test_pretty_json_keeps_the_wire_spelling_and_folds_empty_containers() -> None:
    lines = pretty('{"a":[],"b":{},"c":[1,2.50,"\\u00e9"],"d":null}')
    text = ["".join(piece for piece, _ in spans) for spans in lines]
    assert text == [
        "{",
        '  "a": [],',
        '  "b": {},',
        '  "c": [',
        "    1,",
        "    2.50,",
        '    "\\u00e9"',
        "  ],",
        '  "d": null',
        "}",
    ]
    kinds = {kind for spans in lines for _, kind in spans}
    assert {"key", "number", "string", "literal", "punct"} <= kinds


def test_a_huge_message_is_shown_from_a_bounded_prefix_with_a_marker() -> None:
    text = "lorem ipsum " * 1_000_000
    raw = update("agent_message_chunk", content={"type": "text", "text": text})
    traffic = ticking()
    traffic.line_in(raw, True)
    message = traffic.get(1)
    assert message is not None
    shown = display(message)
    assert shown.shown_bytes == DISPLAY_BYTES
    last = "".join(piece for piece, _ in shown.lines[-1])
    assert last == f"… {format_size(len(raw) - 1 - DISPLAY_BYTES)} more, truncated for display"
    assert sum(len(piece) for spans in shown.lines for piece, _ in spans) < DISPLAY_BYTES + 1000


def test_deep_nesting_is_indented_to_a_bound() -> None:
    lines = pretty("[" * 10_000)
    assert max(sum(len(piece) for piece, _ in spans) for spans in lines) <= 2 * 32 + 1


def test_the_negotiation_table_pairs_what_each_side_sent() -> None:
    traffic = ticking()
    traffic.line_out(INITIALIZE)
    assert negotiation_table(traffic.negotiation).note == "no answer yet"
    traffic.line_in(ANSWER, True)
    table = negotiation_table(traffic.negotiation)
    rows = [(row.path, row.offered, row.answered) for row in table.rows]
    assert rows == [
        ("protocolVersion", "1", "1"),
        ("info", "dsh-tui 0.1.0", "agent 2"),
        ("fs.readTextFile", "true", None),
        ("fs.writeTextFile", "true", None),
        ("terminal", "false", None),
        ("_meta.terminal_output", "false", None),
        ("loadSession", None, "true"),
        ("promptCapabilities.image", None, "false"),
        ("authMethods", None, "[]"),
    ]
    assert table.note == ""


def test_words_for_sizes_and_gaps() -> None:
    assert [format_size(n) for n in (812, 1300, 54_000, 60_000_000)] == [
        "812 B",
        "1.3 KB",
        "53 KB",
        "57.2 MB",
    ]
    assert [format_gap(s) for s in (0.0004, 0.012, 1.43, 125)] == [
        "+0ms",
        "+12ms",
        "+1.4s",
        "+2m05s",
    ]
