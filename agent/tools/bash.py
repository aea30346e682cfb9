"""The bash tool: one fresh `bash -c` per call, its output, and the exit-status markers.

The model-facing text is the single source of truth for a run: stdout, then `[stderr]` and
stderr, then marker lines (`[timed out after Nms]`, `[killed by signal: S]`, `[exit code: N]`).
`parse_exit_status` reads the status back from that text, so the result card is derived from
the logged result alone and replays identically.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import signal as signals
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from agent.jsonvalue import JsonObject, as_object
from agent.tools.base import (
    ToolArgsError,
    ToolContext,
    ToolResult,
    arg_bool,
    arg_int,
    arg_str,
    error_text,
    require_str,
)
from agent.tools.procs import (
    Job,
    JobRegistry,
    kill_job,
    log_dir_created,
    new_token,
    remove_log_dir,
    signal_job,
    unwatched,
    watched,
)
from agent.views import (
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    TextBlock,
    ToolCallView,
    ToolResultView,
    fence_console,
)
from dsh_common.bash_markers import (
    EXIT_MARKER,
    NO_OUTPUT,
    SIGNAL_MARKER,
    STDERR_HEADING,
    at_end,
    exit_marker,
    signal_marker,
    timeout_marker,
    truncated_marker,
)
from dsh_common.private_files import open_private

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_STREAM_BYTES = 64_000
"""Bytes kept per stream: the tail, where errors and summaries usually are."""
KILL_GRACE_S = 3.0
"""How long the process group gets after SIGTERM before SIGKILL."""
PIPE_DRAIN_S = 0.5
"""After the shell exits, how long a leftover child may hold its pipes before it is killed."""
LIVE_FLUSH_S = 0.05
"""Live output is coalesced to at most one chunk per 50 ms (20 frames a second)."""
LIVE_OUTPUT_LIMIT = 256 * 1024
"""Characters streamed live per call; past this the result alone carries the (tail) output."""

log = logging.getLogger(__name__)

_BACKGROUND: set[asyncio.Task[int]] = set()


# --- the model text and its inverse --------------------------------------------------------


class ExitStatus(NamedTuple):
    """How a command ended: a signal name, or an exit code (0 when no marker is present)."""

    exit_code: int | None
    signal: str | None


def render_output(
    stdout: str,
    stderr: str,
    *,
    exit_code: int | None = 0,
    signal: str | None = None,
    timeout_ms: int | None = None,
    truncated: Sequence[str] = (),
) -> str:
    """Build the model-facing text of a finished run; `parse_exit_status` is its inverse.

    Each marker sits on its own line after the body, so the parser can anchor on a preceding
    newline and the end of the text; output that merely contains a marker-like string cannot
    be mistaken for a failure.
    """
    body = stdout
    if stderr:
        if body and not body.endswith("\n"):
            body += "\n"
        body += f"{STDERR_HEADING}\n{stderr}"
    if not body:
        body = NO_OUTPUT
    markers: list[str] = []
    if truncated:
        markers.append(truncated_marker(MAX_STREAM_BYTES, truncated))
    if timeout_ms is not None:
        markers.append(timeout_marker(timeout_ms))
    if signal is not None:
        markers.append(signal_marker(signal))
    elif exit_code:
        markers.append(exit_marker(exit_code))
    if markers:
        if not body.endswith("\n"):
            body += "\n"
        body += "\n".join(markers)
    return body


_SIGNAL_AT_END = at_end(SIGNAL_MARKER)
_EXIT_AT_END = at_end(EXIT_MARKER)


def parse_exit_status(text: str) -> ExitStatus:
    """Read the exit status back from `render_output` text (no marker means exit 0)."""
    if match := _SIGNAL_AT_END.search(text):
        return ExitStatus(None, match.group(1))
    if match := _EXIT_AT_END.search(text):
        return ExitStatus(int(match.group(1)), None)
    return ExitStatus(0, None)


# --- running a command ---------------------------------------------------------------------


class _Tail:
    """Keep the last `limit` bytes of a stream, counting what was dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buffer = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self.buffer += data
        if len(self.buffer) > 2 * self.limit:  # amortized: trim only now and then
            del self.buffer[: -self.limit]

    @property
    def truncated(self) -> bool:
        return self.total > self.limit

    def text(self) -> str:
        data = bytes(self.buffer[-self.limit :])
        if self.truncated:
            skip = 0  # a cut may land inside a UTF-8 sequence: drop its continuation bytes
            while skip < min(3, len(data)) and 0x80 <= data[skip] <= 0xBF:
                skip += 1
            data = data[skip:]
        return data.decode("utf-8", errors="replace")


class _Live:
    """Coalesce live output into chunks at a frame rate, up to a total limit."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink = sink
        self.pending: list[str] = []
        self.sent = 0
        self.stopped = False

    def feed(self, text: str) -> None:
        if text and not self.stopped:
            self.pending.append(text)

    def flush(self) -> None:
        if not self.pending or self.stopped:
            return
        text = "".join(self.pending)
        self.pending.clear()
        room = LIVE_OUTPUT_LIMIT - self.sent
        if len(text) > room:
            text = text[:room] + "\n[live output stopped here; the result shows the tail]\n"
            self.stopped = True
        self.sent += len(text)
        try:
            self.sink(text)
        except Exception:  # a broken UI sink must not kill the command or lose its result
            log.exception("live output sink failed; streaming stops for this call")
            self.stopped = True

    async def run(self) -> None:
        while True:
            await asyncio.sleep(LIVE_FLUSH_S)
            self.flush()


async def _pump(stream: asyncio.StreamReader | None, tail: _Tail, live: _Live | None) -> None:
    if stream is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while data := await stream.read(65536):
        tail.feed(data)
        if live is not None:
            live.feed(decoder.decode(data))
    if live is not None:
        live.feed(decoder.decode(b"", final=True))


async def _wait_exit(proc: asyncio.subprocess.Process) -> int:
    """Wait for the shell itself to exit, even while a leftover child holds its pipes.

    On Python 3.11 `Process.wait()` also waits for the pipes to close, so `sleep 60 &` would
    stall the call for a minute; the return code is known earlier, so poll it as a fallback.
    """
    waiter = asyncio.ensure_future(proc.wait())
    delay = 0.005
    try:
        while proc.returncode is None:
            done, _ = await asyncio.wait({waiter}, timeout=delay)
            if done:
                break
            delay = min(delay * 2, 0.1)
    finally:
        waiter.cancel()
    assert proc.returncode is not None
    return proc.returncode


def _close_transport(proc: asyncio.subprocess.Process) -> None:
    """Close the pipes now, while the loop runs.

    Exit is detected without `Process.wait()`, so asyncio would otherwise close the
    transport from the garbage collector, possibly after the loop is gone ("Event loop is
    closed"). asyncio has no public way to do this.
    """
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


_PENDING_KILLS: set[asyncio.Task[None]] = set()


def _keep(task: asyncio.Task[None]) -> None:
    """Hold a fire-and-forget task so it is not garbage-collected mid-flight."""
    _PENDING_KILLS.add(task)
    task.add_done_callback(_PENDING_KILLS.discard)


def _kill_spawned(spawn: asyncio.Future[asyncio.subprocess.Process], job: Job) -> None:
    """Kill the job of a process whose call was cancelled while it was being spawned."""
    if spawn.cancelled() or spawn.exception() is not None:
        return
    proc = spawn.result()
    job.pid = proc.pid
    watched(proc.pid)
    signal_job(job, job.members(), signals.SIGTERM)
    _keep(asyncio.ensure_future(kill_job(job, KILL_GRACE_S)))
    _keep(asyncio.ensure_future(_unwatch_when_reaped(proc)))


def _abort(job: Job) -> None:
    """The call was cancelled: SIGTERM the job now, SIGKILL what is left later."""
    signal_job(job, job.members(), signals.SIGTERM)
    _keep(asyncio.create_task(kill_job(job, KILL_GRACE_S)))


async def _unwatch_when_reaped(proc: asyncio.subprocess.Process) -> None:
    """Hand the shell's pid back to the orphan reaper once asyncio has reaped it."""
    while proc.returncode is None:
        await asyncio.sleep(0.1)
    unwatched(proc.pid)


ABORTED = "command aborted"
"""The error a cancelled command answers with, before the output it had printed."""


@dataclass(frozen=True, slots=True)
class CommandRun:
    """A finished foreground run: the model text, and whether it was aborted."""

    text: str
    aborted: bool


async def run_command(
    command: str,
    cwd: Path,
    timeout_ms: int,
    cancel: asyncio.Event,
    on_output: Callable[[str], None] | None = None,
    jobs: JobRegistry | None = None,
) -> CommandRun:
    """Run `bash -c command` in its own process group with stdin from /dev/null.

    On timeout or cancel the whole job (its group, its shell's descendants and every process
    carrying its `DSH_AGENT_JOB` token, daemons included) gets SIGTERM, then SIGKILL after the
    grace period, so nothing it started outlives the call. A command that ends normally but
    leaves something running stays in `jobs`, killed at the session's end. Raises OSError
    when bash cannot be started.
    """
    job = Job(new_token(), 0)
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            env=job.env(),
        )
    )
    try:
        # Shielded: cancelled mid-spawn, asyncio would kill only the shell and then wait for
        # its pipes, which a grandchild may hold for as long as it likes.
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        spawn.add_done_callback(lambda done: _kill_spawned(done, job))
        raise
    job.pid = proc.pid
    watched(proc.pid)
    if jobs is not None:
        jobs.add(job)
    live = _Live(on_output) if on_output is not None else None
    out, err = _Tail(MAX_STREAM_BYTES), _Tail(MAX_STREAM_BYTES)
    readers = [
        asyncio.create_task(_pump(proc.stdout, out, live)),
        asyncio.create_task(_pump(proc.stderr, err, live)),
    ]
    flusher = asyncio.create_task(live.run()) if live is not None else None
    exited = asyncio.create_task(_wait_exit(proc))
    cancelled = asyncio.create_task(cancel.wait())
    timed_out = aborted = False
    try:
        done, _ = await asyncio.wait(
            {exited, cancelled}, timeout=timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED
        )
        if exited not in done:
            aborted = cancelled in done
            timed_out = not aborted
            await kill_job(job, KILL_GRACE_S)
            await exited
        _, lingering = await asyncio.wait(readers, timeout=PIPE_DRAIN_S)
        if lingering:  # a leftover child still holds the pipes: it belongs to this command
            await kill_job(job, KILL_GRACE_S)
            _, lingering = await asyncio.wait(readers, timeout=PIPE_DRAIN_S)
            for reader in lingering:
                reader.cancel()
    except asyncio.CancelledError:
        _abort(job)
        raise
    finally:
        _keep(asyncio.ensure_future(_unwatch_when_reaped(proc)))
        cancelled.cancel()
        for task in (*readers, exited):
            if not task.done():
                task.cancel()
        if flusher is not None:
            flusher.cancel()
        _close_transport(proc)
    if live is not None:
        live.flush()
    if jobs is not None and not job.members():
        jobs.forget(job)  # nothing left running: nothing to kill at the session's end

    code = proc.returncode
    signal_name: str | None = None
    exit_code: int | None = code
    if code is not None and code < 0:
        try:
            signal_name = signals.Signals(-code).name
        except ValueError:
            signal_name = f"SIG{-code}"
        exit_code = None
    truncated = [name for name, tail in (("stdout", out), ("stderr", err)) if tail.truncated]
    text = render_output(
        out.text(),
        err.text(),
        exit_code=exit_code,
        signal=signal_name,
        timeout_ms=timeout_ms if timed_out else None,
        truncated=truncated,
    )
    return CommandRun(text, aborted)


async def start_background(
    command: str, cwd: Path, jobs: JobRegistry | None = None
) -> tuple[int, Path]:
    """Start a detached command whose combined output goes to a log file; (pid, log path).

    The job (every process it starts, daemons included) is killed at the session's end, and
    its log directory removed then. The log holds the command's output, so it is private
    (0600 in a 0700 directory, whatever the umask)."""
    log_dir = Path(tempfile.mkdtemp(prefix="dsh-bash-"))
    log_dir_created(log_dir)
    log_path = log_dir / "output.log"
    job = Job(new_token(), 0, log_dir)
    try:
        with open_private(log_path, "wb") as log_file:
            proc = await asyncio.create_subprocess_exec(
                "bash",
                "-c",
                command,
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log_file,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                env=job.env(),
            )
    except BaseException:
        remove_log_dir(log_dir)
        raise
    job.pid = proc.pid
    watched(proc.pid)
    if jobs is not None:
        jobs.add(job)

    async def reap() -> int:  # reap it when it ends, so no zombie lingers
        try:
            return await proc.wait()
        finally:
            unwatched(proc.pid)

    reaper = asyncio.create_task(reap())
    _BACKGROUND.add(reaper)
    reaper.add_done_callback(_BACKGROUND.discard)
    return proc.pid, log_path


# --- the tool ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _BashArgs:
    command: str
    description: str | None
    timeout_ms: int
    workdir: str | None
    background: bool


def _bash_args(args: Mapping[str, object]) -> _BashArgs:
    command = require_str(args, "command")
    if not command.strip():
        raise ToolArgsError("argument 'command' must not be blank")
    if "\0" in command:
        raise ToolArgsError(
            "argument 'command' contains a NUL byte, which no command line can hold"
        )
    timeout_ms = arg_int(args, "timeoutMs")
    if timeout_ms is not None and timeout_ms < 1:
        raise ToolArgsError("argument 'timeoutMs' must be a positive number of milliseconds")
    return _BashArgs(
        command,
        arg_str(args, "description", required=False) or None,
        DEFAULT_TIMEOUT_MS if timeout_ms is None else min(timeout_ms, MAX_TIMEOUT_MS),
        arg_str(args, "workdir", required=False) or None,
        arg_bool(args, "run_in_background"),
    )


class BashTool:
    """`bash {command, description, timeoutMs?, workdir?, run_in_background?}`."""

    name = "bash"
    read_only = False
    description = (
        "Run a shell command with `bash -c` in a fresh shell (no state carries over between "
        "calls) with stdin from /dev/null. Returns stdout, then stderr after a '[stderr]' "
        "line, then status lines such as '[exit code: N]' (omitted for exit 0). Output is "
        f"capped at the last {MAX_STREAM_BYTES} bytes per stream. Default timeout "
        f"{DEFAULT_TIMEOUT_MS // 1000} s, at most {MAX_TIMEOUT_MS // 1000} s. Use "
        "run_in_background for servers and watchers; their output goes to a log file. "
        "Everything a command starts is stopped when the session ends."
    )
    parameters: JsonObject = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command line to run."},
            "description": {
                "type": "string",
                "description": "What the command does in 5-10 words (shown in the UI).",
            },
            "timeoutMs": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_MS,
                "description": f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}).",
            },
            "workdir": {
                "type": "string",
                "description": "Directory to run in, absolute or relative to the session cwd.",
            },
            "run_in_background": {
                "type": "boolean",
                "description": "Start it detached and return at once (default false).",
            },
        },
        "required": ["command", "description"],
        "additionalProperties": False,
    }

    def present_call(self, args: Mapping[str, object]) -> ToolCallView | None:
        try:
            parsed = _bash_args(args)
        except ToolArgsError:
            return None
        if parsed.background:
            return GenericCallView(
                card="generic",
                title=parsed.command,
                kind="execute",
                raw_input=as_object(args),
                content=(TextBlock(parsed.description),) if parsed.description else (),
            )
        return TerminalCallView(
            card="terminal",
            title=parsed.command,
            description=parsed.description,
            cwd=parsed.workdir,
        )

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None:
        try:
            parsed = _bash_args(args)
        except ToolArgsError:
            return None
        output = result.output
        aborted = error_text(ABORTED) + "\n"
        if parsed.background or (result.is_error and not output.startswith(aborted)):
            # No terminal to show: the tool fences its own text, and there is no exit badge.
            # An error here means the command never started: rejected, refused, cancelled
            # before it ran, or a bad workdir.
            return GenericResultView(
                card="generic",
                content=(TextBlock(fence_console(output)),),
                not_run=result.is_error and not parsed.background,
            )
        headline = None
        if result.is_error:
            # Aborted while it ran: the pane shows how it ended (the kill) and for how long,
            # as for any other end, so a replay shows what the live card showed.
            output = output.removeprefix(aborted)
            headline = error_text(ABORTED)
        status = parse_exit_status(output)
        duration = result.meta.get("duration_ms") if isinstance(result.meta, dict) else None
        return TerminalResultView(
            card="terminal",
            output=output,
            exit_code=status.exit_code,
            signal=status.signal,
            duration_ms=duration if isinstance(duration, int) else None,
            headline=headline,
        )

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        try:
            parsed = _bash_args(args)
            workdir = ctx.resolve(parsed.workdir) if parsed.workdir else ctx.cwd
        except ToolArgsError as exc:
            return ToolResult.error(str(exc))
        if not workdir.is_dir():
            return ToolResult.error(f"workdir is not an existing directory: {workdir}")
        if ctx.cancel.is_set():
            return ToolResult.error(ABORTED)
        try:
            if parsed.background:
                pid, log_path = await start_background(parsed.command, workdir, ctx.jobs)
                return ToolResult(
                    f"started background task bash-{pid}; its output goes to {log_path} "
                    "(read that file to check on it)"
                )
            started = time.monotonic()
            run = await run_command(
                parsed.command, workdir, parsed.timeout_ms, ctx.cancel, ctx.on_output, ctx.jobs
            )
            duration_ms = round((time.monotonic() - started) * 1000)
        except OSError as exc:
            return ToolResult.error(f"failed to start bash: {exc.strerror or exc}")
        if run.aborted:
            # The output so far goes with the error: the user saw it scroll (or, without live
            # output, sees it only here), and the model should know how far it got.
            return ToolResult.error(f"{ABORTED}\n{run.text}", meta={"duration_ms": duration_ms})
        # The run's duration is logged with the result, so a replayed card shows the same one.
        return ToolResult(run.text, meta={"duration_ms": duration_ms})
