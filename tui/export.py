"""The conversation as a Markdown file and a self-contained HTML file (`/export`, the palette).

Built only from the transcript's state (messages, cards, notices) and the terminals' output:
nothing the app holds apart from it (the environment, keys, settings) can reach a file. The
HTML is the Markdown rendered with raw HTML turned off, so agent text cannot add markup,
scripts or links to anything outside the file. Files are written 0600: a transcript may hold
file contents and command output.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from tui.state import Entry, MessageEntry, NoticeEntry, ToolCallEntry
from tui.transcript.text import RunLookup, card_parts, message_label, no_runs, unified_diff

STATUS = {
    "completed": "✓",
    "failed": "✕",
    "rejected": "✕",
    "cancelled": "⊘",
    "in_progress": "…",
    "pending": "…",
}


def fence(text: str, info: str = "") -> str:
    """A fenced block that no backtick run inside `text` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def card_markdown(entry: ToolCallEntry, runs: RunLookup) -> str:
    parts = card_parts(entry, runs)
    mark = STATUS.get(parts.status, "·")
    lines = [f"### {mark} {parts.title}", "", f"*{parts.kind} · {parts.status}*"]
    for text in parts.text:
        lines += ["", text]
    for diff in parts.diffs:
        lines += ["", fence(unified_diff(diff), "diff")]
    for terminal_id, run in parts.runs:
        if run is None:
            lines += ["", f"*terminal {terminal_id}: output not kept*"]
        else:
            lines += ["", fence(run.output, "console"), "", f"**{run.ending}**"]
    return "\n".join(lines)


def to_markdown(entries: Sequence[Entry], runs: RunLookup = no_runs, title: str = "") -> str:
    """The conversation, in order: prompts and replies as sections, thoughts quoted, cards
    with their diffs as fenced `diff` blocks and commands with their output and exit."""
    heading = f"# {title}" if title else "# dsh-tui conversation"
    out = [heading]
    for entry in entries:
        if isinstance(entry, MessageEntry):
            if entry.role == "thought":
                out.append(f"*{message_label(entry)}*\n\n{quoted(entry.text)}")
            elif entry.role == "user":
                out.append(f"## {message_label(entry)}\n\n{entry.text}")
            else:
                out.append(f"## {message_label(entry)}\n\n{entry.text}")
        elif isinstance(entry, NoticeEntry):
            out.append(f"*{entry.level}: {entry.text}*")
        else:
            out.append(card_markdown(entry, runs))
    return "\n\n".join(out) + "\n"


HTML_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52em; margin: 2em auto; padding: 0 1em;
       color: #1f2328; background: #fff; }
pre { background: #f6f8fa; padding: .8em; overflow-x: auto; border-radius: 6px; }
code { font: 13px/1.4 ui-monospace, monospace; }
blockquote { color: #59636e; border-left: 3px solid #d1d9e0; margin: 0; padding: 0 1em; }
h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .2em; }
h3 { font-size: 1em; background: #f6f8fa; padding: .3em .6em; border-radius: 6px; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; }
  pre, h3 { background: #161b22; }
}
"""


def to_html(markdown: str, title: str = "dsh-tui conversation") -> str:
    """The Markdown as one HTML file: inline style, no script, no external resource."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = renderer.render(markdown)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>\n"
        f"<title>{html.escape(title)}</title>\n<style>{HTML_STYLE}</style>\n"
        f"</head><body>\n{body}</body></html>\n"
    )


def export_paths(argument: str, workspace: Path, now: datetime | None = None) -> tuple[Path, Path]:
    """Where `/export [FILE]` writes: FILE.md and FILE.html (a `.md` or `.html` suffix given is
    dropped first), relative to the workspace; without FILE, `dsh-conversation-TIME`."""
    name = argument.strip()
    if not name:
        stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
        name = f"dsh-conversation-{stamp}"
    base = Path(name).expanduser()
    if base.suffix.lower() in (".md", ".html", ".htm"):
        base = base.with_suffix("")
    if not base.is_absolute():
        base = workspace / base
    return base.with_name(base.name + ".md"), base.with_name(base.name + ".html")


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path`, readable by its owner only (also when the file existed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def export(
    entries: Sequence[Entry], paths: tuple[Path, Path], runs: RunLookup = no_runs, title: str = ""
) -> tuple[Path, Path]:
    markdown = to_markdown(entries, runs, title)
    md_path, html_path = paths
    write_private(md_path, markdown)
    write_private(html_path, to_html(markdown, title or "dsh-tui conversation"))
    return md_path, html_path
