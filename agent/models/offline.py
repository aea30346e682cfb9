"""The embedded default model: no key, no network, and every tool drivable by hand.

Offline mode must be useful on its own: a new user can try every card (plan, diff, terminal,
read) before configuring anything, and tests can drive tools without a scripted file. The
last user message is read as a tiny command language:

- `$ CMD` runs CMD with bash; further lines belong to the script.
- `read PATH [OFFSET [LIMIT]]` reads a file (1-based OFFSET).
- `write PATH` writes the following lines; `write PATH: TEXT` writes one line, where `\\n` in
  TEXT is a newline. Content gets a final newline when it lacks one.
- `edit [--all] PATH` then one `OLD => NEW` line per edit call, in order; or
  `edit [--all] PATH: OLD => NEW`. The first `=>` separates, with one space trimmed on each
  side; `\\n` is a newline; `--all` sets replace_all.
- `todo a; b; c` (or one item per following line) writes a plan. `[x] ` marks an item
  completed, `[>] ` in progress, `[ ] ` pending; when no item is in progress, the first
  unmarked one is, and the rest are pending.
- `mcp` lists the session's MCP servers and their tools; `mcp SERVER TOOL {JSON}` calls
  one with those arguments (`{}` when left out).
- `help` lists this; `demo` plays the bundled demo scenario.
- The prompt of `dsh-tui check` (`dsh_common.conformance.CHECK_PROMPT`, exactly) plays the
  bundled `check` scenario: a read, an edit and a command, so the check runs offline.

Files attached to the prompt (`@` mentions) are acknowledged first, by name and size
(`attached: src/app.py, 120 lines.`); the command is read from the prompt text alone.
Relative paths are joined to the session cwd, so cards show workspace-relative titles.
Anything else gets an explanation of offline mode. On the step after tool calls the model
answers with a one-line summary and stops: bash results are judged by their exit markers, and
a result whose first line starts with "Error" (or, for other tools, says the call was rejected,
denied or refused) counts as a failure. Tool call ids are `call_<n>`, numbered over the
conversation, so live runs and replays agree.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from agent.attachments import split_context
from agent.mcp.names import safe_part, safe_server, split_name, tool_name
from agent.models.base import (
    ChatMessage,
    Finish,
    ModelDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    call_id,
    json_arguments,
    last_user_index,
    message_text,
    prior_tool_call_count,
    steps_since_user,
    tool_names_by_id,
    word_chunks,
)
from agent.models.scripted import Scenario, ScriptedModel, bundled_scenario
from dsh_common.attachments import uri_label
from dsh_common.bash_markers import EXIT_MARKER, SIGNAL_MARKER, TIMEOUT_MARKER, at_end
from dsh_common.conformance import CHECK_PROMPT

HELP = """\
**Offline mode commands.** Each one runs a tool, so you can try every card without a model:

- `$ CMD` runs CMD with bash in the workspace (more lines are part of the script).
- `read PATH [OFFSET [LIMIT]]` reads a file, from line OFFSET, at most LIMIT lines.
- `write PATH` followed by lines writes those lines to PATH.
- `write PATH: TEXT` writes one line; `\\n` in TEXT is a newline.
- `edit PATH` followed by `OLD => NEW` lines makes one edit per line, in order.
- `edit PATH: OLD => NEW` makes a single edit; `\\n` is a newline.
- `edit --all PATH ...` replaces every occurrence (replace_all).
- `todo a; b; c` writes a plan: the first item is in progress, the rest pending. \
Mark items `[x]` done or `[>]` in progress.
- `mcp` lists the MCP servers and their tools; `mcp SERVER TOOL {JSON}` calls one.
- `demo` plays a scripted tour of every card kind.
- `help` shows this list.

Relative paths are resolved against the workspace. To use a real model, set \
`DEEPSEEK_API_KEY`, or start `dsh-agent` with `--base-url URL --model NAME` for any \
OpenAI-compatible server.
"""

OFFLINE_EXPLANATION = """\
I'm **dsh-agent** in *offline mode*: no model is configured, so I answer locally and need \
no key and no network. I can still drive every tool by hand: type `help` for the commands, \
or `demo` for a tour.

To use a real model, set `DEEPSEEK_API_KEY` (DeepSeek), or start `dsh-agent` with \
`--base-url URL --model NAME` for any OpenAI-compatible server (llama.cpp, vLLM, Ollama). \
`/help` lists the slash commands and `/model` switches models.
"""


@dataclass(frozen=True, slots=True)
class Reply:
    """Answer with Markdown and stop."""

    markdown: str


@dataclass(frozen=True, slots=True)
class ToolCalls:
    """Make these calls, in order, in one step."""

    calls: tuple[tuple[str, dict[str, Any]], ...]


@dataclass(frozen=True, slots=True)
class Play:
    """Hand the turn to a bundled scenario: `demo`, or `check` for the conformance check."""

    scenario: str


Command: TypeAlias = Reply | ToolCalls | Play

_HEAD = re.compile(r"^(\S+)(?:\s+(.*))?$")
_TODO_MARK = re.compile(r"^\[( |x|X|>)\]\s*")


def quote(text: str, limit: int = 200) -> str:
    """Quote the prompt as Markdown, shortened so a paste does not flood the reply."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return "\n".join("> " + line for line in short.splitlines() or [""])


def _unescape(text: str) -> str:
    return text.replace("\\n", "\n")


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def _usage(problem: str, usage: str) -> Reply:
    return Reply(f"{problem}\n\nUsage: {usage}. Type `help` for every command.\n")


def _path_and_inline(rest: str) -> tuple[str, str | None] | None:
    """Split `PATH` or `PATH: TEXT` (PATH may be quoted); None when malformed."""
    rest = rest.strip()
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        if end < 0:
            return None
        path, after = rest[1:end], rest[end + 1 :].lstrip()
        if not after:
            return path, None
        if not after.startswith(":"):
            return None
        inline = after[1:]
    else:
        match = re.search(r":(\s|$)", rest)
        if match is None:
            return rest, None
        path, inline = rest[: match.start()].rstrip(), rest[match.end() :]
    return (path, inline) if inline.strip() else (path, None)


def _with_final_newline(content: str) -> str:
    return content if not content or content.endswith("\n") else content + "\n"


def _parse_bash(rest: str, body: list[str]) -> Command:
    command = "\n".join([rest, *body]).strip()
    if not command:
        return _usage("`$` needs a command.", "`$ CMD`")
    first = command.splitlines()[0]
    shown = first if len(first) <= 60 else first[:59] + "…"
    return ToolCalls((("bash", {"command": command, "description": f"Run {shown}"}),))


def _parse_read(rest: str, cwd: str) -> Command:
    usage = "`read PATH [OFFSET [LIMIT]]`"
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    numbers: list[int] = []
    while len(words) > 1 and len(numbers) < 2 and words[-1].isdigit():
        numbers.insert(0, int(words.pop()))
    if not words:
        return _usage("`read` needs a path.", usage)
    arguments: dict[str, Any] = {"file_path": _absolute(" ".join(words), cwd)}
    if numbers:
        arguments["offset"] = numbers[0]
    if len(numbers) > 1:
        arguments["limit"] = numbers[1]
    return ToolCalls((("read", arguments),))


def _parse_write(rest: str, body: list[str], cwd: str) -> Command:
    usage = "`write PATH` followed by the content lines, or `write PATH: TEXT`"
    parsed = _path_and_inline(rest)
    if parsed is None or not parsed[0]:
        return _usage("`write` needs a path.", usage)
    path, inline = parsed
    parts = ([_unescape(inline)] if inline is not None else []) + (
        ["\n".join(body)] if body else []
    )
    content = _with_final_newline("\n".join(parts))
    return ToolCalls((("write", {"file_path": _absolute(path, cwd), "content": content}),))


def _split_edit(line: str) -> tuple[str, str] | None:
    old, sep, new = line.partition("=>")
    if not sep:
        return None
    old = old[:-1] if old.endswith(" ") else old
    new = new[1:] if new.startswith(" ") else new
    return _unescape(old), _unescape(new)


def _parse_edit(rest: str, body: list[str], cwd: str) -> Command:
    usage = "`edit PATH` followed by `OLD => NEW` lines, or `edit PATH: OLD => NEW`"
    replace_all = False
    if rest.startswith("--all"):
        replace_all, rest = True, rest[len("--all") :].lstrip()
    parsed = _path_and_inline(rest)
    if parsed is None or not parsed[0]:
        return _usage("`edit` needs a path.", usage)
    path, inline = parsed
    lines = ([inline] if inline is not None else []) + [line for line in body if line.strip()]
    if not lines:
        return _usage("`edit` needs at least one `OLD => NEW` line.", usage)
    calls: list[tuple[str, dict[str, Any]]] = []
    for number, line in enumerate(lines, start=1):
        pair = _split_edit(line)
        if pair is None:
            return _usage(f"Edit line {number} has no `=>`: `{line.strip()}`.", usage)
        arguments: dict[str, Any] = {
            "file_path": _absolute(path, cwd),
            "old_string": pair[0],
            "new_string": pair[1],
        }
        if replace_all:
            arguments["replace_all"] = True
        calls.append(("edit", arguments))
    return ToolCalls(tuple(calls))


def _parse_todo(rest: str, body: list[str]) -> Command:
    entries: list[tuple[str | None, str]] = []
    for line in [rest, *body]:
        for raw in line.split(";"):
            item = raw.strip()
            mark = _TODO_MARK.match(item)
            status = None
            if mark:
                status = {" ": "pending", ">": "in_progress"}.get(mark.group(1), "completed")
                item = item[mark.end() :].strip()
            if item:
                entries.append((status, item))
    started = any(status == "in_progress" for status, _ in entries)
    todos: list[dict[str, str]] = []
    for status, content in entries:
        if status is None:
            status = "pending" if started else "in_progress"
            started = True
        todos.append({"content": content, "status": status})
    return ToolCalls((("todo_write", {"todos": todos}),))


def _mcp_listing(tools: Sequence[ToolSpec]) -> Reply:
    servers: dict[str, list[tuple[str, str]]] = {}
    for spec in tools:
        function = spec.get("function") or {}
        split = split_name(str(function.get("name", "")))
        if split is not None:
            servers.setdefault(split[0], []).append(
                (split[1], str(function.get("description", "")))
            )
    if not servers:
        return Reply(
            "No MCP server is connected in this session: the client passes them in "
            "`session/new` (`mcpServers`).\n"
        )
    lines = ["**MCP servers**", ""]
    for server, entries in servers.items():
        lines.append(f"- `{server}`: " + ", ".join(f"`{name}`" for name, _ in entries))
    lines += ["", "Call one with `mcp SERVER TOOL {JSON}`.", ""]
    return Reply("\n".join(lines))


def _parse_mcp(rest: str, body: list[str], tools: Sequence[ToolSpec]) -> Command:
    usage = "`mcp` to list, `mcp SERVER TOOL {JSON}` to call"
    words = rest.split(None, 2)
    if not words:
        return _mcp_listing(tools)
    if len(words) < 2:
        return _usage("`mcp` needs a server and a tool.", usage)
    raw = "\n".join([words[2] if len(words) > 2 else "", *body]).strip() or "{}"
    try:
        arguments = json.loads(raw)
    except ValueError as error:
        return _usage(f"The arguments are not JSON: {error}.", usage)
    if not isinstance(arguments, dict):
        return _usage("The arguments must be a JSON object.", usage)
    return ToolCalls(((tool_name(safe_server(words[0]), safe_part(words[1])), arguments),))


def parse_command(prompt: str, cwd: str, tools: Sequence[ToolSpec] = ()) -> Command:
    """Read one prompt as an offline command; pure, so each command is testable alone.

    `tools` are the specs the model is offered (the `mcp` command lists and calls those)."""
    if prompt.strip() == CHECK_PROMPT:
        return Play("check")
    lines = prompt.replace("\r\n", "\n").strip("\n").split("\n")
    first, body = lines[0].strip(), lines[1:]
    if first.startswith("$") and (len(first) == 1 or first[1].isspace()):
        return _parse_bash(first[1:].strip(), body)
    head = _HEAD.match(first)
    word = head.group(1).lower() if head else ""
    rest = (head.group(2) or "") if head else ""
    if word in ("help", "/help", "?") and not rest and not body:
        return Reply(HELP)
    if word in ("demo", "/demo") and not rest and not body:
        return Play("demo")
    if word == "read":
        return _parse_read(rest, cwd)
    if word == "write":
        return _parse_write(rest, body, cwd)
    if word == "edit":
        return _parse_edit(rest, body, cwd)
    if word == "todo":
        return _parse_todo(rest, body)
    if word == "mcp":
        return _parse_mcp(rest, body, tools)
    return Reply(f"You said:\n\n{quote(prompt.strip())}\n\n{OFFLINE_EXPLANATION}")


_SIGNAL = at_end(SIGNAL_MARKER)
_EXIT = at_end(EXIT_MARKER)
_FAILED = re.compile(r"^\s*(error|rejected|denied|refused|cancelled|aborted)\b", re.I)
_REJECTED = re.compile(r"\b(rejected|denied|refused)\b", re.I)


def _outcome(name: str, content: str) -> tuple[bool, str]:
    """(succeeded, short description) of one tool result."""
    text = "\n" + content.rstrip()
    first = content.strip().splitlines()[0] if content.strip() else ""
    if name == "bash":
        timeout = TIMEOUT_MARKER.search(text)
        if timeout:
            return False, f"timed out after {timeout.group(1)} ms"
        signal = _SIGNAL.search(text)
        if signal:
            return False, f"was killed by signal {signal.group(1)}"
        code = _EXIT.search(text)
        if code:
            return False, f"exited with code {code.group(1)}"
    # Command output may say "denied" and still succeed, so only other tools' results are
    # searched for a rejection anywhere in their first line.
    if _FAILED.search(first) or (name != "bash" and _REJECTED.search(first)):
        detail = re.sub(r"^\s*error:?\s*", "", first, flags=re.I) or first
        return False, f"failed: {detail}"
    return True, "done"


def summarize(messages: Sequence[ChatMessage]) -> str:
    """One short Markdown line (or list) about the tool results since the last tool calls."""
    start = len(messages)
    while start > 0 and messages[start - 1].get("role") == "tool":
        start -= 1
    results = messages[start:]
    if not results:
        return "Done.\n"
    names = tool_names_by_id(messages)
    outcomes: list[tuple[str, bool, str]] = []
    for result in results:
        name = names.get(str(result.get("tool_call_id")), "tool")
        outcomes.append((name, *_outcome(name, message_text(result))))
    if len(outcomes) == 1:
        name, ok, detail = outcomes[0]
        subject = "The command" if name == "bash" else f"`{name}`"
        return "Done.\n" if ok else _sentence(f"{subject} {detail}") + "\n"
    failed = sum(1 for _, ok, _ in outcomes if not ok)
    heading = "Done." if not failed else f"{failed} of {len(outcomes)} calls did not succeed:"
    lines = [
        f"{number}. `{name}`: {detail}" for number, (name, _, detail) in enumerate(outcomes, 1)
    ]
    return heading + "\n\n" + "\n".join(lines) + "\n"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", ":")) else text + "."


def acknowledgement(attached: Sequence[tuple[str, int | None]], cwd: str) -> str:
    """`attached: src/app.py, 120 lines.` as a paragraph of its own, or "" for none."""
    if not attached:
        return ""
    parts = [
        f"`{uri_label(name, cwd)}`, linked (not read)"
        if lines is None
        else f"`{name}`, {lines} line{'' if lines == 1 else 's'}"
        for name, lines in attached
    ]
    return "attached: " + "; ".join(parts) + ".\n\n"


class OfflineModel:
    """The default model: answers locally from the last user message. Holds no session state."""

    def __init__(self, demo: Scenario | None = None) -> None:
        self._scenarios: dict[str, Scenario] = {} if demo is None else {"demo": demo}

    @property
    def name(self) -> str:
        return "offline"

    def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], *, cwd: str
    ) -> AsyncIterator[ModelDelta]:
        return self._answer(messages, tools, cwd)

    async def _answer(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], cwd: str
    ) -> AsyncIterator[ModelDelta]:
        index = last_user_index(messages)
        content = message_text(messages[index]) if index >= 0 else ""
        prompt, attached = split_context(content)
        command = parse_command(prompt, cwd, tools)
        if isinstance(command, Play):
            scenario = self._scenarios.get(command.scenario)
            if scenario is None:
                scenario = self._scenarios[command.scenario] = bundled_scenario(command.scenario)
            async for delta in ScriptedModel(scenario).stream(messages, tools, cwd=cwd):
                yield delta
            return
        if steps_since_user(messages) > 0:
            if messages and messages[-1].get("role") == "tool":
                for chunk in word_chunks(summarize(messages)):
                    yield TextDelta(chunk)
            yield Finish("stop")
            return
        heard = acknowledgement(attached, cwd)
        if isinstance(command, Reply):
            for chunk in word_chunks(heard + command.markdown):
                yield TextDelta(chunk)
            yield Finish("stop")
            return
        for chunk in word_chunks(heard):
            yield TextDelta(chunk)
        number = prior_tool_call_count(messages)
        for offset, (name, arguments) in enumerate(command.calls, start=1):
            yield ToolCallDelta(call_id(number + offset), name, json_arguments(arguments))
        yield Finish("tool_calls")
