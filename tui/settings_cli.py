"""What the settings file and the flags add up to, and the `dsh-tui config` and `dsh-tui agents`
commands that show it. Flags win over the environment, which wins over the file.

Pure: no Textual, no SDK. Everything printed from the file or the registry is cleaned first.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir

from tui.agent_log import default_log_dir
from tui.catalogue import live
from tui.catalogue.choice import AgentChoice, choose_agent
from tui.catalogue.registry import Registry, launches
from tui.config import DEFAULT_AGENT
from tui.launch import HANDSHAKE_TIMEOUT_S
from tui.sanitize import clean_block, clean_line
from tui.user_config import McpServer, UserConfig, config_path, load


@dataclass(frozen=True)
class Effective:
    """The settings in force for this run, each with where it came from."""

    config: UserConfig
    agent: str
    terminal: bool
    log_dir: Path
    mcp_servers: tuple[McpServer, ...]
    handshake_timeout: float
    sources: Mapping[str, str]


def data_dir() -> Path:
    return Path(user_data_dir("dsh-tui"))


def cache_dir() -> Path:
    return Path(user_cache_dir("dsh-tui"))


def effective(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Effective:
    """Raises SystemExit for an `--mcp` name the file does not define."""
    env = os.environ if environ is None else environ
    config = load(config_path(env))
    where = str(config.path)
    sources: dict[str, str] = {}
    if args.agent is not None:
        agent, sources["agent"] = args.agent, "--agent"
    elif env.get("DSH_AGENT"):
        agent, sources["agent"] = env["DSH_AGENT"], "$DSH_AGENT"
    elif config.agent is not None:
        agent, sources["agent"] = config.agent, where
    else:
        agent, sources["agent"] = DEFAULT_AGENT, "default"
    if args.terminal is not None:
        terminal, sources["terminal"] = (
            args.terminal,
            "--terminal" if args.terminal else "--no-terminal",
        )
    elif config.terminal is not None:
        terminal, sources["terminal"] = config.terminal, where
    else:
        terminal, sources["terminal"] = True, "default"
    if args.log_dir is not None:
        log_dir, sources["log_dir"] = args.log_dir, "--log-dir"
    elif env.get("DSH_LOG_DIR"):
        log_dir, sources["log_dir"] = Path(env["DSH_LOG_DIR"]), "$DSH_LOG_DIR"
    elif config.log_dir is not None:
        log_dir, sources["log_dir"] = config.log_dir, where
    else:
        log_dir, sources["log_dir"] = default_log_dir(), "default"
    if args.handshake_timeout is not None:
        timeout, sources["handshake_timeout"] = args.handshake_timeout, "--handshake-timeout"
    elif config.handshake_timeout is not None:
        timeout, sources["handshake_timeout"] = config.handshake_timeout, where
    else:
        timeout, sources["handshake_timeout"] = HANDSHAKE_TIMEOUT_S, "default"
    servers = config.mcp_servers
    if args.no_mcp:
        chosen: tuple[McpServer, ...] = ()
        sources["mcp_servers"] = "--no-mcp"
    elif args.mcp:
        missing = [name for name in args.mcp if name not in servers]
        if missing:
            known = ", ".join(servers) or "none"
            raise SystemExit(
                f"dsh-tui: --mcp {clean_line(missing[0])}: no such server in {where} "
                f"(defined: {clean_line(known)})"
            )
        chosen = tuple(servers[name] for name in dict.fromkeys(args.mcp))
        sources["mcp_servers"] = "--mcp"
    else:
        chosen = tuple(servers.values())
        sources["mcp_servers"] = where if servers else "default"
    return Effective(config, agent, terminal, log_dir, chosen, timeout, sources)


def notices(config: UserConfig) -> tuple[str, ...]:
    """The file's problems, as the app shows them once it is up."""
    return tuple(clean_block(problem) for problem in config.problems)


def resolve_agent(settings: Effective, registry: Registry | None = None) -> AgentChoice:
    """Raises SystemExit with the reason when the agent cannot be named or started."""
    try:
        return choose_agent(
            settings.agent, settings.config, registry or live.current(cache_dir()), data_dir()
        )
    except ValueError as error:
        raise SystemExit(f"dsh-tui: --agent {settings.agent!r}: {error}") from error


def config_report(settings: Effective) -> str:
    """`dsh-tui config`: the file, its problems, and every effective value with its source."""
    config = settings.config
    state = "" if config.exists else " (not present: defaults in use)"
    lines = [f"settings file: {config.path}{state}"]
    lines += [f"problem: {problem}" for problem in config.problems]
    source = settings.sources
    lines.append(f"agent = {settings.agent}  ({source['agent']})")
    lines.append(f"terminal = {str(settings.terminal).lower()}  ({source['terminal']})")
    lines.append(f"log_dir = {settings.log_dir}  ({source['log_dir']})")
    lines.append(
        f"handshake_timeout = {settings.handshake_timeout:g}  ({source['handshake_timeout']})"
    )
    for named in config.agents.values():
        env = ", ".join(key for key, _ in named.env)
        extra = "".join(
            [f"; env: {env}" if env else "", f"; mode {named.mode}" if named.mode else ""]
            + ([f"; model {named.model}"] if named.model else [])
        )
        lines.append(f"agents.{named.name}: {' '.join(named.argv)}{extra}  ({config.path})")
    passed = {server.name for server in settings.mcp_servers}
    for server in config.mcp_servers.values():
        target = server.url or " ".join((server.command, *server.args))
        state = "passed" if server.name in passed else "not passed"
        lines.append(
            f"mcp_servers.{server.name}: {server.transport} {target}  "
            f"({state}: {source['mcp_servers']})"
        )
    if not config.mcp_servers:
        lines.append("mcp_servers: none")
    return "\n".join(clean_line(line) for line in lines)


def agents_report(
    config: UserConfig, registry: Registry, which: Callable[[str], str | None] = shutil.which
) -> str:
    """`dsh-tui agents`: each agent's id, name, version, exact command, and whether it runs here."""
    lines = [f"ACP registry ({registry.date or 'undated'}, {registry.source or 'bundled'}):"]
    for agent in registry.agents:
        lines.append(f"  {agent.id}  {agent.name} {agent.version}")
        for launch in launches(agent, data_dir(), which):
            state = "runs here" if launch.runnable else f"cannot run here: {launch.why}"
            command = " ".join(launch.argv) if launch.argv else "-"
            env = "".join(f"{key}={value} " for key, value in launch.env)
            lines.append(f"      {launch.kind}: {env}{command}  [{state}]")
    lines.append(f"named agents ({config.path}):")
    for named in config.agents.values():
        choice = choose_agent(named.name, config, registry, data_dir(), which)
        state = "runs here" if choice.runnable else f"cannot run here: {choice.why}"
        lines.append(f"  {named.name}  {choice.command_line}  [{state}]")
    if not config.agents:
        lines.append("  none")
    return "\n".join(_indented(line) for line in lines)


def _indented(line: str) -> str:
    """A cleaned line that keeps its leading indentation."""
    body = line.lstrip(" ")
    return " " * (len(line) - len(body)) + clean_line(body)


def main(command: str, argv: list[str], app_parser: argparse.ArgumentParser) -> int:
    """`dsh-tui config [FLAGS]` and `dsh-tui agents [--refresh]`."""
    if command == "config":
        parser = argparse.ArgumentParser(
            prog="dsh-tui config",
            parents=[app_parser],
            add_help=False,
            description="Print the settings file's path, the settings in force for a run with "
            "these flags, and where each value came from.",
        )
        print(config_report(effective(parser.parse_args(argv))))
        return 0
    if argv[:1] == ["install"]:
        return install_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="dsh-tui agents",
        description="List the ACP registry's agents and the settings file's named agents: "
        "the exact command each runs as, and whether it can run here.",
    )
    parser.add_argument(
        "--refresh", action="store_true", help="fetch the live registry first (with a timeout)"
    )
    args = parser.parse_args(argv)
    config = load(config_path())
    if args.refresh:
        try:
            registry = live.refresh(cache_dir(), os.environ.get("DSH_REGISTRY_URL", live.LIVE_URL))
            print(f"fetched the live registry: {len(registry.agents)} agents")
        except live.FetchFailed as error:
            registry = live.current(cache_dir())
            print(f"offline? {clean_line(str(error))}; keeping the registry of {registry.date}")
    else:
        registry = live.current(cache_dir())
    for problem in config.problems:
        print(f"problem: {clean_line(problem)}")
    print(agents_report(config, registry))
    return 0


def install_main(argv: list[str]) -> int:
    """`dsh-tui agents install ID`: a registry agent's binary, with progress and its checksum."""
    import sys

    from tui.catalogue.install import InstallFailed, bar, install

    parser = argparse.ArgumentParser(
        prog="dsh-tui agents install",
        description="Download a registry agent's binary for this platform into the data dir.",
    )
    parser.add_argument("id", help="the agent's registry id (see `dsh-tui agents`)")
    args = parser.parse_args(argv)
    registry = live.current(cache_dir())
    agent = registry.get(args.id)
    if agent is None:
        print(f"dsh-tui: no agent {clean_line(args.id)} in the registry", file=sys.stderr)
        return 2

    def progress(done: int, total: int | None) -> None:
        print(f"\r{bar(done, total)}", end="", file=sys.stderr, flush=True)

    try:
        installed = install(agent, data_dir(), progress)
    except InstallFailed as error:
        print(f"\ndsh-tui: {clean_line(str(error))}", file=sys.stderr)
        return 1
    print(file=sys.stderr)
    print(f"sha256 {installed.sha256}  ({installed.size} bytes)")
    print(f"installed {clean_line(agent.name)} {clean_line(agent.version)}: {installed.program}")
    return 0
