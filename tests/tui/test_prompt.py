"""The multi-line prompt: Enter sends, modified Enters add a line, Up/Down recall history."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from tui.history import MAX_ENTRIES, PromptHistory, history_path
from tui.keys import register_alt_enter
from tui.widgets.prompt import PromptArea


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
