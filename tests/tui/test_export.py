"""The exporter, on state: Markdown with fenced diffs and commands, HTML with no raw markup
from agent text, names and 0600 files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from acp.schema import FileEditToolCallContent, TerminalToolCallContent

from tui.export import export, export_paths, fence, to_html, to_markdown
from tui.state import MessageEntry, NoticeEntry, ToolCallEntry
from tui.transcript.text import CommandRun


def conversation() -> list[MessageEntry | NoticeEntry | ToolCallEntry]:
    edit = FileEditToolCallContent(type="diff", path="a.py", old_text="x = 1\n", new_text="x = 2\n")
    run = TerminalToolCallContent(type="terminal", terminal_id="t1")
    return [
        MessageEntry("user", "please"),
        MessageEntry("thought", "hmm\nyes"),
        MessageEntry("agent", "Done: `x` is **2**.\n\n<script>alert(1)</script>"),
        ToolCallEntry("e", "Edit a.py", "edit", "completed", [edit]),
        ToolCallEntry("r", "Run make", "execute", "failed", [run]),
        NoticeEntry("agent stopped", "warning"),
    ]


RUNS = {"t1": CommandRun("make: *** [all] Error 2", 2, exited=True)}


def test_markdown_has_every_entry_in_order() -> None:
    text = to_markdown(conversation(), RUNS.get, "demo")
    assert text.startswith("# demo\n\n## You\n\nplease\n\n*Thought*\n\n> hmm\n> yes\n\n## Agent")
    assert "```diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```" in text
    assert "### ✕ Run make" in text
    assert "```console\nmake: *** [all] Error 2\n```\n\n**exit 2**" in text
    assert text.index("Edit a.py") < text.index("Run make") < text.index("agent stopped")


def test_a_fence_is_longer_than_any_backticks_inside() -> None:
    assert fence("a ```` b", "console").startswith("`````console\n")


def test_html_shows_agent_markup_as_text() -> None:
    page = to_html(to_markdown(conversation(), RUNS.get))
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert '<code class="language-diff">' in page and "<strong>2</strong>" in page


def test_paths_and_private_files(tmp_path: Path) -> None:
    stamp = datetime(2026, 1, 2, 3, 4, 5)
    assert export_paths("", tmp_path, stamp) == (
        tmp_path / "dsh-conversation-20260102-030405.md",
        tmp_path / "dsh-conversation-20260102-030405.html",
    )
    assert export_paths("talk.md", tmp_path)[1] == tmp_path / "talk.html"
    assert export_paths(str(tmp_path / "x"), Path("/elsewhere"))[0] == tmp_path / "x.md"
    existing = tmp_path / "talk.md"
    existing.write_text("old")
    existing.chmod(0o644)
    md, page = export(conversation(), export_paths("talk", tmp_path), RUNS.get)
    assert md.read_text().startswith("# dsh-tui conversation")
    assert md.stat().st_mode & 0o777 == 0o600 and page.stat().st_mode & 0o777 == 0o600
