"""The ACP registry's agents, and the exact command each one runs as on this machine.

The registry's format (its FORMAT.md): `{"version", "agents": [{id, name, version, description,
distribution: {npx|uvx: {package, cmd?, args?, env?}, binary: {PLATFORM: {archive, cmd, args?,
env?}}}}]}`. npx and uvx packages always run at the agent's version, never `@latest`: a bare
package name gets the version, and `@latest` is replaced by it. Pure: no Textual, no SDK.
"""

from __future__ import annotations

import json
import platform
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

SNAPSHOT_FILE = "registry-snapshot.json"
Kind = Literal["npx", "uvx", "binary"]
KINDS: tuple[Kind, ...] = ("npx", "uvx", "binary")


class RegistryError(ValueError):
    """The registry's JSON is not in the registry's format."""


@dataclass(frozen=True)
class RegistryAgent:
    id: str
    name: str
    version: str
    description: str
    distribution: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Registry:
    """The agents, with where the list came from and the date it was taken."""

    agents: tuple[RegistryAgent, ...]
    date: str
    source: str

    def get(self, agent_id: str) -> RegistryAgent | None:
        return next((agent for agent in self.agents if agent.id == agent_id), None)


@dataclass(frozen=True)
class Launch:
    """The command an agent runs as, and whether it can run here (`why` says why not)."""

    kind: Kind
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    runnable: bool = True
    why: str = ""


def parse_registry(data: Any, date: str = "", source: str = "") -> Registry:
    """Raises RegistryError when `data` is not the registry's top-level object. Agents missing
    an id, a name or a version are left out; unknown fields are kept out of the way."""
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise RegistryError("not an ACP registry: no agents list")
    agents: list[RegistryAgent] = []
    for entry in data["agents"]:
        if not isinstance(entry, dict):
            continue
        fields = [entry.get(key) for key in ("id", "name", "version")]
        if not all(isinstance(value, str) and value for value in fields):
            continue
        distribution = entry.get("distribution")
        agents.append(
            RegistryAgent(
                entry["id"],
                entry["name"],
                entry["version"],
                str(entry.get("description") or ""),
                distribution if isinstance(distribution, dict) else {},
            )
        )
    snapshot = data.get("snapshot")
    if isinstance(snapshot, dict):
        date = date or str(snapshot.get("date") or "")
        source = source or str(snapshot.get("source") or "")
    return Registry(tuple(sorted(agents, key=lambda agent: agent.id)), date, source)


def bundled() -> Registry:
    """The snapshot shipped with dsh-tui."""
    text = resources.files("tui.catalogue").joinpath(SNAPSHOT_FILE).read_text(encoding="utf-8")
    return parse_registry(json.loads(text))


def platform_key(system: str | None = None, machine: str | None = None) -> str:
    """The registry's name for this platform: `linux-x86_64`, `darwin-aarch64`, ..."""
    system = (system or platform.system()).lower()
    machine = (machine or platform.machine()).lower()
    machine = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{system}-{machine}"


def pinned_npm(package: str, version: str) -> str:
    """`name@version` for a bare `name` or `name@latest`; a package with a version is kept."""
    scope, _, rest = package.partition("/") if package.startswith("@") else ("", "", package)
    name, at, given = rest.partition("@")
    if at and given and given.lower() != "latest":
        return package
    pinned = f"{name}@{version}"
    return f"{scope}/{pinned}" if scope else pinned


def pinned_pypi(package: str, version: str) -> str:
    """`name==version` unless the package already names one (`==`, `@` or another specifier)."""
    if package.lower().endswith("@latest"):
        package = package[: -len("@latest")]
    if any(mark in package for mark in ("=", "@", "<", ">", "~")):
        return package
    return f"{package}=={version}"


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return ()


def _env(value: Any) -> tuple[tuple[str, str], ...]:
    if isinstance(value, dict):
        return tuple((str(key), str(item)) for key, item in value.items())
    return ()


def binary_dir(data_dir: Path, agent: RegistryAgent) -> Path:
    """Where `dsh-tui agents install` puts an agent's binary archive, one folder per version."""
    return data_dir / "agents" / agent.id / agent.version


def launches(
    agent: RegistryAgent,
    data_dir: Path,
    which: Callable[[str], str | None] = shutil.which,
    platform_name: str | None = None,
) -> list[Launch]:
    """Every way the agent is distributed for this platform, in the registry's order of kinds."""
    found: list[Launch] = []
    dist = agent.distribution
    for kind in ("npx", "uvx"):
        entry = dist.get(kind)
        if not isinstance(entry, dict) or not isinstance(entry.get("package"), str):
            continue
        runner = "npx" if kind == "npx" else "uvx"
        head: tuple[str, ...]
        cmd, args = entry.get("cmd"), _strings(entry.get("args"))
        if kind == "npx":
            package = pinned_npm(entry["package"], agent.version)
            head = ("npx", "--yes", "--package", package, cmd) if cmd else ("npx", "--yes", package)
        else:
            package = pinned_pypi(entry["package"], agent.version)
            head = ("uvx", "--from", package, cmd) if cmd else ("uvx", package)
        present = which(runner) is not None
        why = "" if present else f"{runner} is not installed"
        found.append(Launch(kind, (*head, *args), _env(entry.get("env")), present, why))
    binaries = dist.get("binary")
    key = platform_name or platform_key()
    if isinstance(binaries, dict):
        target = binaries.get(key)
        if not isinstance(target, dict) or not isinstance(target.get("cmd"), str):
            why = f"no binary for {key}"
            found.append(Launch("binary", (), (), False, why))
        else:
            program = binary_dir(data_dir, agent) / Path(target["cmd"])
            program = Path(str(program).replace("/./", "/"))
            present = program.is_file()
            why = "" if present else f"not installed: dsh-tui agents install {agent.id}"
            argv = (str(program), *_strings(target.get("args")))
            found.append(Launch("binary", argv, _env(target.get("env")), present, why))
    return found


def best_launch(choices: Sequence[Launch]) -> Launch | None:
    """The first way that can run here, else the first way at all (to say why it cannot)."""
    return next((launch for launch in choices if launch.runnable), choices[0] if choices else None)
