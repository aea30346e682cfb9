"""MCP names, card kinds and the offline model's `mcp` command, as pure functions."""

from __future__ import annotations

from mcp import types

from agent.mcp.names import safe_server, split_name, tool_name
from agent.mcp.present import McpPresenter, call_record, kind_of
from agent.models.offline import Reply, ToolCalls, parse_command


def test_names_split_back_whatever_the_tool_is_called() -> None:
    server = safe_server("my docs__v2")
    assert server == "my_docs_v2"
    name = tool_name(server, "get__page")
    assert name == "mcp__my_docs_v2__get__page"
    assert split_name(name) == ("my_docs_v2", "get__page")
    assert split_name("read") is None
    assert len(tool_name("s" * 80, "t")) == 64


def test_kind_comes_from_the_annotations() -> None:
    assert kind_of(None) == "other"
    assert kind_of(types.ToolAnnotations(readOnlyHint=True)) == "read"
    assert kind_of(types.ToolAnnotations(destructiveHint=True)) == "delete"
    assert kind_of(types.ToolAnnotations(destructiveHint=False)) == "edit"
    assert kind_of(types.ToolAnnotations(openWorldHint=True)) == "other"


def test_the_card_is_drawn_from_the_logged_record() -> None:
    presenter = McpPresenter("mcp__docs__search")
    view = presenter.present_call({"q": "x"}, call_record("Docs", "search", "read"))
    assert (view.title, view.kind, view.raw_input) == ("Docs · search", "read", {"q": "x"})
    bare = presenter.present_call({})
    assert (bare.title, bare.kind) == ("docs · search", "other")


def test_the_offline_mcp_command_lists_and_calls() -> None:
    specs = [
        {"type": "function", "function": {"name": "mcp__probe__echo", "description": "Echo"}},
        {"type": "function", "function": {"name": "read", "description": "Read"}},
    ]
    listing = parse_command("mcp", "/w", specs)
    assert isinstance(listing, Reply) and "- `probe`: `echo`" in listing.markdown
    assert "No MCP server" in parse_command("mcp", "/w", []).markdown  # type: ignore[union-attr]
    call = parse_command('mcp probe echo {"text": "hi"}', "/w", specs)
    assert call == ToolCalls((("mcp__probe__echo", {"text": "hi"}),))
    assert parse_command("mcp probe echo", "/w") == ToolCalls((("mcp__probe__echo", {}),))
    bad = parse_command("mcp probe echo [1]", "/w")
    assert isinstance(bad, Reply) and "JSON object" in bad.markdown
