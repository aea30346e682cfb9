"""`--tab "AGENT[@DIR]"`: which agent a tab runs, and in which directory. Pure.

An agent's command line can hold an `@` of its own (`npx @zed-industries/claude-code-acp`),
so only the last `@` splits, and only when what follows it is a directory."""

from __future__ import annotations

from pathlib import Path


def split_tab(value: str, base: Path) -> tuple[str, Path | None]:
    """(the agent, the directory or None for the default); a relative directory is taken
    from `base`."""
    agent, at, where = value.rpartition("@")
    if at and agent.strip() and where.strip():
        path = Path(where.strip()).expanduser()
        path = path if path.is_absolute() else base / path
        if path.is_dir():
            return agent.strip(), path.resolve()
    return value.strip(), None
