"""The model picker as dsh-agent's model select builds it with no key configured: DeepSeek's
rows are dimmed and say `⚠ needs DEEPSEEK_API_KEY` before any prompt is sent, every row is one
line, and the picker's own footer lists its keys instead of the app's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static

from agent.models.config import UNAVAILABLE_META_KEY, model_choices, resolve_settings
from tui.widgets.choice import ChoiceScreen, select_option_choices

LONG = "a-local-model-with-a-name-far-too-long-for-the-sixty-columns-of-the-picker"


def model_option(tmp_path: Path, **settings: Any) -> SessionConfigOptionSelect:
    """The `model` select as dsh-agent sends it (agent/session.py), for these settings."""
    configured = resolve_settings(config_path=tmp_path / "none.toml", env={}, **settings)
    return SessionConfigOptionSelect(
        id="model",
        name="Model",
        category="model",
        type="select",
        current_value="offline",
        options=[
            SessionConfigSelectOption(
                value=c.id,
                name=c.name,
                description=c.description,
                field_meta={UNAVAILABLE_META_KEY: c.unavailable} if c.unavailable else None,
            )
            for c in model_choices(configured)
        ],
    )


class PickerHost(App[None]):
    """A screen with keys of its own behind the picker, as the app has."""

    TITLE = "dsh-tui"
    BINDINGS = [Binding("ctrl+l", "bell", "Model"), Binding("ctrl+r", "bell", "Resume")]

    def __init__(self, option: SessionConfigOptionSelect) -> None:
        super().__init__()
        self.option = option
        self.picked: list[str | None] = []

    def on_load(self) -> None:
        self.theme = "textual-dark"

    def compose(self) -> ComposeResult:
        yield Static("the transcript")
        yield Footer()

    def on_mount(self) -> None:
        choices = select_option_choices(self.option)
        self.push_screen(ChoiceScreen("Model", choices, "offline"), self.picked.append)


def test_model_picker_without_a_key(snap_compare: Any, tmp_path: Path) -> None:
    """Offline (current, ●) with its description dim; deepseek-chat and deepseek-reasoner dim
    with `⚠ needs DEEPSEEK_API_KEY`; a long local model name cut with `…`; the footer says
    `↑↓ Move  enter Choose  esc Close` and nothing of the screen behind."""
    option = model_option(tmp_path, base_url="http://127.0.0.1:8080/v1", model=LONG)
    assert snap_compare(PickerHost(option), terminal_size=(80, 24))


async def test_the_picker_marks_rows_and_lists_only_its_own_keys(tmp_path: Path) -> None:
    app = PickerHost(model_option(tmp_path, base_url="http://127.0.0.1:8080/v1", model=LONG))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChoiceScreen)
        menu = screen.query_one(OptionList)
        rows = ["".join(s.text for s in menu.render_line(y)) for y in range(4)]
        assert "⚠ needs DEEPSEEK_API_KEY" in rows[1] and "⚠ needs DEEPSEEK_API_KEY" in rows[2]
        assert "⚠" not in rows[0] and "⚠" not in rows[3] and rows[3].rstrip().endswith("…")
        shown = {
            binding.description
            for binding in [active.binding for active in screen.active_bindings.values()]
            if binding.show
        }
        assert shown == {"Move", "Choose", "Close"}
        await pilot.press("down", "down", "up", "enter")  # deepseek-chat: cannot work yet
        await pilot.pause()
        assert app.picked == [] and app.screen is screen
        await pilot.press("up", "enter")
        await pilot.pause()
    assert app.picked == ["offline"]
