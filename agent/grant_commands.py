"""`/permissions`: the session's "always allow" grants, listed and revoked.

A slash command, so any ACP client can use it (it is in `available_commands`); dsh-tui's
palette entry "Permissions…" sends it too. Revoking takes effect at the next call: a grant
only ever lets a call through without asking, so removing one can only make the agent ask.
"""

from __future__ import annotations

from agent.permissions import Grants

USAGE = "`/permissions` lists them; `/permissions revoke N` or `/permissions revoke all`"


def grant_list(grants: Grants) -> list[tuple[str, str | None]]:
    """The grants in a stable order: workspace tools first, then outside paths."""
    listed: list[tuple[str, str | None]] = [(tool, None) for tool in sorted(grants.workspace)]
    listed += [(tool, path) for tool, path in sorted(grants.outside)]
    return listed


def describe(tool: str, path: str | None) -> str:
    return f"`{tool}` in the workspace" if path is None else f"`{tool}` on `{path}`"


def permissions_command(grants: Grants, argument: str) -> str:
    """The reply to `/permissions [revoke N|all]`, after doing what it asks."""
    listed = grant_list(grants)
    words = argument.split()
    if not words:
        if not listed:
            return 'No "always allow" grants in this session: calls ask as the mode says.\n'
        lines = ['**"Always allow" grants in this session**', ""]
        lines += [f"{n}. {describe(tool, path)}" for n, (tool, path) in enumerate(listed, 1)]
        lines += ["", "Revoke one with `/permissions revoke N`, or `/permissions revoke all`."]
        return "\n".join(lines) + "\n"
    if words[0] != "revoke" or len(words) != 2:
        return f"Error: unknown argument {argument!r}. {USAGE}.\n"
    target = words[1]
    if target == "all":
        grants.workspace.clear()
        grants.outside.clear()
        count = len(listed)
        return f"Revoked {count} grant{'s' if count != 1 else ''}: every such call asks again.\n"
    if not target.isdigit() or not 1 <= int(target) <= len(listed):
        return f"Error: no grant {target!r} ({len(listed)} in this session). {USAGE}.\n"
    tool, path = listed[int(target) - 1]
    if path is None:
        grants.workspace.discard(tool)
    else:
        grants.outside.discard((tool, path))
    return f"Revoked: {describe(tool, path)}. It asks again from the next call.\n"
