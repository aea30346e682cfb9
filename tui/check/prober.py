"""Raw bytes on a fresh agent process's pipes: what the SDK's connection would never send.

initialize, then an unknown method, a line that is not JSON and one more request (does it go
on?), then stdin closed (does it exit?). What the agent asks meanwhile is answered -32601.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from typing import Any

from dsh_common.private_files import open_private
from tui.check.robustness import EOF_GRACE_S, MALFORMED, UNKNOWN_METHOD
from tui.check.wire_log import Line, Run
from tui.launch import LaunchSpec

READ_LIMIT = 64 * 1024 * 1024


class Prober:
    def __init__(self, process: asyncio.subprocess.Process, run: Run) -> None:
        self.process = process
        self.run = run
        self.waiting: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self.eof = False

    async def send(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        self.run.line_out(data)
        stdin.write(data)
        await stdin.drain()

    async def request(self, request_id: int, method: str, params: Any, timeout: float) -> None:
        if self.eof:
            raise ConnectionError("the agent closed its stdout")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        await self.send(json.dumps(message).encode() + b"\n")
        await asyncio.wait_for(future, timeout)

    def closed(self) -> None:
        """The agent's stdout closed: nothing waiting will be answered."""
        self.eof = True
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the agent closed its stdout"))
        self.waiting.clear()

    async def read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            try:
                raw = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self.run.lines.append(Line("in", None, "(a line longer than the read limit)"))
                self.closed()
                return
            if not raw:
                self.closed()
                return
            line = Line.parse("in", raw)
            self.run.lines.append(line)
            message = line.message
            if message is None:
                continue
            if line.is_request:  # the agent asks something: not in this probe
                error = {"code": -32601, "message": "Method not found"}
                reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
                with contextlib.suppress(ConnectionError):
                    await self.send(json.dumps(reply).encode() + b"\n")
            elif line.is_response:
                future = self.waiting.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)


async def probe(spec: LaunchSpec, name: str, timeout: float) -> Run:
    run = Run(name, {})
    if spec.program is None:
        run.problem = f"{spec.argv[0]} not found"
        return run
    with open_private(spec.log_path, "ab") as log_file:
        process = await asyncio.create_subprocess_exec(
            spec.program,
            *spec.argv[1:],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log_file,
            cwd=spec.cwd,
            env={**os.environ, **dict(spec.env)},
            limit=READ_LIMIT,
        )
    prober = Prober(process, run)
    reading = asyncio.ensure_future(prober.read())
    try:
        await _steps(prober, run, timeout)
    except TimeoutError:
        run.problem = run.problem or f"no answer within {timeout:g} s"
    except (ConnectionError, OSError) as error:
        run.problem = f"the agent's pipe closed: {error}"
    finally:
        await _close(process, run)
        reading.cancel()
        with contextlib.suppress(BaseException):
            await reading
    return run


async def _steps(prober: Prober, run: Run, timeout: float) -> None:
    init = {"protocolVersion": 1, "clientCapabilities": {"terminal": False}}
    await prober.request(1, "initialize", init, timeout)
    await prober.request(2, UNKNOWN_METHOD, {}, timeout)
    await prober.send(MALFORMED)
    await prober.request(3, UNKNOWN_METHOD, {}, timeout)


async def _close(process: asyncio.subprocess.Process, run: Run) -> None:
    if process.stdin is not None and process.returncode is None:
        with contextlib.suppress(Exception):
            process.stdin.close()
            await process.stdin.wait_closed()
        run.eof_sent = run.problem is None
    try:
        run.exit_code = await asyncio.wait_for(process.wait(), EOF_GRACE_S)
    except TimeoutError:
        run.exit_code = None
        process.kill()
        await process.wait()
