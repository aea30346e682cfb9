"""Paths are resolved once: the policy judges exactly the path the tool opens.

A link inside the workspace followed by `..` climbs from where the link really leads (the
kernel's view), not from the link's own directory (a lexical `normpath`). The property test
builds random trees of directories and links, inside and outside a workspace, and random
paths through them, and checks that no tool touches a path outside the workspace unless a
question was asked and answered yes.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block
from acp._transport import memory_transport_pair
from acp.core import AgentSideConnection, ClientSideConnection
from acp.schema import ClientCapabilities
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runtime_support import Connect, RecordingClient, scenario_file, scripted, select

from agent.permissions import Mode
from agent.server import AgentConfig, DshAgent
from agent.session import SessionSettings


def call(name: str, **arguments: Any) -> list[list[dict[str, Any]]]:
    return [[{"tool_call": {"name": name, "arguments": arguments}}]]


def linked_workspace(tmp_path: Path, workspace: Path) -> None:
    """`ws/a -> d1/d2/d3`, as in any cloned repo, and a secret next to the workspace."""
    (workspace / "d1" / "d2" / "d3").mkdir(parents=True)
    os.symlink("d1/d2/d3", workspace / "a")
    (workspace / "d1" / "secret.txt").write_text("inner\n")
    (tmp_path / "secret.txt").write_text("SECRET\n")


async def test_read_through_a_link_and_dotdot_opens_what_was_judged(
    connect: Connect, tmp_path: Path, workspace: Path
) -> None:
    linked_workspace(tmp_path, workspace)
    steps = call("read", file_path="a/../../secret.txt")
    async with connect(model=scripted(scenario_file(tmp_path, steps))) as harness:
        sid = await harness.new()
        await harness.prompt(sid, "go")
        text = str(harness.client.results(sid)["call_1"])
        assert harness.client.permissions() == []
    assert "SECRET" not in text
    assert "inner" in text


async def test_accept_edits_write_through_a_link_and_dotdot_stays_inside(
    connect: Connect, tmp_path: Path, workspace: Path
) -> None:
    linked_workspace(tmp_path, workspace)
    steps = call("write", file_path="a/../../secret.txt", content="overwritten\n")
    async with connect(mode="accept-edits", model=scripted(scenario_file(tmp_path, steps))) as h:
        sid = await h.new()
        await h.prompt(sid, "go")
        assert h.client.results(sid)["call_1"]["status"] == "completed"
    assert (tmp_path / "secret.txt").read_text() == "SECRET\n"
    assert (workspace / "d1" / "secret.txt").read_text() == "overwritten\n"


async def test_a_nul_byte_in_a_path_fails_that_call_only(
    connect: Connect, tmp_path: Path, workspace: Path
) -> None:
    (workspace / "ok.txt").write_text("fine\n")
    steps = [
        [
            {"tool_call": {"name": "read", "arguments": {"file_path": "a\u0000b"}}},
            {"tool_call": {"name": "read", "arguments": {"file_path": "ok.txt"}}},
            {"tool_call": {"name": "bash", "arguments": {"command": "true", "workdir": "x\u0000"}}},
            {"tool_call": {"name": "bash", "arguments": {"command": "echo a\u0000b"}}},
        ],
        [{"text": "still here"}],
    ]
    async with connect(mode="full-access", model=scripted(scenario_file(tmp_path, steps))) as h:
        sid = await h.new()
        assert await h.prompt(sid, "go") == "end_turn"
        results = h.client.results(sid)
        text = h.client.text(sid)
    assert results["call_1"]["status"] == "failed"
    assert "NUL byte" in str(results["call_1"])
    assert results["call_2"]["status"] == "completed"
    assert results["call_3"]["status"] == "failed"
    assert "NUL byte" in str(results["call_3"])
    assert results["call_4"]["status"] == "failed"
    assert "NUL byte" in str(results["call_4"])
    assert "still here" in text


# --- the property ----------------------------------------------------------------------------

INSIDE_DIRS = ["ws", "ws/d1", "ws/d1/d2", "ws/d1/d2/d3", "ws/e"]
OUTSIDE_DIRS = ["", "out", "out/o1", "out/o1/o2"]
LINK_NAMES = ["a", "b", "c"]
links = st.lists(
    st.tuples(
        st.sampled_from(INSIDE_DIRS),  # where the link lives
        st.sampled_from(LINK_NAMES),
        st.sampled_from(INSIDE_DIRS + OUTSIDE_DIRS),  # where it points
        st.booleans(),  # relative target
    ),
    min_size=1,
    max_size=8,
)
calls = st.sampled_from(
    [
        ("ask", "read"),
        ("read-only", "read"),
        ("accept-edits", "write"),
        ("accept-edits", "edit"),
        ("full-access", "bash"),  # the path is its workdir; the command writes there
    ]
)


def walk(root: Path, start: Path) -> st.SearchStrategy[list[str]]:
    """A path through the tree as the kernel walks it: each step is `..`, `.` or an entry
    (directory or link) of the directory the walk has really reached, links followed."""

    @st.composite
    def steps(draw: st.DrawFn) -> list[str]:
        here = start
        segments: list[str] = []
        for _ in range(draw(st.integers(1, 7))):
            entries = sorted(here.iterdir())
            linked = [entry.name for entry in entries if entry.is_symlink()]
            plain = [e.name for e in entries if e.is_dir() and not e.is_symlink()] + ["."]
            # Links and `..` come up often: their mixes are where lexical and real paths part.
            kind = draw(st.sampled_from(["link", "up", "dir"] if linked else ["up", "dir"]))
            choices = linked if kind == "link" else [".."] if kind == "up" else plain
            step = draw(st.sampled_from(choices))
            segments.append(step)
            here = Path(os.path.realpath(here / step))
            if not here.is_dir() or not str(here).startswith(str(root)):
                break
        return segments

    return steps()


def build_tree(root: Path, link_specs: list[tuple[str, str, str, bool]]) -> None:
    for rel in INSIDE_DIRS + OUTSIDE_DIRS:
        directory = root / rel
        directory.mkdir(parents=True, exist_ok=True)
        marker = "IN" if rel.startswith("ws") else "OUT"
        (directory / "secret.txt").write_text(f"{marker}:{rel}:old\n")
    for where, name, target, relative in link_specs:
        link = root / where / name
        if os.path.lexists(link):
            continue
        destination = root / target
        os.symlink(os.path.relpath(destination, link.parent) if relative else destination, link)


def outside_state(root: Path) -> dict[str, str]:
    """Every entry outside the workspace (links not followed), with file digests."""
    state: dict[str, str] = {}
    workspace = root / "ws"
    for directory, dirs, files in os.walk(root):
        here = Path(directory)
        if here == workspace:
            dirs.clear()
            continue
        for name in dirs + files:
            path = here / name
            if path == workspace:
                continue
            if path.is_file() and not path.is_symlink():
                state[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                state[str(path)] = "dir" if path.is_dir() else "other"
    return state


async def one_call(root: Path, aux: Path, mode: Mode, tool: str, file_path: str, yes: bool) -> bool:
    """Run one call through a real agent session; True when a question was answered yes."""
    arguments: dict[str, Any] = {"file_path": file_path}
    if tool == "bash":
        command = "touch new.txt && echo NEW >> secret.txt"
        arguments = {"command": command, "description": "d", "workdir": file_path}
    elif tool == "write":
        arguments["content"] = "NEW\n"
    elif tool == "edit":
        arguments.update(old_string="old", new_string="NEW")
    scenario = scenario_file(aux, call(tool, **arguments), name="property")
    settings_ = SessionSettings(mode, scripted(scenario), 5)
    agent = DshAgent(AgentConfig(settings_, aux / "sessions"))
    client = RecordingClient(select("allow-once" if yes else "reject-once"))
    agent_end, client_end = memory_transport_pair()
    agent_conn = AgentSideConnection(agent, agent_end)
    client_conn = ClientSideConnection(client, client_end)
    try:
        caps = ClientCapabilities(terminal=False)
        await client_conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
        sid = (await client_conn.new_session(cwd=str(root / "ws"))).session_id
        await client_conn.prompt(session_id=sid, prompt=[text_block("go")])
        result = str(client.results(sid).get("call_1", {}))
    finally:
        await agent.shutdown()
        await client_conn.close()
        await agent_conn.close()
    asked_yes = yes and bool(client.permissions())
    if tool == "read" and not asked_yes:
        assert "OUT:" not in result, result
    return asked_yes


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    link_specs=links,
    absolute=st.booleans(),
    leaf=st.sampled_from(["secret.txt", "new.txt"]),
    mode_tool=calls,
    yes=st.booleans(),
    data=st.data(),
)
def test_no_tool_touches_outside_the_workspace_without_a_yes(
    link_specs: list[tuple[str, str, str, bool]],
    absolute: bool,
    leaf: str,
    mode_tool: tuple[Mode, str],
    yes: bool,
    data: st.DataObject,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="dsh-paths-"))
    aux = Path(tempfile.mkdtemp(prefix="dsh-paths-aux-"))
    try:
        build_tree(root, link_specs)
        segments = data.draw(walk(root, root if absolute else root / "ws"), label="segments")
        mode, tool = mode_tool
        if tool == "bash":
            leaf = "."  # bash's path is a directory: its workdir
        relative = os.path.join(*segments, leaf)
        file_path = os.path.join(str(root), relative) if absolute else relative
        before = outside_state(root)
        asked_yes = asyncio.run(one_call(root, aux, mode, tool, file_path, yes))
        if not asked_yes:
            assert outside_state(root) == before, file_path
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(aux, ignore_errors=True)
