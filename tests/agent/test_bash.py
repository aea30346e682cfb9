"""The bash tool: markers and their inverse, presentation, and real processes."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.tools import bash as bash_module
from agent.tools import procs
from agent.tools.base import ToolContext, ToolResult
from agent.tools.bash import (
    MAX_STREAM_BYTES,
    BashTool,
    ExitStatus,
    parse_exit_status,
    render_output,
)
from agent.views import (
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    TextBlock,
)
from support import cancel_once_written

bash = BashTool()


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep SIGKILL escalation quick so the suite stays fast (behaviour is the same)."""
    monkeypatch.setattr(bash_module, "KILL_GRACE_S", 0.3)


def run_args(command: str, **extra: object) -> dict[str, object]:
    return {"command": command, "description": "test", **extra}


# --- the model text and parse_exit_status ----------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"stdout": "x\n", "stderr": "", "exit_code": 7}, "x\n[exit code: 7]"),
        (
            {"stdout": "", "stderr": "", "signal": "SIGKILL"},
            "(no output)\n[killed by signal: SIGKILL]",
        ),
        ({"stdout": "", "stderr": "", "timeout_ms": 1000}, "(no output)\n[timed out after 1000ms]"),
        (
            {"stdout": "", "stderr": "", "timeout_ms": 1000, "signal": "SIGTERM"},
            "(no output)\n[timed out after 1000ms]\n[killed by signal: SIGTERM]",
        ),
        (
            {"stdout": "tail", "stderr": "", "truncated": ["stdout"]},
            f"tail\n[output truncated; kept the last {MAX_STREAM_BYTES} bytes of stdout]",
        ),
        ({"stdout": "out", "stderr": "err"}, "out\n[stderr]\nerr"),
        (
            {"stdout": "out\n", "stderr": "err\n", "exit_code": 1},
            "out\n[stderr]\nerr\n[exit code: 1]",
        ),
        ({"stdout": "", "stderr": "only err\n"}, "[stderr]\nonly err\n"),
        ({"stdout": "hi\n", "stderr": ""}, "hi\n"),
        ({"stdout": "", "stderr": ""}, "(no output)"),
    ],
)
def test_render_output(kwargs: dict[str, object], text: str) -> None:
    assert render_output(**kwargs) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "status"),
    [
        ({"exit_code": 0}, ExitStatus(0, None)),
        ({"exit_code": 7}, ExitStatus(7, None)),
        ({"signal": "SIGTERM", "exit_code": None}, ExitStatus(None, "SIGTERM")),
        ({"timeout_ms": 50, "exit_code": 0}, ExitStatus(0, None)),  # a trapped timeout exiting 0
    ],
)
def test_round_trip_cases(kwargs: dict[str, object], status: ExitStatus) -> None:
    assert parse_exit_status(render_output("out\n", "", **kwargs)) == status  # type: ignore[arg-type]


@given(
    stdout=st.text(),
    stderr=st.text(),
    exit_code=st.integers(0, 255),
    signal=st.one_of(st.none(), st.sampled_from(["SIGTERM", "SIGKILL", "SIGSEGV"])),
    timeout_ms=st.one_of(st.none(), st.integers(1, 600_000)),
    truncated=st.sampled_from([(), ("stdout",), ("stdout", "stderr")]),
)
def test_parse_is_the_exact_inverse_of_render(
    stdout: str,
    stderr: str,
    exit_code: int,
    signal: str | None,
    timeout_ms: int | None,
    truncated: tuple[str, ...],
) -> None:
    text = render_output(
        stdout,
        stderr,
        exit_code=exit_code,
        signal=signal,
        timeout_ms=timeout_ms,
        truncated=truncated,
    )
    expected = ExitStatus(None, signal) if signal else ExitStatus(exit_code, None)
    assert parse_exit_status(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "[exit code: 5]",
        "x[exit code: 5]",
        "[killed by signal: SIGTERM]",
        "x\n[exit code: 5]\n",
        "ok",
    ],
)
def test_marker_like_output_is_not_a_failure(text: str) -> None:
    assert parse_exit_status(text) == ExitStatus(0, None)


# --- presentation ----------------------------------------------------------------------------


def test_present_call_terminal_and_background() -> None:
    assert bash.present_call(run_args("ls", workdir="/abs")) == TerminalCallView(
        card="terminal", title="ls", description="test", cwd="/abs"
    )
    assert bash.present_call(run_args("ls", workdir="rel")) == TerminalCallView(
        card="terminal", title="ls", description="test", cwd="rel"
    )
    assert bash.present_call(run_args("serve", run_in_background=True)) == GenericCallView(
        card="generic",
        title="serve",
        kind="execute",
        raw_input={"command": "serve", "description": "test", "run_in_background": True},
        content=(TextBlock("test"),),
    )


def test_present_result_keeps_the_raw_output() -> None:
    view = bash.present_result(run_args("x"), ToolResult("hi\n[exit code: 0]\n\n"))
    assert view == TerminalResultView(card="terminal", output="hi\n[exit code: 0]\n\n", exit_code=0)
    failed = bash.present_result(run_args("x"), ToolResult("oops\n[exit code: 3]"))
    assert failed == TerminalResultView(card="terminal", output="oops\n[exit code: 3]", exit_code=3)
    killed = bash.present_result(
        run_args("x"), ToolResult("(no output)\n[killed by signal: SIGINT]")
    )
    assert isinstance(killed, TerminalResultView)
    assert (killed.exit_code, killed.signal) == (None, "SIGINT")


def test_present_result_reads_the_logged_duration() -> None:
    """The run's duration is logged in the result's meta and read back on replay."""
    view = bash.present_result(run_args("x"), ToolResult("hi\n", meta={"duration_ms": 5500}))
    assert view == TerminalResultView(card="terminal", output="hi\n", exit_code=0, duration_ms=5500)


def test_present_result_errors_and_background_are_fenced() -> None:
    assert bash.present_result(run_args("x"), ToolResult.error("command aborted")) == (
        GenericResultView(
            card="generic",
            content=(TextBlock("```console\nError: command aborted\n```"),),
            not_run=True,  # aborted before it started
        )
    )
    ack = ToolResult("started background task bash-1\n")
    assert bash.present_result(run_args("x", run_in_background=True), ack) == GenericResultView(
        card="generic", content=(TextBlock("```console\nstarted background task bash-1\n```"),)
    )


# --- real processes --------------------------------------------------------------------------


def untimed(result: ToolResult) -> ToolResult:
    """The result without its measured duration (checked to be there: whole milliseconds)."""
    assert isinstance(result.meta, dict) and set(result.meta) == {"duration_ms"}
    assert isinstance(result.meta["duration_ms"], int) and result.meta["duration_ms"] >= 0
    return ToolResult(result.output, result.is_error)


async def test_exit_zero(tmp_path: Path) -> None:
    result = await bash.execute(run_args("echo hi"), ToolContext(tmp_path))
    assert untimed(result) == ToolResult("hi\n")


async def test_exit_three_is_not_an_error(tmp_path: Path) -> None:
    result = await bash.execute(run_args("echo oops; exit 3"), ToolContext(tmp_path))
    assert untimed(result) == ToolResult("oops\n[exit code: 3]")


async def test_stderr_is_reported_after_stdout(tmp_path: Path) -> None:
    result = await bash.execute(run_args("echo err >&2; echo out"), ToolContext(tmp_path))
    assert result.output == "out\n[stderr]\nerr\n"


async def test_killed_by_a_signal(tmp_path: Path) -> None:
    result = await bash.execute(run_args("echo before; kill -KILL $$"), ToolContext(tmp_path))
    assert result.output == "before\n[killed by signal: SIGKILL]"
    assert parse_exit_status(result.output) == ExitStatus(None, "SIGKILL")


async def test_timeout(tmp_path: Path) -> None:
    result = await bash.execute(
        run_args("echo start; sleep 30", timeoutMs=300), ToolContext(tmp_path)
    )
    assert not result.is_error
    assert result.output == "start\n[timed out after 300ms]\n[killed by signal: SIGTERM]"


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie awaiting its reaper does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


async def wait_dead(pids: list[int]) -> list[int]:
    for _ in range(100):
        survivors = [pid for pid in pids if alive(pid)]
        if not survivors:
            return []
        await asyncio.sleep(0.05)
    return survivors


async def test_timeout_kills_the_whole_process_tree(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = (
        f"(sleep 60 & echo $! >> {pids}; wait) & "
        f"(trap '' TERM; sleep 60 & echo $! >> {pids}; wait) & "
        f"echo $$ >> {pids}; wait"
    )
    result = await bash.execute(run_args(command, timeoutMs=400), ToolContext(tmp_path))
    assert "[timed out after 400ms]" in result.output
    recorded = [int(line) for line in pids.read_text().split()]
    assert len(recorded) == 3
    assert await wait_dead(recorded) == []


async def test_a_trapped_sigterm_escalates_to_sigkill(tmp_path: Path) -> None:
    result = await bash.execute(
        run_args("trap '' TERM; echo stubborn; sleep 30", timeoutMs=200), ToolContext(tmp_path)
    )
    assert result.output == "stubborn\n[timed out after 200ms]\n[killed by signal: SIGKILL]"


async def test_cancel_aborts_and_kills_the_group(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    pid_file = tmp_path / "pid"
    canceller = asyncio.create_task(cancel_once_written(pid_file, ctx.cancel))
    result = await bash.execute(run_args(f"sleep 60 & echo $! > {pid_file}; wait"), ctx)
    await canceller
    aborted = "Error: command aborted\n(no output)\n[killed by signal: SIGTERM]"
    assert untimed(result) == ToolResult(aborted, True)
    assert await wait_dead([int(pid_file.read_text())]) == []


def test_the_shell_is_signalled_before_the_rest_of_its_job(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A child killed first could end before the shell's own signal is pending: a shell in a
    # bare `wait` would then exit 0 and the run would read as a clean exit, not the kill.
    sent: list[int] = []
    monkeypatch.setattr(procs.os, "kill", lambda pid, sig: sent.append(pid))
    procs.signal_job(procs.Job("token", 1007), {1000, 1001, 1002, 1007}, signal.SIGTERM)
    assert sent[0] == 1007
    assert sorted(sent) == [1000, 1001, 1002, 1007]


async def test_already_cancelled_never_starts(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    ctx.cancel.set()
    result = await bash.execute(run_args(f"touch {tmp_path}/ran"), ctx)
    assert result == ToolResult("Error: command aborted", True)
    assert not (tmp_path / "ran").exists()


async def test_task_cancellation_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(
        bash.execute(run_args(f"sleep 60 & echo $! > {pid_file}; wait"), ToolContext(tmp_path))
    )
    while not pid_file.exists() or not pid_file.read_text().strip():
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_dead([int(pid_file.read_text())]) == []


async def test_a_leftover_child_holding_the_pipes_does_not_hang_the_call(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    result = await bash.execute(
        run_args(f"sleep 60 & echo $! > {pid_file}; echo started"), ToolContext(tmp_path)
    )
    assert untimed(result) == ToolResult("started\n")
    assert await wait_dead([int(pid_file.read_text())]) == []


async def test_output_keeps_the_tail_of_each_stream(tmp_path: Path) -> None:
    command = (
        "head -c 100000 /dev/zero | tr '\\0' a; echo END; head -c 70000 /dev/zero | tr '\\0' b >&2"
    )
    result = await bash.execute(run_args(command), ToolContext(tmp_path))
    stdout, rest = result.output.split("[stderr]\n")
    assert stdout == "a" * (MAX_STREAM_BYTES - 4) + "END\n"
    assert rest == (
        "b" * MAX_STREAM_BYTES
        + f"\n[output truncated; kept the last {MAX_STREAM_BYTES} bytes of stdout and stderr]"
    )


async def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    chunks: list[str] = []
    ctx = ToolContext(tmp_path, on_output=chunks.append)
    result = await bash.execute(run_args(r"printf 'ok \xff\xfe done\n'"), ctx)
    assert result.output == "ok \ufffd\ufffd done\n"
    assert "".join(chunks) == result.output


async def test_stdin_is_dev_null(tmp_path: Path) -> None:
    result = await bash.execute(run_args("cat; echo done"), ToolContext(tmp_path))
    assert result.output == "done\n"


async def test_workdir_resolves_against_the_session_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    ctx = ToolContext(tmp_path)
    assert (await bash.execute(run_args("pwd", workdir="sub"), ctx)).output == f"{tmp_path}/sub\n"
    assert (await bash.execute(run_args("pwd"), ctx)).output == f"{tmp_path}\n"
    assert (await bash.execute(run_args("pwd", workdir="/"), ctx)).output == "/\n"
    missing = await bash.execute(run_args("pwd", workdir="nope"), ctx)
    assert missing == ToolResult(
        f"Error: workdir is not an existing directory: {tmp_path}/nope", True
    )


async def test_each_call_gets_a_fresh_shell(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    await bash.execute(run_args("export DSH_X=1; cd /"), ctx)
    result = await bash.execute(run_args('echo "[${DSH_X:-unset}] $PWD"'), ctx)
    assert result.output == f"[unset] {tmp_path}\n"


async def test_live_output_reaches_on_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bash_module, "LIVE_FLUSH_S", 3600.0)  # only the final flush
    chunks: list[str] = []
    ctx = ToolContext(tmp_path, on_output=chunks.append)
    result = await bash.execute(run_args("for i in $(seq 500); do echo $i; done"), ctx)
    assert chunks == [result.output]  # coalesced into one chunk


async def test_live_output_arrives_while_running(tmp_path: Path) -> None:
    seen = asyncio.Event()
    ctx = ToolContext(tmp_path, on_output=lambda data: seen.set())
    flag = tmp_path / "go"
    task = asyncio.create_task(
        bash.execute(run_args(f"echo first; while [ ! -e {flag} ]; do sleep 0.02; done"), ctx)
    )
    await asyncio.wait_for(seen.wait(), 60)  # a hang guard, not a timing assertion
    # The first chunk arrived while the command was still waiting for the flag.
    assert not task.done()
    flag.touch()
    assert (await task).output == "first\n"


async def test_live_output_is_limited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bash_module, "LIVE_OUTPUT_LIMIT", 100)
    chunks: list[str] = []
    ctx = ToolContext(tmp_path, on_output=chunks.append)
    await bash.execute(run_args("head -c 5000 /dev/zero | tr '\\0' z"), ctx)
    live = "".join(chunks)
    assert live == "z" * 100 + "\n[live output stopped here; the result shows the tail]\n"


async def test_background_run(tmp_path: Path) -> None:
    result = await bash.execute(
        run_args("echo from-bg", run_in_background=True), ToolContext(tmp_path)
    )
    assert result.output.startswith("started background task bash-")
    log_path = Path(result.output.split(" goes to ")[1].split(" (")[0])
    for _ in range(200):
        if log_path.exists() and log_path.read_text() == "from-bg\n":
            break
        await asyncio.sleep(0.02)
    assert log_path.read_text() == "from-bg\n"


async def test_a_background_log_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        result = await bash.execute(
            run_args("echo secret-output", run_in_background=True), ToolContext(tmp_path)
        )
    finally:
        os.umask(old_umask)
    log_path = Path(result.output.split(" goes to ")[1].split(" (")[0])
    assert log_path.parent.name.startswith("dsh-bash-")
    assert stat.S_IMODE(log_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(log_path.parent.stat().st_mode) == 0o700


async def test_argument_errors(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    assert (await bash.execute({"command": " "}, ctx)).output == (
        "Error: argument 'command' must not be blank"
    )
    assert (await bash.execute(run_args("ls", timeoutMs=0), ctx)).is_error


def test_timeout_default_and_cap() -> None:
    assert bash_module._bash_args(run_args("x")).timeout_ms == 120_000
    assert bash_module._bash_args(run_args("x", timeoutMs=10**9)).timeout_ms == 600_000


def test_bash_is_on_path() -> None:
    assert any(os.access(os.path.join(d, "bash"), os.X_OK) for d in os.environ["PATH"].split(":"))


async def test_a_failing_output_sink_does_not_break_the_command(tmp_path: Path) -> None:
    def broken(data: str) -> None:
        raise RuntimeError("ui went away")

    result = await bash.execute(
        run_args("echo still here"), ToolContext(tmp_path, on_output=broken)
    )
    assert untimed(result) == ToolResult("still here\n")
