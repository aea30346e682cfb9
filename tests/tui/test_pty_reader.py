"""How a pty terminal's output is read from the relay's pipe (tui/terminal/pty_spawn.py
`_MasterReader`):
a read after a quiet spell is handed on at once, a pipeful is handed on in one append, and
after a small read reading pauses, so a stream does not wake the app for every 4 KiB the pty
gives; after a big one it reads on, so the pipe never fills while the app is the slower side.

The reader is driven directly with a stand-in transport, so each step is an event the test
makes happen; the last test runs a real command on a pty."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from tui.terminal.pty_spawn import _MasterReader, _Relay
from tui.terminal.terminals import ExitStatus, TerminalManager

TIMEOUT = 15  # a safety net against hangs only
PAUSE_S = 0.005


class Term:
    """Stands in for the TerminalProcess: records what is handed on."""

    def __init__(self) -> None:
        self.appended: list[bytes] = []
        self.arrived = asyncio.Event()

    def append(self, data: bytes) -> None:
        self.appended.append(data)
        self.arrived.set()

    def output_ended(self) -> None:
        pass


class Pipe(asyncio.ReadTransport):
    """Stands in for asyncio's read transport of the relay's pipe."""

    max_size = 256 * 1024  # asyncio's

    def __init__(self) -> None:
        super().__init__()
        self.paused = False
        self.closing = False

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def is_reading(self) -> bool:
        return not self.paused

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True


class RelayProcess:
    """Stands in for the relay's subprocess transport."""

    def close(self) -> None:
        pass


def reader() -> tuple[_MasterReader, Term, Pipe]:
    term, pipe = Term(), Pipe()
    relay: Any = RelayProcess()
    made = _MasterReader(term, relay, _Relay(), PAUSE_S)  # type: ignore[arg-type]
    made.connection_made(pipe)
    return made, term, pipe


async def end(made: _MasterReader) -> None:
    """The relay exited and its pipe closed: the output ends."""
    made.relay_exited.process_exited()
    made.eof_received()
    made.connection_lost(None)
    assert made.ending is not None
    async with asyncio.timeout(TIMEOUT):
        await made.ending


async def test_a_read_after_a_quiet_spell_is_handed_on_at_once() -> None:
    made, term, pipe = reader()
    made.data_received(b"hi\n")
    # Handed on in the same call: an echo waits for no timer.
    assert term.appended == [b"hi\n"]
    # Then reading pauses, so that what comes next gathers in the pipe...
    assert pipe.paused and made.resume_timer is not None
    made.resume_timer.cancel()
    made.resume()
    # ...and resumes after the pause.
    assert not pipe.paused and made.resume_timer is None
    made.data_received(b"again\n")
    assert term.appended == [b"hi\n", b"again\n"]
    await end(made)


async def test_a_pipeful_is_handed_on_in_one_append() -> None:
    made, term, pipe = reader()
    full = [bytes([65 + n]) * Pipe.max_size for n in range(3)]
    for data in full:
        made.data_received(data)  # a full read: the pipe may hold more
    assert term.appended == [] and not pipe.paused
    made.data_received(b"tail\n")  # a short read: the pipe is drained
    assert term.appended == [b"".join(full) + b"tail\n"]
    assert pipe.paused
    await end(made)


async def test_after_a_big_read_reading_goes_on() -> None:
    made, term, pipe = reader()
    big = b"z" * _MasterReader.SMALL_READ
    made.data_received(big)  # drained the pipe, but it held a lot: the app is the slower side
    assert term.appended == [big]
    assert not pipe.paused and made.resume_timer is None
    await end(made)


async def test_a_full_read_followed_by_silence_is_handed_on_after_the_pause() -> None:
    made, term, _ = reader()
    made.data_received(b"x" * Pipe.max_size)
    assert term.appended == []
    async with asyncio.timeout(TIMEOUT):
        await term.arrived.wait()  # the flush timer, one pause later
    assert term.appended == [b"x" * Pipe.max_size]
    await end(made)


async def test_what_is_read_before_the_end_is_handed_on() -> None:
    made, term, _ = reader()
    made.data_received(b"y" * Pipe.max_size)
    await end(made)
    assert term.appended == [b"y" * Pipe.max_size]
    assert made.flush_timer is None and made.resume_timer is None


async def test_output_keeps_flowing_across_pauses_on_a_real_pty(tmp_path: Path) -> None:
    """A command prints a line, waits, prints another: each shows while the command still
    runs, so reading resumed after each pause."""
    gates = [tmp_path / "one", tmp_path / "two"]
    for gate in gates:
        os.mkfifo(gate)
    code = (
        "import sys\n"
        "for n, gate in enumerate(sys.argv[1:]):\n"
        "    print(f'line {n}', flush=True)\n"
        "    open(gate).read()\n"
        "print('done')\n"
    )
    manager = TerminalManager()
    try:
        tid = await manager.create(sys.executable, ["-c", code, *map(str, gates)])
        seen: list[str] = []
        changed = asyncio.Event()

        def on_output(text: str) -> None:
            seen.append(text)
            changed.set()

        manager.subscribe(tid, on_output)
        async with asyncio.timeout(TIMEOUT):
            for n, gate in enumerate(gates):
                while f"line {n}\n" not in "".join(seen):
                    changed.clear()
                    await changed.wait()
                assert manager.output(tid).exit_status is None  # still running
                with open(gate, "w") as go:
                    go.write("go")
            assert await manager.wait_for_exit(tid) == ExitStatus(0, None)
        assert "".join(seen) == "line 0\nline 1\ndone\n"
    finally:
        async with asyncio.timeout(TIMEOUT):
            await manager.close_all()
