"""The ACP registry's agents: pinned commands, what can run here, and `--agent` resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.catalogue.build_snapshot import read_checkout
from tui.catalogue.choice import choose_agent
from tui.catalogue.registry import (
    bundled,
    launches,
    parse_registry,
    pinned_npm,
    pinned_pypi,
    platform_key,
)
from tui.user_config import parse

REGISTRY = {
    "version": "1.0.0",
    "agents": [
        {
            "id": "npm-agent",
            "name": "Npm Agent",
            "version": "1.2.3",
            "description": "d",
            "distribution": {
                "npx": {"package": "@acme/agent", "args": ["--acp"], "env": {"A": "1"}}
            },
        },
        {
            "id": "py-agent",
            "name": "Py Agent",
            "version": "0.4.0",
            "distribution": {"uvx": {"package": "py-agent@latest", "cmd": "py-acp"}},
        },
        {
            "id": "bin-agent",
            "name": "Bin Agent",
            "version": "2.0.0",
            "distribution": {
                "binary": {
                    "linux-x86_64": {
                        "archive": "https://x/a.tar.gz",
                        "cmd": "./bin",
                        "args": ["acp"],
                    }
                }
            },
        },
        {"id": "broken", "name": "no version"},
    ],
}


def present(name: str) -> str | None:
    return f"/usr/bin/{name}"


def absent(name: str) -> str | None:
    return None


def test_npm_and_pypi_packages_are_pinned_to_the_agent_version() -> None:
    assert pinned_npm("@acme/agent", "1.2.3") == "@acme/agent@1.2.3"
    assert pinned_npm("@acme/agent@latest", "1.2.3") == "@acme/agent@1.2.3"
    assert pinned_npm("agent@0.9.0", "1.2.3") == "agent@0.9.0"
    assert pinned_npm("agent", "1.2.3") == "agent@1.2.3"
    assert pinned_pypi("tool", "0.4.0") == "tool==0.4.0"
    assert pinned_pypi("tool@latest", "0.4.0") == "tool==0.4.0"
    assert pinned_pypi("tool==0.3", "0.4.0") == "tool==0.3"


def test_each_distribution_gives_an_exact_command(tmp_path: Path) -> None:
    registry = parse_registry(REGISTRY)
    assert [agent.id for agent in registry.agents] == ["bin-agent", "npm-agent", "py-agent"]
    (npx,) = launches(registry.agents[1], tmp_path, present, "linux-x86_64")
    assert npx.argv == ("npx", "--yes", "@acme/agent@1.2.3", "--acp")
    assert npx.env == (("A", "1"),) and npx.runnable
    (uvx,) = launches(registry.agents[2], tmp_path, absent, "linux-x86_64")
    assert uvx.argv == ("uvx", "--from", "py-agent==0.4.0", "py-acp")
    assert not uvx.runnable and uvx.why == "uvx is not installed"


def test_a_binary_runs_once_installed_and_only_for_its_platform(tmp_path: Path) -> None:
    agent = parse_registry(REGISTRY).agents[0]
    (missing,) = launches(agent, tmp_path, present, "linux-x86_64")
    program = tmp_path / "agents" / "bin-agent" / "2.0.0" / "bin"
    assert missing.argv == (str(program), "acp") and not missing.runnable
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    (installed,) = launches(agent, tmp_path, present, "linux-x86_64")
    assert installed.runnable
    (elsewhere,) = launches(agent, tmp_path, present, "darwin-aarch64")
    assert not elsewhere.runnable and elsewhere.why == "no binary for darwin-aarch64"


def test_platform_names_follow_the_registry() -> None:
    assert platform_key("Linux", "x86_64") == "linux-x86_64"
    assert platform_key("Darwin", "arm64") == "darwin-aarch64"


def test_agent_names_a_named_agent_then_a_registry_id_then_a_command(tmp_path: Path) -> None:
    registry = parse_registry(REGISTRY)
    config = parse('[agents.npm-agent]\ncommand = "mine"\nenv = {K = "v"}\nmode = "m"\n', Path("c"))
    named = choose_agent("npm-agent", config, registry, tmp_path, present)
    assert (named.origin, named.argv, named.env, named.mode) == (
        "named agent",
        ("mine",),
        (("K", "v"),),
        "m",
    )
    plain = parse("", Path("c"))
    listed = choose_agent("npm-agent", plain, registry, tmp_path, present)
    assert listed.origin == "registry"
    assert listed.command_line == "npx --yes @acme/agent@1.2.3 --acp"
    typed = choose_agent("my-agent --flag 'a b'", plain, registry, tmp_path, present)
    assert typed.argv == ("my-agent", "--flag", "a b") and typed.origin == "command line"
    with pytest.raises(ValueError):
        choose_agent("  ", plain, registry, tmp_path, present)


def test_the_bundled_snapshot_is_dated_and_never_runs_latest(tmp_path: Path) -> None:
    registry = bundled()
    assert registry.date and registry.agents
    for agent in registry.agents:
        for launch in launches(agent, tmp_path, present):
            assert "latest" not in " ".join(launch.argv).lower()


def test_the_snapshot_builder_reads_a_checkout(tmp_path: Path) -> None:
    for folder, entry in (("npm-agent", REGISTRY["agents"][0]), ("_hidden", REGISTRY["agents"][1])):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "agent.json").write_text(json.dumps(entry))
    data = read_checkout(tmp_path)
    assert [agent["id"] for agent in data["agents"]] == ["npm-agent"]
    assert data["snapshot"]["date"]
