"""The conformance checks of `dsh-tui check` on small hand-written records (no process)."""

from __future__ import annotations

from typing import Any

from tui.check.battery import evaluate
from tui.check.methods import check_method
from tui.check.report import table
from tui.check.robustness import check_malformed_line, check_stdin_closed
from tui.check.schema import check_schema
from tui.check.session_checks import check_cancel, check_handshake
from tui.check.tool_calls import check_finished, check_status_forward
from tui.check.wire_log import Line, Run

SESSION = "s1"


def out(request_id: Any, method: str, **params: Any) -> Line:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        message["id"] = request_id
    return Line.of("out", message)


def answer(request_id: Any, result: Any = None, error: Any = None) -> Line:
    body = {"error": error} if error is not None else {"result": result if result else {}}
    return Line.of("in", {"jsonrpc": "2.0", "id": request_id, **body})


def update(**fields: Any) -> Line:
    params = {"sessionId": SESSION, "update": fields}
    return Line.of("in", {"jsonrpc": "2.0", "method": "session/update", "params": params})


def opened(init: dict[str, Any] | None = None, session: dict[str, Any] | None = None) -> list[Line]:
    return [
        out(1, "initialize", protocolVersion=1),
        answer(1, {"protocolVersion": 1, **(init or {})}),
        out(2, "session/new", cwd="/w", mcpServers=[]),
        answer(2, {"sessionId": SESSION, **(session or {})}),
    ]


def call(call_id: str, status: str, kind: str = "tool_call") -> Line:
    return update(sessionUpdate=kind, toolCallId=call_id, title="t", status=status)


def run_of(*lines: Line, name: str = "all") -> Run:
    return Run(name, {"terminal": True}, list(lines))


def test_a_field_the_sdk_would_repair_is_a_schema_violation() -> None:
    # `locations` items must be objects with a path: the SDK drops a bad one silently.
    bad = update(sessionUpdate="tool_call", toolCallId="c", title="t", locations=[{"line": 1}])
    result = check_schema([run_of(*opened(), bad)])
    assert result.status == "fail"
    assert "line 5" in result.evidence and "path" in result.evidence
    unknown_fields = update(sessionUpdate="tool_call", toolCallId="c", title="t", future=1)
    meta = update(sessionUpdate="plan", entries=[], _meta={"x": [1]})
    assert check_schema([run_of(*opened(), unknown_fields, meta)]).status == "pass"


def test_status_backward_and_a_final_status_changed_fail() -> None:
    assert (
        check_status_forward(
            [
                run_of(
                    call("c", "pending"),
                    call("c", "in_progress", "tool_call_update"),
                    call("c", "completed", "tool_call_update"),
                )
            ]
        ).status
        == "pass"
    )
    changed = run_of(call("c", "failed"), call("c", "completed", "tool_call_update"))
    result = check_status_forward([changed])
    assert result.status == "fail" and "from failed to completed" in result.evidence


def test_calls_open_at_a_cancelled_turn_end_are_the_clients_to_mark() -> None:
    cancelled = [
        out(3, "session/prompt", sessionId=SESSION, prompt=[]),
        call("c", "in_progress"),
        out(None, "session/cancel", sessionId=SESSION),
        answer(3, {"stopReason": "cancelled"}),
    ]
    assert check_finished([run_of(*opened(), *cancelled)]).status == "pass"
    ended = [*cancelled[:2], answer(3, {"stopReason": "end_turn"})]
    result = check_finished([run_of(*opened(), *ended)])
    assert result.status == "fail" and "'c' (in_progress)" in result.evidence


def test_an_update_after_the_cancelled_answer_fails_cancel() -> None:
    turn = [
        out(3, "session/prompt", sessionId=SESSION, prompt=[]),
        out(None, "session/cancel", sessionId=SESSION),
        answer(3, {"stopReason": "cancelled"}),
    ]
    assert check_cancel([run_of(*opened(), *turn)]).status == "pass"
    late = run_of(
        *opened(),
        *turn,
        update(sessionUpdate="agent_message_chunk", content={"type": "text", "text": "late"}),
    )
    result = check_cancel([late])
    assert result.status == "fail" and "agent_message_chunk after" in result.evidence
    assert check_cancel([run_of(*opened())]).status == "skipped"


def test_a_load_that_replays_other_tool_calls_fails() -> None:
    init = {"agentCapabilities": {"loadSession": True}}
    live = [
        out(3, "session/prompt", sessionId=SESSION, prompt=[]),
        call("a", "completed"),
        answer(3, {"stopReason": "end_turn"}),
    ]
    load = out(4, "session/load", sessionId=SESSION, cwd="/w", mcpServers=[])
    same = run_of(*opened(init), *live, load, call("a", "completed"), answer(4))
    assert check_method(same, "session/load").status == "pass"
    other = run_of(*opened(init), *live, load, call("b", "completed"), answer(4))
    result = check_method(other, "session/load")
    assert result.status == "fail" and "not replayed: a" in result.evidence
    not_offered = run_of(*opened(), load, answer(4, error={"code": -32601, "message": "nf"}))
    assert check_method(not_offered, "session/load").evidence.startswith("not advertised")


def test_robustness_reads_the_probers_record() -> None:
    silent = Run(
        "robustness",
        {},
        [
            Line.parse("out", b"{oops\n"),
            Line.of("out", {"jsonrpc": "2.0", "id": 3, "method": "x"}),
            answer(3, error={"code": -32601, "message": "nf"}),
        ],
    )
    assert check_malformed_line(silent).status == "fail"
    parse_error = answer(None, error={"code": -32700, "message": "Parse error"})
    answered = Run("robustness", {}, [*silent.lines[:1], parse_error, *silent.lines[1:]])
    assert check_malformed_line(answered).status == "pass"
    assert check_schema([answered]).status == "pass"  # an id-null error answers no request
    lingering = Run("robustness", {}, eof_sent=True, exit_code=None)
    assert check_stdin_closed(lingering).status == "fail"


def test_a_wrong_protocol_version_or_auth_method_fails_the_handshake() -> None:
    wrong = run_of(out(1, "initialize", protocolVersion=1), answer(1, {"protocolVersion": 2}))
    assert "protocolVersion 2" in check_handshake([wrong]).evidence
    bad_auth = run_of(
        out(1, "initialize", protocolVersion=1),
        answer(1, {"protocolVersion": 1, "authMethods": [{"id": "x"}]}),
    )
    result = check_handshake([bad_auth])
    assert result.status == "fail" and "authMethods[0]" in result.evidence


def test_an_agent_that_needs_a_login_skips_what_needs_a_session() -> None:
    locked = run_of(out(1, "initialize", protocolVersion=1), answer(1, {"protocolVersion": 1}))
    locked.needs_login = "auth_required; its auth methods: oauth (agent)"
    statuses = {each.check: each.status for each in evaluate([locked])}
    assert statuses["handshake"] == "pass" and statuses["session"] == "skipped"
    assert statuses["tool calls: unique ids"] == "skipped" and statuses["cancel"] == "skipped"
    assert "fail" not in statuses.values()


def test_evidence_never_carries_an_escape_sequence() -> None:
    hostile = update(
        sessionUpdate="tool_call",
        toolCallId="\x1b[2J\x1b]0;pwned\x07c",
        title="t",
        status="pending",
    )
    again = update(
        sessionUpdate="tool_call",
        toolCallId="\x1b[2J\x1b]0;pwned\x07c",
        title="t",
        status="pending",
    )
    results = evaluate([run_of(*opened(), hostile, again)])
    shown = table(results)
    assert "\x1b" not in shown and "\x07" not in shown
    assert any(each.status == "fail" and "made again" in each.evidence for each in results)
