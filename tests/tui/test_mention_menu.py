"""The `@` menu in a host app, driven by keys: what it lists, and what Tab and Enter put in
the prompt (tests/mention_harness.py wires it as the app's prompt is meant to be)."""

from __future__ import annotations

from mention_harness import MentionHost, MentionPrompt

from support import wait_until
from tui.widgets.prompt.mention_menu import INDEXING, MentionMenu


def shown(menu: MentionMenu) -> list[str]:
    return str(menu.render()).splitlines()


async def type_text(pilot: object, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)  # type: ignore[attr-defined]


async def test_at_lists_paths_and_tab_takes_the_highlighted_one() -> None:
    app = MentionHost()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.query_one(MentionMenu)
        prompt = app.query_one(MentionPrompt)
        menu.reindex()  # built ahead here; the app builds it at the first `@`
        await wait_until(pilot, lambda: not menu.is_indexing)
        await type_text(pilot, "explain ")
        assert not menu.has_class("-visible")
        await type_text(pilot, "@app")
        assert menu.is_open and shown(menu)[:3] == [
            "src/app.py",
            "src/application/",
            "docs/apps.md",
        ]
        await pilot.press("down", "down", "up")
        assert menu.highlighted == 1
        await pilot.press("tab")
        assert prompt.text == "explain @src/application/ "
        assert prompt.cursor_location == (0, len(prompt.text))
        assert app.chosen == ["src/application/"]
        assert not menu.has_class("-visible")
        await type_text(pilot, "and @my")
        await pilot.press("enter")
        assert prompt.text == 'explain @src/application/ and @"notes/my app notes.txt" '


async def test_up_wraps_round_and_enter_takes_the_path_mid_text() -> None:
    app = MentionHost()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.query_one(MentionMenu)
        prompt = app.query_one(MentionPrompt)
        menu.reindex()  # built ahead here; the app builds it at the first `@`
        await wait_until(pilot, lambda: not menu.is_indexing)
        prompt.load_text("see @pro now")
        prompt.move_cursor((0, 8))
        await pilot.pause()
        assert shown(menu)[0] == "src/widgets/prompt.py"
        await pilot.press("up")
        assert menu.highlighted == len(shown(menu)) - 1
        await pilot.press("down", "enter")
        assert prompt.text == "see @src/widgets/prompt.py now"


async def test_the_menu_says_indexing_until_the_index_is_built() -> None:
    app = MentionHost(hold_index=True)
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.query_one(MentionMenu)
        await type_text(pilot, "@src")
        assert menu.is_indexing and shown(menu) == [INDEXING]
        assert not menu.is_open  # Enter still sends while nothing can be taken
        app.release.set()
        await wait_until(pilot, lambda: not menu.is_indexing)
        assert shown(menu)[0] == "src/"


async def test_no_match_says_so_and_leaves_the_keys_to_the_prompt() -> None:
    app = MentionHost()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.query_one(MentionMenu)
        menu.reindex()  # built ahead here; the app builds it at the first `@`
        await wait_until(pilot, lambda: not menu.is_indexing)
        await type_text(pilot, "@zzz")
        assert shown(menu) == ["no path matches 'zzz'"] and not menu.is_open
        await type_text(pilot, " ")
        assert not menu.has_class("-visible")


async def test_the_index_is_built_at_the_first_at_sign_not_at_start() -> None:
    """A start in a huge directory costs nothing until a mention is typed."""
    app = MentionHost()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.query_one(MentionMenu)
        await type_text(pilot, "explain the code")
        await pilot.pause(0.3)
        assert app.builds == 0 and not menu.is_indexing
        await type_text(pilot, " @app")
        await wait_until(pilot, lambda: menu.is_open)
        assert shown(menu)[0] == "src/app.py"
