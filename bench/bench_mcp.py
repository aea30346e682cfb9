"""Time from `session/new` to its answer (the session ready) with 0, 1 and 5 MCP servers.

    .venv/bin/python bench/bench_mcp.py [--runs 5] [--delay 1.0]

A real `dsh-agent` on pipes; each server is a real stdio MCP server (the SDK's server API)
that waits `--delay` seconds before serving, as a server that connects to something first
would. The agent connects a session's servers in parallel, so five should take about as long
as the slowest one, not five times one. Prints the median of `--runs` sessions per count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVER = """\
import sys, time
time.sleep(float(sys.argv[1]))
from mcp.server.mcpserver import MCPServer
server = MCPServer("bench")

@server.tool()
def echo(text: str) -> str:
    return text

server.run()
"""


class Agent:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    async def request(self, method: str, params: dict[str, object]) -> dict[str, object]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()
        while True:
            line = await self.process.stdout.readline()
            assert line, "the agent exited"
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                assert "result" in reply, reply
                result: dict[str, object] = reply["result"]
                return result


async def main(runs: int, delay: float) -> None:
    with tempfile.TemporaryDirectory() as root:
        server = Path(root) / "server.py"
        server.write_text(SERVER)
        work = Path(root) / "work"
        work.mkdir()
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent.cli",
            "--session-dir",
            str(Path(root) / "sessions"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=str(REPO),
        )
        agent = Agent(process)
        await agent.request("initialize", {"protocolVersion": 1})
        spec = {"command": sys.executable, "args": [str(server), str(delay)], "env": []}
        print(f"session/new to ready, median of {runs} (servers wait {delay:g} s first)")
        for count in (0, 1, 5):
            servers = [{**spec, "name": f"s{n}"} for n in range(count)]
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                await agent.request("session/new", {"cwd": str(work), "mcpServers": servers})
                times.append(time.perf_counter() - started)
            print(
                f"  {count} server(s): {statistics.median(times):6.3f} s"
                f"  (min {min(times):.3f}, max {max(times):.3f})"
            )
        assert process.stdin is not None
        process.stdin.close()
        await process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delay", type=float, default=1.0)
    options = parser.parse_args()
    asyncio.run(main(options.runs, options.delay))
