"""dsh-tui against agents that behave like the foreign ones of issue 16, played raw by
script_agent.py: cancelled turns, replays, permission-only calls, odd input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted import notices, script_app, send

from support import turns_ended, wait_until, watch_turns
from tui.app import DshApp
from tui.pytest_plugin import diff_drawn
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.transcript.messages import AgentMessage


def cards(app: DshApp) -> dict[str, ToolCard]:
    return {card.entry.tool_call_id: card for card in app.query(ToolCard)}


def header(card: ToolCard) -> str:
    """The card's header as drawn (title, status, locations)."""
    return card._header.plain


def tool_call(call_id: str, title: str, status: str, **fields: Any) -> dict[str, Any]:
    update = {"sessionUpdate": "tool_call", "toolCallId": call_id, "title": title}
    return {"update": {**update, "status": status, **fields}}


async def test_a_cancelled_turn_settles_its_unfinished_cards_as_cancelled(tmp_path: Path) -> None:
    """A Shell card left `⠧ running` and another left `◌ pending` after "turn ended:
    cancelled": both show cancelled once the turn ends so, and stop spinning."""
    script = {
        "prompts": [
            [
                tool_call("shell-1", "Shell", "in_progress", kind="execute"),
                tool_call("edit-1", "Edit hello.py", "pending", kind="edit"),
                tool_call("read-1", "Read a.py", "completed", kind="read"),
                {"sleep": 30},
                {"echo": "not reached: the turn was cancelled "},
            ]
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: len(cards(app)) == 3)
        await pilot.press("escape")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await pilot.pause()
        found = cards(app)
        assert found["shell-1"].entry.status == "cancelled"
        assert found["edit-1"].entry.status == "cancelled"
        assert found["read-1"].entry.status == "completed"
        assert "turn ended: cancelled" in notices(app)
        face = header(found["shell-1"])
        assert "⊘ cancelled" in face and "running" not in face
        assert "⊘ cancelled" in header(found["edit-1"])


async def test_a_load_replay_settles_unfinished_cards_as_unknown(tmp_path: Path) -> None:
    """A card replayed by session/load as in progress no longer spins for ever."""
    script = {
        "load": [
            {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}},
            tool_call("old-1", "Shell", "in_progress", kind="execute")["update"],
            tool_call("old-2", "Read a.py", "completed", kind="read")["update"],
        ],
        "prompts": [[]],
    }
    app = script_app(tmp_path, script, resume="s1")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: len(cards(app)) == 2)
        await pilot.pause()
        found = cards(app)
        assert found["old-1"].entry.status == "unknown"
        assert found["old-2"].entry.status == "completed"
        face = header(found["old-1"])
        assert "? unknown" in face and "running" not in face


async def test_a_message_between_turns_starts_its_own_entry(tmp_path: Path) -> None:
    """After a mode switch an agent says `[MODE_UPDATE] autoEdit`: it used to be glued to the
    previous reply as `ok, not changed.[MODE_UPDATE] autoEdit`."""
    script = {
        "modes": {
            "currentModeId": "default",
            "availableModes": [
                {"id": "default", "name": "Default"},
                {"id": "autoEdit", "name": "Auto edit"},
            ],
        },
        "modeMessage": "[MODE_UPDATE] {mode}",
        "prompts": [[{"echo": "ok, not changed: "}]],
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot, "mode?")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: len(app.query(AgentMessage)) == 2)
        sources = [message.source for message in app.query(AgentMessage)]
        assert sources == ["ok, not changed: mode?", "[MODE_UPDATE] autoEdit"]
        # The next turn's reply is its own entry too, after the prompt.
        await send(app, pilot, "again")
        await wait_until(pilot, lambda: turns_ended(app) == 2)
        await wait_until(pilot, lambda: len(app.query(AgentMessage)) == 3)
        assert app.query(AgentMessage)[-1].source == "ok, not changed: again"


OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
# As one major CLI agent asks: the whole call in the question, no tool_call before it.
ASKED_ONLY_CALL = {
    "toolCallId": "toolu_01ABC",
    "title": "Write hello.py",
    "kind": "edit",
    "status": "pending",
    "content": [
        {"type": "diff", "path": "/w/hello.py", "oldText": None, "newText": "print('hi')\n"}
    ],
    "locations": [{"path": "/w/hello.py"}],
    "rawInput": {"file_path": "/w/hello.py", "content": "print('hi')\n"},
}


async def test_a_call_asked_only_as_a_permission_question_gets_a_card(tmp_path: Path) -> None:
    """The card is there while the question is open; a rejection leaves it, marked rejected;
    an allowed call is then updated by the agent as usual."""
    from tui.widgets.permission import PermissionPanel

    allowed_then_done = {
        "update": {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "toolu_01ABC",
            "status": "completed",
        }
    }
    script = {
        "prompts": [
            [{"permission": {"toolCall": ASKED_ONLY_CALL, "options": OPTIONS}}],
            [{"permission": {"toolCall": ASKED_ONLY_CALL, "options": OPTIONS}}, allowed_then_done],
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        await wait_until(pilot, lambda: "toolu_01ABC" in cards(app))
        card = cards(app)["toolu_01ABC"]
        assert card.entry.title == "Write hello.py" and card.entry.kind == "edit"
        assert card.entry.status == "pending"
        await pilot.press("tab")  # the question takes the keys
        await pilot.press("r")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await pilot.pause()
        assert card.entry.status == "rejected"
        assert "✕ rejected" in header(card)

        # The same id asked again is the same card; allowed, the agent's update completes it.
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        await pilot.press("tab")  # the question takes the keys
        await pilot.press("a")
        await wait_until(pilot, lambda: turns_ended(app) == 2)
        assert list(cards(app)) == ["toolu_01ABC"]
        assert app.controller.conversation.tool_calls["toolu_01ABC"].status == "completed"


async def test_raw_input_previews_are_sanitised_json(tmp_path: Path) -> None:
    """`{'command': "…\\\\033…"}` was a Python repr: the preview is the JSON the agent sent,
    with nothing in it that could act on the terminal."""
    from tui.widgets.permission import PermissionPanel

    raw_input = {"command": "printf '\\033[31mred\\033[0m' \x1b]0;pwned\x07", "description": "Red"}
    call = {"toolCallId": "b1", "title": "Run printf", "kind": "execute", "rawInput": raw_input}
    script = {"prompts": [[{"permission": {"toolCall": call, "options": OPTIONS}}]]}
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        preview = str(app.query_one(PermissionPanel).query_one(".preview").render())
        assert preview.splitlines()[0] == "{"
        assert '"command": "printf \'\\\\033[31mred\\\\033[0m\' ' in preview
        assert '"description": "Red"' in preview
        assert "'command'" not in preview and "\x1b" not in preview and "\x07" not in preview
        await pilot.press("tab")  # the question takes the keys
        await pilot.press("r")
        await wait_until(pilot, lambda: turns_ended(app) == 1)


async def test_a_plan_entry_the_sdk_drops_gets_a_note(tmp_path: Path) -> None:
    """`priority: "urgent"` made the entry vanish with no note and no log line."""
    from tui.widgets.transcript.plan import PlanView

    plan = {
        "sessionUpdate": "plan",
        "entries": [
            {"content": "Fix the build", "priority": "urgent", "status": "pending"},
            {"content": "Write the tests", "priority": "high", "status": "done"},
            {"content": "Update the docs", "priority": "low", "status": "pending"},
        ],
    }
    app = script_app(tmp_path, {"prompts": [[{"update": plan}]]})
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await pilot.pause()
        shown = notices(app)
        assert "unsupported plan entry priority 'urgent' (not shown)" in shown
        assert "unsupported plan entry status 'done' (not shown)" in shown
        plan_text = str(app.query_one(PlanView).render())
        assert "Update the docs" in plan_text and "Fix the build" not in plan_text


async def test_terminal_content_with_an_unknown_id_is_noted_not_spinning(tmp_path: Path) -> None:
    """`{"type": "terminal", "terminalId": …}` for a terminal this client never created showed
    `⠇ running` for ever: the card says so instead, and no pane waits for output."""
    from tui.widgets.terminal.pane import TerminalPane

    content = [{"type": "terminal", "terminalId": "term_xyz"}]
    script = {
        "prompts": [
            [
                tool_call("t1", "Run tests", "in_progress", kind="execute", content=content),
                {"terminal": {"command": "printf 'ok\\n'", "toolCallId": "t2"}},
            ]
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: len(cards(app)) == 2)
        await pilot.pause()
        found = cards(app)
        assert not found["t1"].query(TerminalPane)
        assert found["t1"]._inline_source is not None
        assert "no terminal term\\_xyz (not shown)" in found["t1"]._inline_source
        # A terminal the client did create still gets its pane.
        assert len(found["t2"].query(TerminalPane)) == 1


LOOP = "for i in $(seq 1 60); do echo tick $i; sleep 1; done"


async def test_a_cancelled_turn_kills_the_client_terminals_it_left_open(tmp_path: Path) -> None:
    """An agent that never calls terminal/kill or terminal/release after a cancel left
    `/bin/sh -lc "for i in …; sleep 1"` running until quit. The cancelled turn's terminals are
    killed; one left open by a turn that ended normally runs on, listed in the Ctrl+K view."""
    from tui.widgets.capabilities import CapabilitiesScreen

    shell = {"command": "/bin/sh", "args": ["-lc", LOOP], "wait": False}
    script = {
        "prompts": [
            [{"terminal": {**shell, "toolCallId": "sh-1"}}, {"sleep": 30}, {"echo": "late "}],
            [{"terminal": {**shell, "toolCallId": "sh-2"}}],
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: "sh-1" in cards(app))
        assert app.controller.session is not None
        terminals = app.controller.session.client.terminals
        [first] = terminals.terminal_ids()
        await pilot.press("escape")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        status = terminals.info(first).exit_status
        assert status is not None and status.signal in ("SIGTERM", "SIGKILL")
        assert not terminals.info(first).released  # killed: the agent may still read it
        assert "stopped 1 client terminal the cancelled turn left open" in notices(app)
        assert cards(app)["sh-1"].entry.status == "cancelled"

        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 2)
        second = [tid for tid in terminals.terminal_ids() if tid != first]
        assert len(second) == 1
        assert terminals.info(second[0]).exit_status is None  # an ended turn kills nothing
        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: isinstance(app.screen, CapabilitiesScreen))
        listed = str(app.screen.query_one(".terminals").render())
        assert "Client terminals not released by the agent" in listed
        assert f"{first}  killed by" in listed
        assert f"{second[0]}  running" in listed and "/bin/sh -lc" in listed
        await pilot.press("escape")


async def test_escape_in_a_permission_question_cancels_the_turn(tmp_path: Path) -> None:
    """Esc answered `cancelled` and sent no session/cancel, so the agent went on with a turn the
    user had cancelled. Now the agent is told: the question is answered cancelled, the turn ends
    cancelled, and the actions after it never run."""
    from tui.widgets.permission import PermissionPanel

    script = {
        "prompts": [
            [
                {"permission": {"toolCall": ASKED_ONLY_CALL, "options": OPTIONS}},
                {"echo": "went on after the question: "},
            ]
        ]
    }
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        assert "esc cancel turn" in str(app.query_one(PermissionPanel).options_text())
        await pilot.press("escape")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await pilot.pause()
        text = "\n".join(message.source for message in app.query(AgentMessage))
        assert "permission outcome: cancelled" in text
        assert "went on after the question" not in text
        assert "turn ended: cancelled" in notices(app)
        assert cards(app)["toolu_01ABC"].entry.status == "cancelled"


def card_text(card: ToolCard, width: int = 80) -> list[str]:
    """The card's text body as drawn, line by line, trailing blanks cut."""
    from rich.console import Console

    assert card._inline is not None
    console = Console(width=width, record=True, color_system=None)
    console.print(card._inline)
    return [line.rstrip() for line in console.export_text().splitlines()]


async def test_indented_tool_output_keeps_its_text(tmp_path: Path) -> None:
    """A read result `     1\\timport sys` rendered as `1  import sys\\`, and indented lines of
    a paragraph lost their indentation."""

    def result(call_id: str, text: str) -> dict[str, Any]:
        block = {"type": "content", "content": {"type": "text", "text": text}}
        return tool_call(call_id, f"Read {call_id}", "completed", kind="read", content=[block])

    numbered = "     1\timport sys\n     2\t\n     3\tprint(sys.argv)\n"
    outline = "Found 2 matches:\n  src/a.py\n    line 3: TODO\nend"
    script = {"prompts": [[result("cat-n", numbered), result("grep", outline)]]}
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: len(cards(app)) == 2)
        await pilot.pause()
        found = cards(app)
        shown = [line for line in card_text(found["cat-n"]) if line.strip()]
        assert [line.split() for line in shown] == [
            ["1", "import", "sys"],
            ["2"],
            ["3", "print(sys.argv)"],
        ]
        assert not any(line.endswith("\\") for line in shown)
        # The numbers stay aligned as in the output: every line lost the same indentation.
        assert len({line.index(line.split()[0]) for line in shown}) == 1
        # Drawn as no-break spaces, which look the same.
        assert [line.replace("\xa0", " ") for line in card_text(found["grep"])] == [
            "Found 2 matches:",
            "  src/a.py",
            "    line 3: TODO",
            "end",
        ]


MODELS = {
    "currentModelId": "default",
    "availableModels": [
        {"modelId": "default", "name": "Default (recommended)", "description": "Sonnet"},
        {"modelId": "opus", "name": "Opus", "description": "For complex work"},
    ],
}
MODEL_OPTION = {
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


def header_text(app: DshApp) -> str:
    return str(app.query_one("#header").render())


async def test_models_offered_in_the_unstable_field_are_switched_with_set_model(
    tmp_path: Path,
) -> None:
    """Ctrl+L said "This agent offers no model choice" for agents that offer `models` and no
    model config option."""
    from tui.widgets.choice import ChoiceScreen

    script = {"sessionExtra": {"models": MODELS}, "prompts": [[]]}
    app = script_app(tmp_path, script)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: "model: Default (recommended)" in header_text(app))
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: "model: Opus" in header_text(app))
        await wait_until(pilot, lambda: bool(app.query(AgentMessage)))
        assert app.query_one(AgentMessage).source == "model set: opus"


async def test_the_model_config_option_is_preferred_over_offered_models(tmp_path: Path) -> None:
    from tui.widgets.choice import ChoiceScreen

    script = {
        "configOptions": [MODEL_OPTION],
        "sessionExtra": {"models": MODELS},
        "prompts": [[]],
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: "model: Offline" in header_text(app))
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: "model: DeepSeek Chat" in header_text(app))
        await pilot.pause(0.2)
        assert not app.query(AgentMessage)  # no session/set_model was sent


async def test_a_whole_file_diff_previews_from_its_first_change(tmp_path: Path) -> None:
    """Agents that send whole files as oldText/newText: the permission preview showed
    `- import sys` / `+ import sys` for the unchanged head and not the change. It is the diff
    panel's (tui/widgets/permission.py), folded, from the first change on."""
    from tui.widgets.diff.panel import DiffPanel
    from tui.widgets.permission import PermissionPanel

    def source(three: str, greeting: str) -> str:
        body = [f"def f{i}():\n    return {three if i == 3 else i}\n" for i in range(12)]
        return "\n".join(["import sys", "import os", "", *body, f"print({greeting!r})", ""])

    old, new = source("3", "hi"), source("33", "hello")
    call = {
        "toolCallId": "zed-1",
        "title": "Edit hello.py",
        "kind": "edit",
        "status": "pending",
        "content": [{"type": "diff", "path": "/w/hello.py", "oldText": old, "newText": new}],
    }
    script = {"prompts": [[{"permission": {"toolCall": call, "options": OPTIONS}}]]}
    app = script_app(tmp_path, script)
    watch_turns(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        preview = app.query_one(PermissionPanel).query_one(DiffPanel)
        await diff_drawn(pilot, preview)
        await pilot.pause()
        shown = [preview.render_line(y).text.rstrip() for y in range(preview.size.height)]
        changes = [line for line in shown if " - " in line or " + " in line]
        assert "unchanged lines" in shown[1]  # the unchanged head is folded
        assert not any("import" in line for line in shown)
        assert "return 3" in changes[0] and "- " in changes[0]
        assert "return 33" in changes[1] and "+ " in changes[1]
        await pilot.press("tab")  # the question takes the keys
        await pilot.press("r")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
