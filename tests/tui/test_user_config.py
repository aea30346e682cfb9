"""The settings file: what it holds, and how each kind of mistake in it is reported."""

from __future__ import annotations

from pathlib import Path

from tui.user_config import McpServer, NamedAgent, config_path, load, parse

FILE = Path("/home/u/.config/dsh-tui/config.toml")

FULL = """
agent = "mine"
terminal = false
log_dir = "~/logs/dsh"

[agents.mine]
command = "my-agent"
args = ["--acp", "--quiet"]
env = { MY_AGENT_LOG = "debug" }
mode = "plan"
model = "fast"

[mcp_servers.files]
command = "mcp-files"
args = ["--root", "."]
env = { FILES_TOKEN = "s3cret" }

[mcp_servers.search]
type = "sse"
url = "https://example.test/sse"
headers = { Authorization = "Bearer x" }

[mcp_servers.docs]
url = "https://example.test/mcp"
"""


def test_the_path_follows_xdg_config_home() -> None:
    assert config_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/dsh-tui/config.toml")
    assert config_path({"HOME": "/h"}) == Path("/h/.config/dsh-tui/config.toml")


def test_a_full_file_is_read_whole() -> None:
    config = parse(FULL, FILE)
    assert config.problems == ()
    assert (config.agent, config.terminal) == ("mine", False)
    assert config.log_dir == Path("~/logs/dsh").expanduser()
    assert config.agents["mine"] == NamedAgent(
        "mine", ("my-agent", "--acp", "--quiet"), (("MY_AGENT_LOG", "debug"),), "plan", "fast"
    )
    assert config.mcp_servers["files"] == McpServer(
        "files", "stdio", "mcp-files", ("--root", "."), (("FILES_TOKEN", "s3cret"),)
    )
    search = config.mcp_servers["search"]
    assert (search.transport, search.url, search.headers) == (
        "sse",
        "https://example.test/sse",
        (("Authorization", "Bearer x"),),
    )
    assert config.mcp_servers["docs"].transport == "http"  # a url and no type: http


def test_a_syntax_error_names_the_line_and_column_and_gives_the_defaults() -> None:
    config = parse('agent = "a"\nterminal = tru\n', FILE)
    assert config.agent is None and config.terminal is None
    (problem,) = config.problems
    assert problem.startswith(f"{FILE}:2:12: ")
    assert "using the defaults" in problem


def test_unknown_keys_are_named_and_the_rest_is_used() -> None:
    text = 'agnet = "x"\nagent = "y"\n[agents.a]\ncommand = "c"\ncolour = 1\n'
    config = parse(text, FILE)
    assert config.agent == "y" and "a" in config.agents
    assert any("agnet: unknown key" in problem for problem in config.problems)
    assert any("agents.a.colour: unknown key" in problem for problem in config.problems)


def test_wrong_types_are_named_and_the_entry_left_out() -> None:
    text = (
        "terminal = 1\n[agents.a]\nargs = []\n[agents.b]\ncommand = 'b'\nargs = 'x'\n"
        "[mcp_servers.m]\ntype = 'ws'\nurl = 'u'\n"
    )
    config = parse(text, FILE)
    assert config.terminal is None and not config.agents and not config.mcp_servers
    joined = "\n".join(config.problems)
    for expected in (
        "terminal: must be true or false",
        "agents.a: needs a command",
        "agents.b.args: must be a list of strings",
        "mcp_servers.m.type: must be stdio, http or sse",
    ):
        assert expected in joined


def test_a_missing_file_is_no_settings_and_no_problem(tmp_path: Path) -> None:
    config = load(tmp_path / "none.toml")
    assert not config.exists and config.problems == ()


def test_an_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"agent = '\xff'\n")
    (problem,) = load(path).problems
    assert "cannot be read" in problem


def test_the_handshake_timeout_is_a_positive_number_of_seconds() -> None:
    assert parse("handshake_timeout = 90\n", FILE).handshake_timeout == 90.0
    assert parse("handshake_timeout = 2.5\n", FILE).handshake_timeout == 2.5
    for value, problem in (
        ('"90"', "must be a number of seconds"),
        ("true", "must be a number of seconds"),
        ("0", "must be more than 0 and at most 3600 seconds"),
        ("-1", "must be more than 0 and at most 3600 seconds"),
        ("7200", "must be more than 0 and at most 3600 seconds"),
    ):
        config = parse(f"handshake_timeout = {value}\nagent = 'kept'\n", FILE)
        assert config.handshake_timeout is None and config.agent == "kept"
        assert config.problems == (f"{FILE}: handshake_timeout: {problem}",)
