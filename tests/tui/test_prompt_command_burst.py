"""Enter (and Tab) after a command line typed in one burst: the command menu is asked about the
text as it is, not as its last Changed message said (the rest of the line, then Enter, arrive
before those messages)."""

from __future__ import annotations

from acp.schema import AvailableCommand
from textual.app import App, ComposeResult

from tui.prompt.history import PromptHistory
from tui.widgets.prompt.command_menu import CommandMenu
from tui.widgets.prompt.prompt import PromptArea


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.menu = CommandMenu(id="commands")

    def compose(self) -> ComposeResult:
        menu = self.menu
        menu.commands = [
            AvailableCommand(name="permissions", description="grants"),
            AvailableCommand(name="plan", description="a plan"),
        ]
        yield menu
        yield PromptArea(
            PromptHistory(None),
            menu=menu,
            on_submit=lambda _prompt, text: self.sent.append(text),
            id="prompt",
        )

    def on_text_area_changed(self, event: PromptArea.Changed) -> None:
        self.menu.typed = event.text_area.text  # as PromptInput does


async def test_enter_after_the_arguments_sends_the_line_not_the_command() -> None:
    app = Host()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        prompt.insert("/perm")
        await pilot.pause()
        assert app.menu.is_open
        prompt.insert("issions revoke 1")  # the rest of the burst, no Changed handled yet
        assert not prompt.take_command()  # Enter now: nothing to complete, the line goes
        assert prompt.text == "/permissions revoke 1"


async def test_enter_in_a_burst_completes_the_command_typed_now() -> None:
    app = Host()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        prompt.insert("/p")
        await pilot.pause()
        prompt.insert("l")  # `/pl`: only /plan now, though the menu last saw `/p`
        assert prompt.take_command()
        assert prompt.text == "/plan "
