"""The user's settings file, `$XDG_CONFIG_HOME/dsh-tui/config.toml`: named agents, MCP servers,
and the defaults of the command line's flags.

Reading it never raises: a file that does not parse, a key this version does not know, or a
value of the wrong type becomes a problem, named with where it is, and the rest is used (a file
that does not parse at all gives the defaults). Only the user's own file is read: nothing in a
workspace can name a command for dsh-tui to run. Pure: no Textual, no SDK.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

FILE_NAME = "config.toml"
TOP_KEYS = ("agent", "terminal", "log_dir", "handshake_timeout", "agents", "mcp_servers")
AGENT_KEYS = ("command", "args", "env", "mode", "model")
STDIO_KEYS = ("type", "command", "args", "env")
REMOTE_KEYS = ("type", "url", "headers")
Transport = Literal["stdio", "http", "sse"]
MAX_SECONDS = 3600


@dataclass(frozen=True)
class NamedAgent:
    """`[agents.NAME]`: a command the user named, with its environment and first mode or model."""

    name: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    mode: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class McpServer:
    """`[mcp_servers.NAME]`: a stdio command, or an http/sse url with headers."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class UserConfig:
    """What the file said. `problems` are shown as a notice; a key left unset is None."""

    path: Path
    exists: bool = False
    agent: str | None = None
    terminal: bool | None = None
    log_dir: Path | None = None
    handshake_timeout: float | None = None
    agents: Mapping[str, NamedAgent] = field(default_factory=dict)
    mcp_servers: Mapping[str, McpServer] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/dsh-tui/config.toml`, `~/.config/...` when the variable is unset."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")) / ".config")
    return Path(base).expanduser() / "dsh-tui" / FILE_NAME


def load(path: Path) -> UserConfig:
    """The settings in `path`; a missing file is no settings, an unreadable one a problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return UserConfig(path)
    except (OSError, UnicodeDecodeError) as error:
        return UserConfig(path, exists=True, problems=(f"{path}: cannot be read: {error}",))
    return parse(text, path)


def parse(text: str, path: Path) -> UserConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return UserConfig(path, exists=True, problems=(syntax_problem(path, error),))
    reader = _Reader(path)
    return reader.read(data)


def syntax_problem(path: Path, error: tomllib.TOMLDecodeError) -> str:
    """`FILE:LINE:COLUMN: what is wrong`, from the decoder's "(at line L, column C)"."""
    message = str(error)
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if found is None:
        return f"{path}: {message}; using the defaults"
    what = message[: found.start()].strip()
    return f"{path}:{found[1]}:{found[2]}: {what}; using the defaults"


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[str] = []

    def problem(self, where: str, what: str) -> None:
        self.problems.append(f"{self.path}: {where}: {what}")

    def unknown(self, where: str, table: Mapping[str, Any], known: tuple[str, ...]) -> None:
        for key in table:
            if key not in known:
                name = f"{where}.{key}" if where else key
                self.problem(name, f"unknown key (known: {', '.join(known)}); ignored")

    def string(self, where: str, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, str):
            return value
        self.problem(where, f"must be a string, not {type(value).__name__}")
        return None

    def strings(self, where: str, value: Any) -> tuple[str, ...] | None:
        if value is None:
            return ()
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(value)
        self.problem(where, "must be a list of strings")
        return None

    def pairs(self, where: str, value: Any) -> tuple[tuple[str, str], ...] | None:
        if value is None:
            return ()
        if isinstance(value, dict) and all(isinstance(item, str) for item in value.values()):
            return tuple((str(key), item) for key, item in value.items())
        self.problem(where, "must be a table of strings")
        return None

    def seconds(self, where: str, value: Any) -> float | None:
        """A positive number of seconds, at most an hour."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(where, "must be a number of seconds")
            return None
        if not 0 < value <= MAX_SECONDS:
            self.problem(where, f"must be more than 0 and at most {MAX_SECONDS} seconds")
            return None
        return float(value)

    def tables(self, where: str, value: Any) -> dict[str, dict[str, Any]]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problem(where, "must be a table")
            return {}
        found: dict[str, dict[str, Any]] = {}
        for name, table in value.items():
            if isinstance(table, dict):
                found[name] = table
            else:
                self.problem(f"{where}.{name}", "must be a table")
        return found

    def read(self, data: dict[str, Any]) -> UserConfig:
        self.unknown("", data, TOP_KEYS)
        agent = self.string("agent", data.get("agent"))
        terminal = data.get("terminal")
        if terminal is not None and not isinstance(terminal, bool):
            self.problem("terminal", "must be true or false")
            terminal = None
        log_dir_text = self.string("log_dir", data.get("log_dir"))
        log_dir = Path(log_dir_text).expanduser() if log_dir_text else None
        handshake_timeout = self.seconds("handshake_timeout", data.get("handshake_timeout"))
        agents: dict[str, NamedAgent] = {}
        for name, table in self.tables("agents", data.get("agents")).items():
            named = self.named_agent(name, table)
            if named is not None:
                agents[name] = named
        servers: dict[str, McpServer] = {}
        for name, table in self.tables("mcp_servers", data.get("mcp_servers")).items():
            server = self.mcp_server(name, table)
            if server is not None:
                servers[name] = server
        return UserConfig(
            self.path,
            True,
            agent,
            terminal,
            log_dir,
            handshake_timeout,
            agents,
            servers,
            tuple(self.problems),
        )

    def named_agent(self, name: str, table: dict[str, Any]) -> NamedAgent | None:
        where = f"agents.{name}"
        self.unknown(where, table, AGENT_KEYS)
        command = self.string(f"{where}.command", table.get("command"))
        args = self.strings(f"{where}.args", table.get("args"))
        env = self.pairs(f"{where}.env", table.get("env"))
        mode = self.string(f"{where}.mode", table.get("mode"))
        model = self.string(f"{where}.model", table.get("model"))
        if not command:
            self.problem(where, "needs a command; this agent is left out")
            return None
        if args is None or env is None:
            self.problem(where, "this agent is left out")
            return None
        return NamedAgent(name, (command, *args), env, mode, model)

    def mcp_server(self, name: str, table: dict[str, Any]) -> McpServer | None:
        where = f"mcp_servers.{name}"
        kind = table.get("type", "http" if "url" in table else "stdio")
        if kind not in ("stdio", "http", "sse"):
            self.problem(f"{where}.type", f"must be stdio, http or sse, not {kind!r}")
            return None
        if kind == "stdio":
            self.unknown(where, table, STDIO_KEYS)
            command = self.string(f"{where}.command", table.get("command"))
            args = self.strings(f"{where}.args", table.get("args"))
            env = self.pairs(f"{where}.env", table.get("env"))
            if not command or args is None or env is None:
                self.problem(where, "a stdio server needs a command; this server is left out")
                return None
            return McpServer(name, "stdio", command=command, args=args, env=env)
        self.unknown(where, table, REMOTE_KEYS)
        url = self.string(f"{where}.url", table.get("url"))
        headers = self.pairs(f"{where}.headers", table.get("headers"))
        if not url or headers is None:
            self.problem(where, f"an {kind} server needs a url; this server is left out")
            return None
        return McpServer(name, kind, url=url, headers=headers)
