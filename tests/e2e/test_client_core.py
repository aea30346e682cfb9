"""The client core against a scripted ACP agent: permissions, fs, terminals, bad input, crashes."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from scripted import first_turn_replies, notices, replies, script_app, send

from support import turns_ended, wait_until, watch_turns
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.permission import PermissionPanel
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.conversation import MIN_MOUNTED, TRIM_SCREENS, ConversationView
from tui.widgets.transcript.messages import AgentMessage

OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "always", "name": "Allow always", "kind": "allow_always"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
EDIT_CALL = {
    "toolCallId": "call-1",
    "title": "Edit hello.py",
    "kind": "edit",
    "status": "pending",
    "content": [{"type": "diff", "path": "/w/hello.py", "oldText": "hi\n", "newText": "hello\n"}],
}


async def test_permission_keys_answer_with_the_agents_options(tmp_path: Path) -> None:
    permission = {"permission": {"toolCall": EDIT_CALL, "options": OPTIONS}}
    app = script_app(tmp_path, {"prompts": [[permission]]})
    async with app.run_test(size=(100, 30)) as pilot:
        for key, expected in (
            ("a", "selected allow"),
            ("A", "selected always"),
            ("r", "selected reject"),
        ):
            await send(app, pilot)
            await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
            panel = app.query_one(PermissionPanel)
            assert "Edit hello.py" in str(panel.border_title)
            # The prompt stays, with the keys: a question answers only once Tab gives it them.
            assert app.query_one(PromptArea).has_focus
            await pilot.press("tab", key)
            await wait_until(pilot, lambda: not app.controller.turn_running)
            assert f"permission outcome: {expected}" in replies(app)
            assert not app.query(PermissionPanel)
            assert app.query_one(PromptArea).display


async def test_escape_on_permission_answers_cancelled(tmp_path: Path) -> None:
    permission = {"permission": {"toolCall": EDIT_CALL, "options": OPTIONS}}
    app = script_app(tmp_path, {"prompts": [[permission]]})
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.controller.turn_running)
        assert "permission outcome: cancelled" in replies(app)


async def test_unknown_kinds_and_content_types_become_notes(tmp_path: Path) -> None:
    script = {
        "prompts": [
            [
                {"update": {"sessionUpdate": "hologram_update", "beam": 1}},
                {
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "t1",
                        "title": "Odd content",
                        "content": [{"type": "smell", "value": 1}],
                    }
                },
                {
                    "update": {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": "never-seen",
                        "status": "completed",
                        "title": "Late",
                    }
                },
                {
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "still \x1b]0;pwned\x07alive"},
                    }
                },
            ]
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        shown = notices(app)
        assert any("update kind 'hologram_update'" in n for n in shown)
        assert any("tool call content type 'smell'" in n for n in shown)
        cards = {card.entry.tool_call_id: card for card in app.query(ToolCard)}
        assert set(cards) == {"t1", "never-seen"}
        assert cards["never-seen"].entry.status == "completed"
        reply = app.query_one(AgentMessage)
        await wait_until(pilot, lambda: not reply.is_streaming)
        assert "\x1b" not in reply.source and "still" in reply.source and "alive" in reply.source


async def test_fs_is_confined_to_the_workspace(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret\n")
    work = tmp_path / "work"
    script = {
        "prompts": [
            [
                {"write": {"path": str(work / "notes" / "a.txt"), "content": "one\ntwo\nthree\n"}},
                {"read": {"path": str(work / "notes" / "a.txt"), "line": 2, "limit": 1}},
                {"read": {"path": str(outside)}},
                {"write": {"path": str(outside), "content": "overwritten"}},
            ]
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        text = await first_turn_replies(app, pilot)
        assert "write: ok" in text
        assert "read: 'two\\n'" in text
        assert text.count("error -32602") == 2
    assert (work / "notes" / "a.txt").read_text() == "one\ntwo\nthree\n"
    assert outside.read_text() == "top secret\n"


async def test_spec_terminal_runs_a_real_process(tmp_path: Path) -> None:
    script = {"prompts": [[{"terminal": {"command": "printf 'hi\\n'; exit 3"}}]]}
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        text = await first_turn_replies(app, pilot)
        assert 'terminal exit: {"exitCode": 3' in text
        assert "output: 'hi\\n'" in text


async def test_no_terminal_switch_turns_both_flags_off(tmp_path: Path) -> None:
    app = script_app(tmp_path, {"prompts": [[]]}, terminal=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        assert app.controller.session is not None
        caps = app.controller.session.capabilities
        assert caps.terminal is False
        assert caps.field_meta == {"terminal_output": False}


async def test_agent_dying_mid_turn_settles_cards_and_offers_restart(tmp_path: Path) -> None:
    script = {
        "prompts": [
            [
                {
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "t1",
                        "title": "Long job",
                        "status": "in_progress",
                    }
                },
                {"exit": 9},
            ]
        ]
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: app.controller.failure is not None)
        assert app.controller.failure is not None
        assert app.controller.failure.exit_code == 9
        assert "script agent exiting on purpose" in app.controller.failure.stderr_tail
        card = app.query_one(ToolCard)
        assert card.entry.status == "failed"


SETTINGS_SCRIPT: dict[str, Any] = {
    "modes": {
        "currentModeId": "ask",
        "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "full", "name": "Full access"}],
    },
    "configOptions": [
        {
            "type": "select",
            "id": "model",
            "name": "Model",
            "category": "model",
            "currentValue": "offline",
            "options": [
                {"value": "offline", "name": "Offline"},
                {"value": "deepseek-chat", "name": "DeepSeek Chat"},
            ],
        }
    ],
    "prompts": [
        [
            {
                "update": {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": [
                        {"name": "help", "description": "Show help"},
                        {"name": "demo", "description": "Play the demo"},
                    ],
                }
            },
            {"update": {"sessionUpdate": "session_info_update", "title": "Greeting fix"}},
            {"update": {"sessionUpdate": "usage_update", "used": 1200, "size": 64000}},
        ]
    ],
}


async def test_modes_models_title_usage_and_slash_commands(tmp_path: Path) -> None:
    from tui.widgets.capabilities import CapabilitiesScreen
    from tui.widgets.choice import ChoiceScreen
    from tui.widgets.prompt.command_menu import CommandMenu
    from tui.widgets.status import StatusLine

    app = script_app(tmp_path, SETTINGS_SCRIPT)
    watch_turns(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: "Greeting fix" in str(app.query_one("#header").render()))
        header = str(app.query_one("#header").render())
        assert "mode: Ask" in header and "model: Offline" in header
        assert "Greeting fix" in header
        assert "1,200 / 64,000" in str(app.query_one(StatusLine).render())

        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: app.controller.conversation.mode_id == "full")
        await wait_until(
            pilot, lambda: "mode: Full access" in str(app.query_one("#header").render())
        )

        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("down", "enter")
        await wait_until(
            pilot, lambda: "model: DeepSeek Chat" in str(app.query_one("#header").render())
        )

        await pilot.press("slash", "d")
        menu = app.query_one(CommandMenu)
        assert [command.name for command in menu.matches()] == ["demo"]
        await pilot.press("tab")
        assert app.query_one(PromptArea).text == "/demo "
        assert not menu.matches()

        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: isinstance(app.screen, CapabilitiesScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CapabilitiesScreen))


async def test_slash_menu_up_down_move_the_highlight_tab_and_enter_take_it(
    tmp_path: Path,
) -> None:
    """With the `/` menu open, Up and Down move its highlight (not through the history), and
    Tab or Enter take the highlighted command; Enter on a whole command then sends it."""
    from tui.widgets.prompt.command_menu import CommandMenu

    commands = [
        {"name": name, "description": f"the {name} command"} for name in ("help", "demo", "diff")
    ]
    update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
    app = script_app(tmp_path, {"prompts": [[{"update": update}], []]})
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)  # "go" is in the history now
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        prompt = app.query_one(PromptArea)
        menu = app.query_one(CommandMenu)

        await pilot.press("slash", "d")
        assert [command.name for command in menu.matches()] == ["demo", "diff"]
        await pilot.press("down")
        assert menu.completion() == "/diff "
        await pilot.press("tab")
        assert prompt.text == "/diff "

        prompt.text = ""
        await pilot.press("slash")
        await pilot.press("up")  # wraps to the last command, and recalls no history
        assert prompt.text == "/" and menu.completion() == "/diff "
        await pilot.press("up", "up", "down")
        assert menu.completion() == "/demo "
        await pilot.press("enter")
        assert prompt.text == "/demo " and not menu.is_open
        await pilot.pause()
        assert turns_ended(app) == 1  # taken, not sent

        prompt.text = "/help"
        await pilot.press("enter")  # the whole command: Enter sends it
        await wait_until(pilot, lambda: turns_ended(app) == 2)


async def test_a_long_session_stays_bounded_and_pages_back(tmp_path: Path) -> None:
    """600 calls from a real agent process: the view follows the end with a window of
    widgets bounded by the screen, and PageUp from the prompt pages back to the first call."""
    calls = 600
    script = {
        "prompts": [
            [
                {
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": f"c{index}",
                        "title": f"Read file{index}.py",
                        "kind": "read",
                        "status": "completed",
                    }
                }
                for index in range(calls)
            ]
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        view = app.query_one(ConversationView)
        entries = app.controller.conversation.entries
        await wait_until(pilot, lambda: view.hidden_count > 0)
        await pilot.pause()
        bound = max(MIN_MOUNTED, (2 * TRIM_SCREENS + 1) * 30)
        assert len(view.query(ToolCard)) < bound
        assert view.following and view.scroll_y == view.max_scroll_y

        await pilot.press("pageup")
        assert not view.following and view.scroll_y < view.max_scroll_y
        while view.scroll_y > 0:
            await pilot.press("pageup")
            await pilot.pause()
            assert len(view.query(ToolCard)) < bound
        await wait_until(pilot, lambda: view.hidden_count == 0)
        shown = [card.entry.tool_call_id for card in view.query(ToolCard)]
        assert shown == [f"c{index}" for index in range(len(shown))]
        assert view.scroll_y == 0 and entries[0] is view.entry_of(view.cursor_widgets()[0])


async def test_the_heap_is_frozen_once_the_first_screen_is_up(tmp_path: Path) -> None:
    """What `dsh-tui` asks for (tests leave it off): startup objects leave the GC's scans."""
    gc.unfreeze()
    app = script_app(tmp_path, {"prompts": [[]]}, freeze_heap=True)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: gc.get_freeze_count() > 0)
            # The app itself is among the frozen objects: no generation holds it any more.
            assert all(obj is not app for gen in range(3) for obj in gc.get_objects(gen))
    finally:
        gc.unfreeze()


async def test_resume_keeps_the_conversation_with_an_agent_that_cannot_load(
    tmp_path: Path,
) -> None:
    """Ctrl+R with an agent that offers no session/load: a notice, and nothing is thrown
    away (restarting it could never bring the conversation back)."""
    chunk = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "hello from the script"},
    }
    app = script_app(tmp_path, {"prompts": [[{"update": chunk}]]})
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: "hello from the script" in replies(app))
        session = app.controller.session
        await pilot.press("ctrl+r")
        await pilot.pause(0.3)
        assert app.controller.session is session
        assert "hello from the script" in replies(app)
        assert app.screen is app.screen_stack[0]  # no session picker came up
