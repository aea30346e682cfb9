"""TerminalManager against real processes: exit statuses, kill escalation, trees, limits.

The `mgr` tests run twice, on a pty (the default) and on a pipe (`pty=False`); the pty's own
promises (colour, isatty, bytes unchanged, stdin at EOF) are at the end."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.terminal.terminals import (
    MARKER_VARIABLE,
    MAX_LIVE_TERMINALS,
    ExitStatus,
    TerminalError,
    TerminalManager,
    TerminalSpawnError,
    UnknownTerminalError,
    exit_status_from_returncode,
    needs_shell,
    truncate_utf8_head,
)

# A safety net against hangs only; no test asserts on durations.
TIMEOUT = 15

PY = sys.executable
# Prints "ready" once SIGTERM is ignored, so the kill cannot race the handler installation.
IGNORE_TERM = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.fixture(params=[True, False], ids=["pty", "pipe"])
async def mgr(request: pytest.FixtureRequest) -> AsyncIterator[TerminalManager]:
    manager = TerminalManager(kill_grace=0.3, drain_timeout=0.2, pty=request.param)
    try:
        yield manager
    finally:
        async with asyncio.timeout(TIMEOUT):
            await manager.close_all()


def replayed(mgr: TerminalManager, tid: str) -> str:
    """The output a pane created now would be given (a released terminal's included)."""
    seen: list[str] = []
    mgr.subscribe(tid, seen.append)()
    return "".join(seen)


async def wait_for_text(mgr: TerminalManager, tid: str, needle: str) -> str:
    """Wait, through a listener, until the output contains `needle`."""
    seen: list[str] = []
    found = asyncio.Event()

    def on_output(text: str) -> None:
        seen.append(text)
        if needle in "".join(seen):
            found.set()

    unsubscribe = mgr.subscribe(tid, on_output)
    try:
        async with asyncio.timeout(TIMEOUT):
            await found.wait()
    finally:
        unsubscribe()
    return "".join(seen)


def is_dead(pid: int) -> bool:
    """Gone from the process table, or a zombie nobody reaped yet (it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


def live_group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in "ZX":
            members.append(int(entry.name))
    return members


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


# ---------------------------------------------------------------------------- exit statuses
@pytest.mark.parametrize("code", [0, 3, 255])
async def test_exit_codes(mgr: TerminalManager, code: int) -> None:
    tid = await mgr.create("sh", ["-c", f"echo out; echo err >&2; exit {code}"])
    async with asyncio.timeout(TIMEOUT):
        status = await mgr.wait_for_exit(tid)
    assert status == ExitStatus(code, None)
    output = mgr.output(tid)
    assert output.exit_status == ExitStatus(code, None)
    assert not output.truncated
    assert sorted(output.output.splitlines()) == ["err", "out"]  # stderr is merged


async def test_sigterm_is_reported_as_a_signal_name(mgr: TerminalManager) -> None:
    tid = await mgr.create("sleep", ["60"])
    assert mgr.output(tid).exit_status is None
    async with asyncio.timeout(TIMEOUT):
        await mgr.kill(tid)
        assert await mgr.wait_for_exit(tid) == ExitStatus(None, "SIGTERM")
    assert mgr.output(tid).exit_status == ExitStatus(None, "SIGTERM")


async def test_term_ignored_escalates_to_sigkill(mgr: TerminalManager) -> None:
    tid = await mgr.create(PY, ["-c", IGNORE_TERM])
    await wait_for_text(mgr, tid, "ready")
    async with asyncio.timeout(TIMEOUT):
        await mgr.kill(tid)
    status = mgr.output(tid).exit_status
    assert status == ExitStatus(None, "SIGKILL")
    assert is_dead(mgr.info(tid).pid)


def test_exit_status_mapping() -> None:
    assert exit_status_from_returncode(0) == ExitStatus(0, None)
    assert exit_status_from_returncode(137) == ExitStatus(137, None)
    assert exit_status_from_returncode(-15) == ExitStatus(None, "SIGTERM")
    assert exit_status_from_returncode(-9) == ExitStatus(None, "SIGKILL")
    assert exit_status_from_returncode(-200) == ExitStatus(None, "SIG200")


# ---------------------------------------------------------------------------- process trees
@needs_proc
async def test_kill_reaches_the_whole_tree(mgr: TerminalManager) -> None:
    script = "sleep 60 & echo child $!; sh -c 'sleep 60 & echo grandchild $!; wait' & wait"
    tid = await mgr.create("sh", ["-c", script])
    text = await wait_for_text(mgr, tid, "grandchild")
    pids = [int(line.split()[1]) for line in text.splitlines() if line.strip()]
    assert len(pids) == 2
    pgid = mgr.info(tid).pid
    assert set(pids) <= set(live_group_members(pgid))
    async with asyncio.timeout(TIMEOUT):
        await mgr.kill(tid)
    assert all(is_dead(pid) for pid in [pgid, *pids])
    assert live_group_members(pgid) == []


@needs_proc
@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid(1)")
async def test_kill_reaches_a_child_that_left_the_group(mgr: TerminalManager) -> None:
    # The child announces itself only after setsid, so the check below cannot race it.
    tid = await mgr.create("setsid sh -c 'echo escaped $$; exec sleep 60' & sleep 60")
    text = await wait_for_text(mgr, tid, "escaped")
    escaped = int(text.split()[1])
    assert os.getpgid(escaped) != mgr.info(tid).pid
    async with asyncio.timeout(TIMEOUT):
        await mgr.kill(tid)
    assert is_dead(escaped)


@needs_proc
async def test_children_ignoring_term_are_killed_too(mgr: TerminalManager) -> None:
    # The leader dies on SIGTERM but leaves a child that ignores it: the SIGKILL sweep gets it.
    script = f'{PY} -c "{IGNORE_TERM}" & sleep 60'
    tid = await mgr.create(script)
    await wait_for_text(mgr, tid, "ready")
    pgid = mgr.info(tid).pid
    async with asyncio.timeout(TIMEOUT):
        await mgr.kill(tid)
    assert live_group_members(pgid) == []


@needs_proc
async def test_close_all_kills_everything(mgr: TerminalManager) -> None:
    first = await mgr.create("sleep 60 & sleep 60")
    second = await mgr.create(PY, ["-c", IGNORE_TERM])
    await wait_for_text(mgr, second, "ready")
    groups = [mgr.info(first).pid, mgr.info(second).pid]
    async with asyncio.timeout(TIMEOUT):
        await mgr.close_all()
    assert all(live_group_members(pgid) == [] for pgid in groups)
    assert mgr.info(first).released and mgr.info(second).released
    assert replayed(mgr, second) == "ready\n"  # still readable for the UI


# ---------------------------------------------------------------------------- wait, kill, release
async def test_wait_resolves_after_kill(mgr: TerminalManager) -> None:
    tid = await mgr.create("sleep", ["60"])
    waiter = asyncio.create_task(mgr.wait_for_exit(tid))
    await asyncio.sleep(0)
    assert not waiter.done()
    async with asyncio.timeout(TIMEOUT):
        await mgr.kill(tid)
        assert await waiter == ExitStatus(None, "SIGTERM")
        # Waiting again, and killing again, after the fact.
        assert await mgr.wait_for_exit(tid) == ExitStatus(None, "SIGTERM")
        await mgr.kill(tid)


async def test_release_kills_and_invalidates_but_keeps_output(mgr: TerminalManager) -> None:
    tid = await mgr.create("echo started; sleep 60")
    await wait_for_text(mgr, tid, "started")
    exits: list[ExitStatus] = []
    mgr.subscribe(tid, lambda _text: None, exits.append)
    async with asyncio.timeout(TIMEOUT):
        await mgr.release(tid)
    assert exits == [ExitStatus(None, "SIGTERM")]
    assert is_dead(mgr.info(tid).pid)
    assert mgr.info(tid).released
    for call in (mgr.output, mgr.wait_for_exit, mgr.kill, mgr.release):
        with pytest.raises(UnknownTerminalError, match="already released"):
            result = call(tid)
            if asyncio.iscoroutine(result):
                await result
    assert mgr.info(tid).exit_status == ExitStatus(None, "SIGTERM")
    # A late subscriber (a card rendered after release) still gets everything.
    replayed: list[str] = []
    replayed_exit: list[ExitStatus] = []
    mgr.subscribe(tid, replayed.append, replayed_exit.append)
    assert replayed == ["started\n"]
    assert replayed_exit == [ExitStatus(None, "SIGTERM")]


async def test_released_output_that_nothing_follows_is_bounded() -> None:
    mgr = TerminalManager(released_bytes_limit=10)
    try:
        first = await mgr.create("printf", ["%s", "1234567"])
        second = await mgr.create("printf", ["%s", "abcdefg"])
        unsubscribe = mgr.subscribe(second, lambda _text: None)  # a pane follows the second
        async with asyncio.timeout(TIMEOUT):
            for tid in (first, second):
                await mgr.wait_for_exit(tid)
                await mgr.release(tid)
        # 14 bytes, over the limit, but the second is followed: its pane may be rebuilt.
        assert (replayed(mgr, first), replayed(mgr, second)) == ("1234567", "abcdefg")
        unsubscribe()  # nothing follows either now: the oldest lets go of its output
        assert (replayed(mgr, first), replayed(mgr, second)) == ("", "abcdefg")
        assert mgr.info(first).exit_status == ExitStatus(0, None)  # the rest is kept
    finally:
        await mgr.close_all()


async def test_release_after_exit_keeps_the_exit_code(mgr: TerminalManager) -> None:
    tid = await mgr.create("sh", ["-c", "exit 3"])
    async with asyncio.timeout(TIMEOUT):
        await mgr.wait_for_exit(tid)
        await mgr.release(tid)
    assert mgr.info(tid).exit_status == ExitStatus(3, None)


async def test_unknown_id_is_a_clear_key_error(mgr: TerminalManager) -> None:
    with pytest.raises(KeyError) as info:
        mgr.output("term-nope")
    assert isinstance(info.value, UnknownTerminalError)
    assert str(info.value) == "Terminal with id 'term-nope' not found (no such terminal)"
    with pytest.raises(UnknownTerminalError):
        await mgr.wait_for_exit("term-nope")


async def test_wait_for_exit_is_not_blocked_by_a_background_child(mgr: TerminalManager) -> None:
    # The child keeps the pipe open; the command itself has exited, so wait must return.
    tid = await mgr.create("sleep 60 & echo done")
    async with asyncio.timeout(TIMEOUT):
        assert await mgr.wait_for_exit(tid) == ExitStatus(0, None)
    assert mgr.output(tid).output == "done\n"


# ---------------------------------------------------------------------------- output handling
TEXT = "aé€😀" * 4  # 1-, 2-, 3- and 4-byte characters


async def test_truncation_keeps_the_tail_at_a_character_boundary(mgr: TerminalManager) -> None:
    data = TEXT.encode()
    for limit in range(len(data) + 2):
        tid = await mgr.create("printf", ["%s", TEXT], output_byte_limit=limit)
        async with asyncio.timeout(TIMEOUT):
            await mgr.wait_for_exit(tid)
        out = mgr.output(tid)
        assert len(out.output.encode()) <= limit
        assert len(out.output.encode()) > limit - 4  # no more than one character lost
        assert TEXT.endswith(out.output)
        assert "\ufffd" not in out.output
        assert out.truncated == (limit < len(data))


async def test_large_output_is_bounded() -> None:
    manager = TerminalManager(max_buffer_bytes=1000)
    tid = await manager.create(PY, ["-c", "import sys; sys.stdout.write('x' * 1_000_000 + 'END')"])
    async with asyncio.timeout(TIMEOUT):
        await manager.wait_for_exit(tid)
    out = manager.output(tid)
    assert out.truncated
    assert len(out.output) == 1000
    assert out.output.endswith("END")
    await manager.close_all()


@given(st.text(), st.integers(0, 64))
def test_truncate_utf8_head(text: str, limit: int) -> None:
    data = text.encode()
    kept = truncate_utf8_head(data, limit)
    assert data.endswith(kept)
    assert len(kept) <= limit or kept == data
    assert len(kept) > min(limit, len(data)) - 4
    assert text.endswith(kept.decode())  # starts on a boundary: decodes strictly


async def test_invalid_utf8_is_replaced(mgr: TerminalManager) -> None:
    tid = await mgr.create("printf", ["ok \\377\\376 end \\342\\202"])  # ends mid-character
    chunks: list[str] = []
    mgr.subscribe(tid, chunks.append)
    async with asyncio.timeout(TIMEOUT):
        await mgr.wait_for_exit(tid)
    expected = "ok \ufffd\ufffd end \ufffd"
    assert mgr.output(tid).output == expected
    assert "".join(chunks) == expected


async def test_listener_gets_a_seamless_stream_across_split_characters(
    mgr: TerminalManager,
) -> None:
    # Write one 4-byte character in two flushes: the listener must never see a broken half.
    code = (
        "import sys, time\n"
        "b = '😀'.encode()\n"
        "sys.stdout.buffer.write(b'start ' + b[:2]); sys.stdout.flush(); time.sleep(0.05)\n"
        "sys.stdout.buffer.write(b[2:] + b' end'); sys.stdout.flush()\n"
    )
    tid = await mgr.create(PY, ["-c", code])
    chunks: list[str] = []
    mgr.subscribe(tid, chunks.append)
    async with asyncio.timeout(TIMEOUT):
        await mgr.wait_for_exit(tid)
    assert "".join(chunks) == "start 😀 end"
    assert all("\ufffd" not in chunk for chunk in chunks)


async def test_subscribe_replays_then_streams_without_gaps(mgr: TerminalManager) -> None:
    code = "import time; print('one', flush=True); time.sleep(0.05); print('two')"
    tid = await mgr.create(PY, ["-c", code])
    first = await wait_for_text(mgr, tid, "one")
    assert first.startswith("one")
    got: list[str] = []
    mgr.subscribe(tid, got.append)
    async with asyncio.timeout(TIMEOUT):
        await mgr.wait_for_exit(tid)
    assert "".join(got) == "one\ntwo\n"


async def test_listener_errors_do_not_break_the_pump(mgr: TerminalManager) -> None:
    def broken(_text: str) -> None:
        raise RuntimeError("listener bug")

    tid = await mgr.create("echo", ["hello"])
    mgr.subscribe(tid, broken, replay=False)
    async with asyncio.timeout(TIMEOUT):
        assert await mgr.wait_for_exit(tid) == ExitStatus(0, None)
    assert mgr.output(tid).output == "hello\n"


# ---------------------------------------------------------------------------- how it runs
def test_shell_selection() -> None:
    assert needs_shell("echo hi && ls", None)
    assert needs_shell("ls|wc -l", [])
    assert needs_shell("~/bin/tool", [])
    assert not needs_shell("ls", [])
    assert not needs_shell("echo", ["a b"])
    assert not needs_shell("echo hi", ["x"])  # args given: a program name, even with a space


async def test_shell_line_vs_exec(mgr: TerminalManager, tmp_path: Path) -> None:
    shell_line = await mgr.create("echo $((1 + 2)) | tr 3 X")
    literal = await mgr.create("echo", ["$((1 + 2))", "|", "tr"])
    script = tmp_path / "my script.sh"
    script.write_text("#!/bin/sh\necho 'ran the file'\n")
    script.chmod(0o755)
    spaced_path = await mgr.create(str(script))
    async with asyncio.timeout(TIMEOUT):
        for tid in (shell_line, literal, spaced_path):
            await mgr.wait_for_exit(tid)
    assert mgr.output(shell_line).output == "X\n"
    assert mgr.info(shell_line).via_shell
    assert mgr.output(literal).output == "$((1 + 2)) | tr\n"
    assert not mgr.info(literal).via_shell
    assert mgr.output(spaced_path).output == "ran the file\n"
    assert not mgr.info(spaced_path).via_shell


async def test_env_cwd_and_stdin(mgr: TerminalManager, tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "print(os.getcwd(), os.environ['DSH_X'], 'PATH' in os.environ, sys.stdin.read() == '')"
    )
    tid = await mgr.create(PY, ["-c", code], env={"DSH_X": "from agent"}, cwd=tmp_path)
    async with asyncio.timeout(TIMEOUT):
        assert await mgr.wait_for_exit(tid) == ExitStatus(0, None)
    assert mgr.output(tid).output == f"{tmp_path.resolve()} from agent True True\n"
    info = mgr.info(tid)
    assert info.cwd == str(tmp_path)
    assert info.finished_at is not None and info.finished_at >= info.started_at


async def test_own_process_group_and_session(mgr: TerminalManager) -> None:
    code = "import os; print(os.getpgrp() == os.getpid() == os.getsid(0))"
    tid = await mgr.create(PY, ["-c", code])
    async with asyncio.timeout(TIMEOUT):
        await mgr.wait_for_exit(tid)
    assert mgr.output(tid).output == "True\n"


async def test_default_cwd(tmp_path: Path) -> None:
    manager = TerminalManager(default_cwd=tmp_path)
    tid = await manager.create("pwd", ["-P"])
    async with asyncio.timeout(TIMEOUT):
        await manager.wait_for_exit(tid)
    assert manager.output(tid).output == f"{tmp_path.resolve()}\n"
    await manager.close_all()


async def test_spawn_errors_are_clear(mgr: TerminalManager, tmp_path: Path) -> None:
    with pytest.raises(TerminalSpawnError, match="No such file or directory"):
        await mgr.create("definitely-not-a-program-dsh")
    with pytest.raises(TerminalSpawnError, match="working directory"):
        await mgr.create("ls", cwd=tmp_path / "missing")
    with pytest.raises(ValueError, match="empty"):
        await mgr.create("  ")
    with pytest.raises(ValueError, match="negative"):
        await mgr.create("ls", output_byte_limit=-1)
    assert mgr.terminal_ids() == []


# ---------------------------------------------------------------------------- hardening
def test_double_forked_daemons_die_with_kill_release_and_close(tmp_path: Path) -> None:
    """In a process of its own that is a child subreaper, as dsh-tui is: both daemon shapes,
    each under kill, release and close_all, leave no survivor and no marked process."""
    import json
    import subprocess

    probe = Path(__file__).with_name("daemon_probe.py")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [PY, str(probe), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    survivors = [name for name, alive in report["survivors"].items() if alive]
    for pidfile in tmp_path.glob("*.pid"):  # never leave a daemon behind, pass or fail
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert len(report["survivors"]) == 6
    assert survivors == []
    assert report["marked_after_close"] == []


async def test_live_terminals_are_capped(mgr: TerminalManager) -> None:
    mgr.max_live = 3
    ids = [await mgr.create("sleep", ["30"]) for _ in range(3)]
    with pytest.raises(TerminalError, match="too many terminals: 3 are open, the limit is 3"):
        await mgr.create("sleep", ["30"])
    await mgr.release(ids[0])
    ids.append(await mgr.create("true"))  # a released one frees its place
    assert MAX_LIVE_TERMINALS == 64


async def test_concurrent_creates_cannot_pass_the_cap(mgr: TerminalManager) -> None:
    """The place is taken before the spawn awaits: 100 creates at once get exactly the cap."""
    mgr.max_live = 8
    results = await asyncio.gather(
        *(mgr.create("sleep", ["30"]) for _ in range(100)), return_exceptions=True
    )
    created = [result for result in results if isinstance(result, str)]
    refused = [result for result in results if isinstance(result, TerminalError)]
    assert (len(created), len(refused)) == (8, 92)
    assert len(mgr.terminal_ids()) == 8
    # A create that fails to start gives its place back.
    await mgr.release(created[0])
    with pytest.raises(TerminalSpawnError):
        await mgr.create("true", cwd="no-such-dir")
    await mgr.create("true")


async def test_the_users_terminals_are_not_the_agents(mgr: TerminalManager) -> None:
    """`!` commands get ids of their own, outside the agent's, and a count of their own."""
    mgr.max_live = 2
    agent = [await mgr.create("sleep", ["30"]) for _ in range(2)]
    user = await mgr.create("sleep", ["30"], by_user=True)  # the agent's cap is full
    assert agent == ["term-1", "term-2"] and user == "user-1"
    assert [mgr.agent_owns(tid) for tid in (*agent, user, "term-9")] == [True, True, False, False]
    assert mgr.knows(user)
    assert mgr.terminal_ids(agent_only=True) == agent


async def test_close_all_scans_proc_once_not_once_per_terminal(
    mgr: TerminalManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh_common import proc_tree

    for _ in range(12):
        await mgr.create("sleep", ["30"])
    scans = 0
    real = proc_tree.scan

    def counted() -> proc_tree.ProcTable | None:
        nonlocal scans
        scans += 1
        return real()

    monkeypatch.setattr(proc_tree, "scan", counted)
    async with asyncio.timeout(TIMEOUT):
        await mgr.close_all()
    assert scans == 1
    assert all(
        mgr.info(tid).exit_status is not None for tid in mgr.terminal_ids(include_released=True)
    )


async def test_the_agent_cannot_override_the_terminal_marker(mgr: TerminalManager) -> None:
    tid = await mgr.create("sh", ["-c", f"echo ${MARKER_VARIABLE}"], {MARKER_VARIABLE: "forged"})
    await mgr.wait_for_exit(tid)
    text = mgr.output(tid).output
    assert "forged" not in text and text.strip().endswith(f"/{tid}")


# ---------------------------------------------------------------------------- on a pty
@pytest.fixture
async def pty_mgr() -> AsyncIterator[TerminalManager]:
    manager = TerminalManager(kill_grace=0.3, drain_timeout=0.2)
    try:
        yield manager
    finally:
        async with asyncio.timeout(TIMEOUT):
            await manager.close_all()


async def run(mgr: TerminalManager, command: str, *args: str, **kwargs: object) -> str:
    tid = await mgr.create(command, list(args), **kwargs)  # type: ignore[arg-type]
    async with asyncio.timeout(TIMEOUT):
        assert await mgr.wait_for_exit(tid) == ExitStatus(0, None)
    return mgr.output(tid).output


async def test_ls_colours_a_directory_on_a_pty(pty_mgr: TerminalManager, tmp_path: Path) -> None:
    (tmp_path / "subdir").mkdir()
    (tmp_path / "file.txt").write_text("x")
    env = {"LS_COLORS": "di=01;34", "LC_ALL": "C"}
    output = await run(pty_mgr, "ls", "--color=auto", cwd=tmp_path, env=env)
    assert "\x1b[01;34msubdir\x1b[0m" in output
    assert "file.txt" in output
    piped = TerminalManager(pty=False)
    assert "\x1b[" not in await run(piped, "ls", "--color=auto", cwd=tmp_path, env=env)
    await piped.close_all()


async def test_stdout_and_stderr_are_a_tty_stdin_is_not(pty_mgr: TerminalManager) -> None:
    code = "import sys; print(sys.stdout.isatty(), sys.stderr.isatty(), sys.stdin.isatty())"
    assert await run(pty_mgr, PY, "-c", code) == "True True False\n"
    assert await run(pty_mgr, PY, "-c", "import sys; print(sys.stdout.isatty())") == "True\n"


async def test_the_commands_bytes_come_back_unchanged(pty_mgr: TerminalManager) -> None:
    assert await run(pty_mgr, "printf", "a\\nb\\n") == "a\nb\n"  # no \r\n
    assert await run(pty_mgr, "printf", "crlf\\r\\n\\tx\\r") == "crlf\r\n\tx\r"


async def test_line_discipline_adds_nothing(pty_mgr: TerminalManager) -> None:
    # What the command sees on its tty: no output processing, no echo, no signal characters.
    code = (
        "import termios\n"
        "_, oflag, _, lflag, _, _, _ = termios.tcgetattr(1)\n"
        "print(oflag & (termios.OPOST | termios.ONLCR),"
        " lflag & (termios.ECHO | termios.ECHOCTL | termios.ISIG | termios.ICANON))"
    )
    assert await run(pty_mgr, PY, "-c", code) == "0 0\n"
    # A command that interrupts itself: its pane gets no `^C`. It restores SIGINT's default
    # first: a test worker may run with SIGINT ignored, which a shell would inherit and keep.
    interrupt = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
        "sys.stdout.write('before')\n"
        "sys.stdout.flush()\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "print('after')"
    )
    tid = await pty_mgr.create(PY, ["-c", interrupt])
    async with asyncio.timeout(TIMEOUT):
        assert await pty_mgr.wait_for_exit(tid) == ExitStatus(None, "SIGINT")
    assert pty_mgr.output(tid).output == "before"


async def test_stdin_is_at_eof_at_once(pty_mgr: TerminalManager) -> None:
    assert await run(pty_mgr, "cat") == ""  # reads stdin until EOF
    code = "import sys; print(repr(sys.stdin.read()), repr(sys.stdin.read()))"
    assert await run(pty_mgr, PY, "-c", code) == "'' ''\n"
    assert await run(pty_mgr, "sh", "-c", "read line; echo $?") == "1\n"


async def test_the_pty_is_not_a_controlling_terminal(pty_mgr: TerminalManager) -> None:
    # A prompt on /dev/tty fails at once, as on a pipe, instead of waiting for ever.
    code = (
        "import errno, os\n"
        "try:\n"
        "    os.open('/dev/tty', os.O_RDWR)\n"
        "except OSError as error:\n"
        "    print(error.errno == errno.ENXIO)\n"
    )
    assert await run(pty_mgr, PY, "-c", code) == "True\n"


async def test_term_size_and_env_on_a_pty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = (
        "import os, shutil\n"
        "size = shutil.get_terminal_size()\n"  # COLUMNS and LINES first, then the tty's size
        "print(os.environ['TERM'], size.columns, size.lines, os.environ['PAGER'])"
    )
    # What the user's shell may export for dsh-tui's own terminal must not reach the command.
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("LINES", "60")
    mgr = TerminalManager()
    try:
        assert await run(mgr, PY, "-c", code) == "xterm-256color 120 50 cat\n"
        mgr.pty_size = (72, 30)  # the pane's width, when the client knows it
        env = {"TERM": "dumb", "PAGER": "less"}  # the agent's env goes on top
        assert await run(mgr, PY, "-c", code, env=env) == "dumb 72 30 less\n"
        env = {"COLUMNS": "99"}  # even for the size
        assert await run(mgr, PY, "-c", code, env=env) == "xterm-256color 99 30 cat\n"
    finally:
        await mgr.close_all()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_does_not_wait_on_a_pager(pty_mgr: TerminalManager, tmp_path: Path) -> None:
    # isatty(stdout) makes git page a log longer than the screen with `less`, which no one
    # could quit here: the pty's environment says PAGER=cat.
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    message = "\n".join(f"line {i}" for i in range(100))
    who = ["-c", "user.name=Test", "-c", "user.email=test@example.com"]
    await run(pty_mgr, "git", "init", "-q", cwd=tmp_path, env=env)
    await run(
        pty_mgr, "git", *who, "commit", "-q", "--allow-empty", "-m", message, cwd=tmp_path, env=env
    )
    output = await run(pty_mgr, "git", "log", "--format=%B", cwd=tmp_path, env=env)
    assert output.splitlines()[:100] == message.splitlines()


async def test_a_terminal_is_timed_with_the_managers_clock() -> None:
    # The app's configuration hands its clock down, so a fixed one gives a fixed duration.
    ticks = iter([10.0, 12.5])
    manager = TerminalManager(pty=False, clock=lambda: next(ticks))
    try:
        tid = await manager.create("true")
        async with asyncio.timeout(TIMEOUT):
            await manager.wait_for_exit(tid)
        info = manager.info(tid)
        assert (info.started_at, info.finished_at) == (10.0, 12.5)
    finally:
        async with asyncio.timeout(TIMEOUT):
            await manager.close_all()
