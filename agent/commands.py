"""Slash commands, and the dispatch of every prompt to a command or a model turn.

A prompt whose first word is a known `/command` is answered here without the model (except
`/demo`, which plays the bundled demo scenario whatever model is selected). Commands are
logged as turns of their own, marked so the model never sees them, so a resumed session shows
them too. Any other text, `/usr/bin/...` included, goes to the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agent.attachments import Attachment
from agent.events import Notice, TextChunk, TurnEnd
from agent.grant_commands import permissions_command
from agent.loop import run_model_turn, start_turn, title_for
from agent.models.config import ConfigError, choice_id, model_choices
from agent.models.scripted import Scenario, ScriptedModel, bundled_scenario
from agent.permissions import MODES, mode_info, parse_mode
from agent.session import AgentSession, StopReason
from dsh_common.attachments import shown_prompt

if TYPE_CHECKING:  # the SDK is imported only by sessions that have MCP servers
    from agent.mcp.hub import McpHub, McpPrompt

DEMO_TITLE = "dsh-agent demo"


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    description: str
    hint: str | None = None


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "Show the slash commands, modes and models"),
    CommandSpec("demo", "Play a scripted tour of every tool card (in dsh-demo/)"),
    CommandSpec(
        "mode", "Show or switch the permission mode", " | ".join(info.id for info in MODES)
    ),
    CommandSpec("model", "Show or switch the model", "model id (see /model)"),
    CommandSpec("status", "Show the session id, workspace, mode, model and log file"),
    CommandSpec("permissions", 'Show or revoke the "always allow" grants', "revoke N | revoke all"),
)


def available_commands(mcp: McpHub | None = None) -> list[AvailableCommand]:
    """The `available_commands_update` payload: the agent's commands, then one
    `/SERVER:PROMPT` per prompt of the session's MCP servers."""
    return [*_own_commands(), *(_prompt_command(p) for p in (mcp.prompts.values() if mcp else ()))]


def _prompt_command(entry: McpPrompt) -> AvailableCommand:
    prompt = entry.prompt
    names = [argument.name for argument in prompt.arguments or ()]
    description = prompt.description or prompt.title or f"MCP prompt {prompt.name}"
    return AvailableCommand(
        name=entry.command,
        description=f"{description} (MCP server {entry.connection.spec.name})",
        input=AvailableCommandInput(UnstructuredCommandInput(hint=" ".join(names)))
        if names
        else None,
    )


def _own_commands() -> list[AvailableCommand]:
    return [
        AvailableCommand(
            name=spec.name,
            description=spec.description,
            input=AvailableCommandInput(UnstructuredCommandInput(hint=spec.hint))
            if spec.hint
            else None,
        )
        for spec in COMMANDS
    ]


def parse_slash(text: str) -> tuple[str, str] | None:
    """(command, argument) when `text` starts with a known `/command`; None otherwise."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    name = name.split("\n", 1)[0]
    if not any(spec.name == name for spec in COMMANDS):
        return None
    return name, argument.strip()


_demo: Scenario | None = None


def demo_model() -> ScriptedModel:
    global _demo
    if _demo is None:
        _demo = bundled_scenario("demo")
    return ScriptedModel(_demo)


def _help(session: AgentSession) -> str:
    lines = ["**Slash commands**", ""]
    for spec in COMMANDS:
        usage = f"/{spec.name}" + (f" [{spec.hint}]" if spec.hint else "")
        lines.append(f"- `{usage}`: {spec.description}")
    lines += ["", f"**Modes** (now `{session.mode}`)", ""]
    lines += [f"- `{info.id}`: {info.description}" for info in MODES]
    lines += [
        "",
        "A file path or bash `workdir` outside the workspace always asks, or is refused in "
        "`read-only`. bash is a shell: a command can read and write any path you can, "
        "wherever it runs, and `full-access` runs commands without asking.",
    ]
    if session.model_settings.provider == "offline":
        lines += ["", "The offline model takes tool commands: type `help` (no slash) to see them."]
    return "\n".join(lines) + "\n"


def _mode(session: AgentSession, argument: str) -> str:
    if not argument:
        listing = "\n".join(f"- `{info.id}`: {info.description}" for info in MODES)
        return f"Mode: **{session.mode}**. Switch with `/mode MODE`:\n\n{listing}\n"
    try:
        mode = parse_mode(argument)
    except ValueError as error:
        return f"Error: {error}\n"
    session.set_mode(mode)
    return f"Mode: **{mode}**. {mode_info(mode).description}.\n"


def _model(session: AgentSession, argument: str) -> str:
    if not argument:
        current = choice_id(session.model_settings)
        lines = [f"Model: **{current}**. Switch with `/model ID`:", ""]
        for choice in model_choices(session.configured):
            mark = " (current)" if choice.id == current else ""
            lines.append(f"- `{choice.id}`{mark}: {choice.description}")
        return "\n".join(lines) + "\n"
    try:
        session.set_model(argument)
    except ConfigError as error:
        return f"Error: {error}\n"
    session.notify_config()
    return f"Model: **{choice_id(session.model_settings)}**, from the next prompt.\n"


def _status(session: AgentSession) -> str:
    return (
        f"- session: `{session.session_id}`\n"
        f"- workspace: `{session.cwd}`\n"
        f"- mode: `{session.mode}`\n"
        f"- model: `{choice_id(session.model_settings)}` ({session.model.name})\n"
        f"- log: `{session.log.path}`\n"
        f"- step limit: {session.max_steps} model calls per turn\n"
    )


_HANDLERS: dict[str, Callable[[AgentSession, str], str]] = {
    "help": lambda session, _: _help(session),
    "mode": _mode,
    "model": _model,
    "status": lambda session, _: _status(session),
    "permissions": lambda session, argument: permissions_command(session.grants, argument),
}


async def run_command_turn(
    session: AgentSession, text: str, name: str, argument: str
) -> StopReason:
    """A slash command as a logged turn the model never sees."""
    start_turn(session, text, command=True, title=None)
    session.emit(TextChunk(_HANDLERS[name](session, argument)))
    session.emit(TurnEnd("end_turn"))
    return "end_turn"


def _mcp_prompt(session: AgentSession, text: str) -> tuple[McpPrompt, str] | None:
    """(the prompt, its argument text) when `text` starts with `/SERVER:PROMPT`."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    entry = session.mcp.prompts.get(name.split("\n", 1)[0])
    return None if entry is None else (entry, argument.strip())


def prompt_arguments(entry: McpPrompt, argument: str) -> dict[str, str]:
    """`key=value` words fill the arguments they name; otherwise the whole text fills the
    first argument."""
    names = [a.name for a in entry.prompt.arguments or ()]
    if not names or not argument:
        return {}
    words = argument.split()
    if all("=" in word and word.split("=", 1)[0] in names for word in words):
        return {key: value for key, _, value in (word.partition("=") for word in words)}
    return {names[0]: argument}


async def run_mcp_prompt(
    session: AgentSession,
    text: str,
    entry: McpPrompt,
    argument: str,
    attachments: Sequence[Attachment] = (),
) -> StopReason:
    """`/SERVER:PROMPT ARGS`: the server's prompt, fetched now, goes to the model as the
    prompt text (the text typed is what the transcript keeps)."""
    from mcp.types import TextContent

    from agent.mcp.connection import McpError

    try:
        result = await entry.connection.get_prompt(
            entry.prompt.name, prompt_arguments(entry, argument)
        )
    except McpError as error:
        start_turn(session, text, command=True, title=None)
        session.emit(Notice(f"MCP prompt /{entry.command} failed: {error}", "error"))
        session.emit(TurnEnd("end_turn"))
        return "end_turn"
    parts = [m.content.text for m in result.messages if isinstance(m.content, TextContent)]
    expanded = "\n\n".join(parts)
    title = None if session.titled else title_for(text)
    return await run_model_turn(
        session, expanded or text, session.model, title=title, attachments=attachments
    )


def run_prompt(
    session: AgentSession, text: str, attachments: Sequence[Attachment] = ()
) -> Callable[[], Awaitable[StopReason]]:
    """The turn for one prompt: a slash command, the demo, or the session's model (which
    also gets the prompt's attached files; a command ignores them)."""
    command = parse_slash(text)
    prompt = _mcp_prompt(session, text)
    if prompt is not None:
        return lambda: run_mcp_prompt(session, text, *prompt, attachments)
    if command is not None and command[0] != "demo":
        name, argument = command
        return lambda: run_command_turn(session, text, name, argument)
    model = demo_model() if command is not None else session.model
    title = None
    if not session.titled:
        shown = shown_prompt(text, [attachment.shown for attachment in attachments])
        title = DEMO_TITLE if command is not None else title_for(shown)
    return lambda: run_model_turn(session, text, model, title=title, attachments=attachments)


__all__ = ["COMMANDS", "available_commands", "parse_slash", "run_command_turn", "run_prompt"]
