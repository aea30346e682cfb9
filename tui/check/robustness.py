"""What the agent does with what it should refuse: an unknown method, a line that is not
JSON, and its stdin closing. Read off the raw prober's record (`prober`)."""

from __future__ import annotations

from tui.check.results import Result
from tui.check.wire_log import Run
from tui.check.wire_view import exchanges

UNKNOWN_METHOD = "dsh-check/no_such_method"
MALFORMED = b'{"jsonrpc": "2.0", "id": 99, "method": \n'
EOF_GRACE_S = 5.0
UNKNOWN, MALFORMED_LINE, STDIN = (
    "robustness: unknown method",
    "robustness: malformed line",
    "robustness: stdin closed",
)


def check_unknown_method(run: Run) -> Result:
    probe = next((each for each in exchanges(run) if each.method == UNKNOWN_METHOD), None)
    if probe is None:
        return Result.skipped(UNKNOWN, run.problem or "not probed")
    if probe.answer is None:
        return Result.failed(UNKNOWN, f"no answer to {UNKNOWN_METHOD}")
    error = probe.error
    if error is None:
        return Result.failed(UNKNOWN, f"{UNKNOWN_METHOD} answered with a result, not -32601")
    if error.get("code") != -32601:
        return Result.failed(UNKNOWN, f"{UNKNOWN_METHOD} answered {error.get('code')}, not -32601")
    return Result.passed(UNKNOWN, "-32601 method not found")


def check_malformed_line(run: Run) -> Result:
    sent = next(
        (i for i, line in enumerate(run.lines) if line.direction == "out" and line.message is None),
        None,
    )
    if sent is None:
        return Result.skipped(MALFORMED_LINE, run.problem or "not probed")
    after = [each for each in exchanges(run) if each.index > sent]
    answered = next(
        (
            line.message
            for line in run.lines[sent + 1 :]
            if line.direction == "in"
            and line.is_response
            and line.message is not None
            and isinstance(line.message.get("error"), dict)
            and line.message["error"].get("code") in (-32700, -32600)
        ),
        None,
    )
    if answered is None:
        return Result.failed(MALFORMED_LINE, "no -32700 or -32600 answer to a malformed line")
    if not after or after[0].answer_index is None:
        return Result.failed(MALFORMED_LINE, "no answer to the next request after it")
    code = answered["error"]["code"]
    return Result.passed(MALFORMED_LINE, f"answered {code}, then the next request")


def check_stdin_closed(run: Run) -> Result:
    if not run.eof_sent:
        return Result.skipped(STDIN, run.problem or "not probed")
    if run.exit_code is None:
        return Result.failed(STDIN, f"still running {EOF_GRACE_S:g} s after its stdin closed")
    return Result.passed(STDIN, f"exited with status {run.exit_code} once its stdin closed")


def robustness_checks(run: Run) -> list[Result]:
    return [check_unknown_method(run), check_malformed_line(run), check_stdin_closed(run)]
