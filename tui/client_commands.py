"""The client's own slash commands, `/export [FILE]` and `/new`: recognised here, run by the app
(tui/conversation_tools.py), and never sent, whatever the agent offers: an agent command of the
same name is shadowed (docs/client.md, "Keys")."""

from __future__ import annotations

import re

CLIENT_COMMANDS = {
    "export": "write the conversation as FILE.md and FILE.html (in the workspace by default)",
    "new": "a new session: the old one closed, the transcript cleared",
}
_COMMAND = re.compile(r"/(export|new)(?:[ \t]+(.*))?", re.DOTALL)


def parse_client_command(text: str) -> tuple[str, str] | None:
    """`(name, argument)` when `text` is one of the client's commands, else None."""
    match = _COMMAND.fullmatch(text.strip())
    if match is None:
        return None
    name, argument = match.group(1), (match.group(2) or "").strip()
    if name == "new" and argument:
        return None  # not this command: `/new` takes nothing
    return name, argument
