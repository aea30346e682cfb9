"""The multi-line prompt: Enter sends, modified Enters add a line, Up/Down recall history."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import App, ComposeResult

from tui.keys import register_alt_enter
from tui.prompt.history import MAX_ENTRIES, PromptHistory, history_path
from tui.widgets.prompt.prompt import PromptArea


class Host(App[None]):
    def __init__(self, history: PromptHistory, queued: list[str] | None = None) -> None:
        super().__init__()
        self.history = history
        self.queued = queued if queued is not None else []
        self.sent: list[str] = []
        self.end_requests = 0

    def compose(self) -> ComposeResult:
        yield PromptArea(self.history, self.take_queued, id="prompt")

    def take_queued(self) -> str | None:
        return self.queued.pop() if self.queued else None

    def on_prompt_area_submitted(self, event: PromptArea.Submitted) -> None:
        self.sent.append(event.text)
        event.prompt.clear()

    def on_prompt_area_end_requested(self, event: PromptArea.EndRequested) -> None:
        self.end_requests += 1


async def test_enter_sends_and_modified_enters_add_a_line() -> None:
    register_alt_enter()
    app = Host(PromptHistory(None))
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c", "alt+enter", "d")
        assert prompt.text == "a\nb\nc\nd"
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == ["a\nb\nc\nd"]
        assert prompt.text == ""


async def test_the_prompt_grows_to_eight_lines_then_scrolls() -> None:
    app = Host(PromptHistory(None))
    async with app.run_test(size=(80, 30)) as pilot:
        prompt = app.query_one(PromptArea)
        prompt.load("one")
        await pilot.pause()
        assert prompt.outer_size.height == 3
        prompt.load("\n".join(f"line {n}" for n in range(4)))
        await pilot.pause()
        assert prompt.outer_size.height == 6
        prompt.load("\n".join(f"line {n}" for n in range(20)))
        await pilot.pause()
        assert prompt.outer_size.height == 10
        assert prompt.max_scroll_y > 0


async def test_up_and_down_recall_history_and_keep_the_draft() -> None:
    app = Host(PromptHistory(None, ["first", "second\nline"]))
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("d", "r", "a", "f", "t")
        await pilot.press("up")
        assert prompt.text == "second\nline"
        await pilot.press("up")  # the cursor is on the entry's last line: it moves up first
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("up")  # the oldest: stays
        assert prompt.text == "first"
        await pilot.press("down")
        assert prompt.text == "second\nline"
        await pilot.press("down")
        assert prompt.text == "draft"


async def test_up_on_an_empty_prompt_takes_back_the_last_queued_prompt_first() -> None:
    app = Host(PromptHistory(None, ["older"]), queued=["queued one", "queued two"])
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("up")
        assert prompt.text == "queued two"
        assert app.queued == ["queued one"]


async def test_end_on_an_empty_prompt_asks_for_the_transcript_end() -> None:
    app = Host(PromptHistory(None))
    async with app.run_test() as pilot:
        await pilot.press("end")
        await pilot.pause()
        assert app.end_requests == 1
        await pilot.press("x", "home", "end")
        await pilot.pause()
        assert app.end_requests == 1


def test_history_is_kept_per_workspace_across_runs(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    first = PromptHistory(path)
    first.add("one")
    first.add("two\nlines")
    first.add("two\nlines")  # not twice in a row
    again = PromptHistory(path)
    assert again.entries == ["one", "two\nlines"]
    assert history_path(Path("/a")) != history_path(Path("/b"))


def test_history_keeps_the_newest_entries_and_skips_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    history = PromptHistory(path)
    for index in range(MAX_ENTRIES + 5):
        history.add(f"p{index}")
    with path.open("a") as handle:
        handle.write('"torn')
    loaded = PromptHistory(path).entries
    assert len(loaded) == MAX_ENTRIES - 1  # the newest lines, less the torn one
    assert loaded[-1] == f"p{MAX_ENTRIES + 4}"


async def test_mention_chips_are_never_markup() -> None:
    """A file name is the agent's to choose: `[/b]` closes a tag never opened (a MarkupError
    took the app down) and `[@click=app.quit]` made a chip that quit the app when clicked."""
    app = Host(PromptHistory(None))
    async with app.run_test(size=(100, 10)) as pilot:
        prompt = app.query_one(PromptArea)
        prompt.load("see @[/b]crash.txt and @[@click=app.quit]q.txt")
        prompt.show_mentions()
        await pilot.pause()
        assert prompt.border_subtitle is not None
        assert "@[/b]crash.txt @[@click=app.quit]q.txt" in str(prompt._border_subtitle)
        bottom = prompt.outer_size.height - 1
        for x in range(prompt.outer_size.width):  # every cell of the border holding the chips
            await pilot.click(PromptArea, offset=(x, bottom))
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_what_enters_the_prompt_is_cleaned() -> None:
    """Keys, a paste, a completed path or a recalled prompt: a TextArea draws its document
    to the terminal as it is, so escapes are dropped and bidi controls named on the way in."""
    history = PromptHistory(None, ["old \x1b]52;c;cm0gLXJmIH4gIw==\x07clip \x1b]2;T\x1b\\x"])
    app = Host(history)
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("up")
        assert prompt.text == "old clip x"
        prompt.load("")
        prompt.insert("a\x1b[2Jb\u202ec\u200dd")  # the emoji joiner is prose, kept
        assert prompt.text == "a" + "b⟨U+202E⟩c\u200dd"
        prompt.load("")
        await pilot.pause()
        app.post_message(events.Paste("p\x9b2Jq\x1bPdcs\x1b\\r"))
        await pilot.pause()
        assert prompt.text == "p2Jqr"  # an 8-bit CSI loses its introducer, as agent text does
