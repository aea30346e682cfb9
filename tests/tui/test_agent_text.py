"""Agent text is made safe once, where it enters the client (tui/agent_text.py, applied by
tui/connection/client.py), and shown as plain text: no escape sequence, no hidden bidi control,
no live markup, whichever widget shows it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    InitializeResponse,
    ListSessionsResponse,
    NewSessionResponse,
    PermissionOption,
    RequestPermissionResponse,
    SessionInfoUpdate,
    ToolCallStart,
    ToolCallUpdate,
)
from hypothesis import given
from hypothesis import strategies as st
from textual.content import Content
from textual.widgets import OptionList

from tui.agent_text import clean, clean_error
from tui.app import AppConfig, DshApp
from tui.connection import TuiClient
from tui.fs import ConfinedFs
from tui.permissions import PendingPermission
from tui.sanitize import clean_line, reveal_invisible
from tui.state import Conversation
from tui.terminal.terminals import TerminalManager
from tui.widgets.cards.tool_card import header_text
from tui.widgets.choice import ChoiceScreen
from tui.widgets.permission import PermissionPanel

# Every family: CSI, OSC 0/2 titles, OSC 52 clipboard, OSC 8 link, DCS, APC, PM, SOS, RIS,
# 8-bit C1 (CSI, OSC, ST), a lone ESC; then bidi and invisible characters.
ESCAPES = (
    "\x1b[2J\x1b]0;T0\x07\x1b]2;T2\x1b\\\x1b]52;c;cm0gLXJmIH4gIw==\x07\x1b]8;;http://x\x07L"
    "\x1b]8;;\x07\x1bP1$r\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\\x1bc\x9b31m\x9d0;c1\x9c"
)
BIDI = "\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\u2028\u2029\ufeff"
HOSTILE = f"{ESCAPES}x{BIDI}y"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")  # LF and TAB end or break lines
MARKUP = "[@click=app.quit]quit[/]"


def strings(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every (path, string) in a dumped model: keys and values."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            found += [(f"{path}.{key}", key), *strings(item, f"{path}.{key}")]
        return found
    if isinstance(value, list):
        return [pair for i, item in enumerate(value) for pair in strings(item, f"{path}[{i}]")]
    return []


def unsafe(model: Any, raw: tuple[str, ...] = ()) -> list[str]:
    """Paths of strings that still carry a control or a hidden character, except `raw` ones."""
    dumped = model.model_dump(by_alias=True) if hasattr(model, "model_dump") else model
    return [
        f"{path}={text!r}"
        for path, text in strings(dumped)
        if UNSAFE.search(text) and not any(path.endswith(r) for r in raw)
    ]


def hostile_tool_call(title: str = ESCAPES) -> ToolCallStart:
    return ToolCallStart.model_validate(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": HOSTILE,
            "title": title,
            "kind": HOSTILE,
            "status": "pending",
            "locations": [{"path": f"/w/{HOSTILE}.py", "line": 3}],
            "content": [
                {"type": "diff", "path": f"/w/{HOSTILE}", "oldText": HOSTILE, "newText": HOSTILE},
                {"type": "content", "content": {"type": "text", "text": f"out\n{HOSTILE}"}},
            ],
            "rawInput": {HOSTILE: [HOSTILE, 1]},
            "_meta": {
                "terminal_info": {"terminal_id": HOSTILE, "cwd": HOSTILE},
                "terminal_output": {"terminal_id": "t", "data": HOSTILE},
            },
        }
    )


class Sink:
    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.asked: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []

    def on_session_update(self, session_id: str, update: Any) -> None:
        self.updates.append(update)

    def on_unsupported(self, session_id: str, what: str) -> None:
        pass

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        from tui.permissions import cancelled

        return cancelled()


def client(tmp_path: Path) -> tuple[TuiClient, Sink]:
    sink = Sink()
    tui_client = TuiClient(sink, ConfinedFs([tmp_path]), TerminalManager(default_cwd=tmp_path))
    tui_client.session_opened("s1")
    return tui_client, sink


# ---------------------------------------------------------------------------- the choke point


async def test_an_escape_only_title_shows_the_kind_not_the_tool_call_id(tmp_path: Path) -> None:
    """A title that is empty or only escapes writes nothing to the terminal, and the card
    names the call by its kind, not by the agent's id (which is hostile here)."""
    tui_client, sink = client(tmp_path)
    for title in (ESCAPES, ""):
        await tui_client.session_update("s1", hostile_tool_call(title))
    conversation = Conversation()
    for update in sink.updates:
        conversation.apply(update)
    (entry,) = conversation.tool_calls.values()  # both updates name the same, cleaned, id
    shown = header_text(entry, tmp_path).plain
    assert not any(UNSAFE.search(line) for line in shown.split("\n")), shown
    title_line = shown.splitlines()[0]
    assert title_line.startswith("• tool call  "), shown  # an unknown kind: no name from it


async def test_every_string_of_an_update_is_cleaned_but_diff_and_terminal_bodies(
    tmp_path: Path,
) -> None:
    tui_client, sink = client(tmp_path)
    updates = [
        hostile_tool_call(),
        AgentMessageChunk.model_validate(
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": HOSTILE}}
        ),
        AgentPlanUpdate.model_validate(
            {
                "sessionUpdate": "plan",
                "entries": [{"content": HOSTILE, "priority": "high", "status": "pending"}],
            }
        ),
        AvailableCommandsUpdate.model_validate(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [{"name": HOSTILE, "description": HOSTILE}],
            }
        ),
        CurrentModeUpdate.model_validate(
            {"sessionUpdate": "current_mode_update", "currentModeId": HOSTILE}
        ),
        ConfigOptionUpdate.model_validate(
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [
                    {
                        "id": HOSTILE,
                        "name": HOSTILE,
                        "type": "select",
                        "currentValue": HOSTILE,
                        "options": [{"value": HOSTILE, "name": HOSTILE}],
                    }
                ],
            }
        ),
        SessionInfoUpdate.model_validate(
            {"sessionUpdate": "session_info_update", "title": HOSTILE}
        ),
    ]
    for update in updates:
        await tui_client.session_update("s1", update)
    raw = (".oldText", ".newText", "terminal_output.data")
    tool, message, *others = sink.updates
    for cleaned in (tool, *others):
        assert unsafe(cleaned, raw) == [], cleaned
    diff = tool.content[0]
    assert diff.old_text == HOSTILE and diff.new_text == HOSTILE  # the diff view shows them
    assert tool.field_meta["terminal_output"]["data"] == HOSTILE  # the pane's screen buffer
    assert tool.model_fields_set == updates[0].model_fields_set
    # Prose keeps its bidi marks and joiners (right-to-left text, emoji); controls go, and
    # overrides and isolates are shown.
    assert not re.search("[\x00-\x1f\x7f-\x9f]", message.content.text)
    assert message.content.text.endswith(
        "x⟨U+202E⟩⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩\u200b\u200c\u200d\u200e\u200f\u2028\u2029\ufeffy"
    )


async def test_a_permission_request_is_cleaned_before_it_is_asked(tmp_path: Path) -> None:
    tui_client, sink = client(tmp_path)
    call = ToolCallUpdate.model_validate({"toolCallId": HOSTILE, "title": HOSTILE})
    options = [PermissionOption(option_id=HOSTILE, name=HOSTILE, kind="allow_once")]
    await tui_client.request_permission("s1", call, options)
    ((asked, asked_options),) = sink.asked
    assert unsafe(asked) == [] and unsafe(asked_options[0]) == []
    assert "⟨U+202E⟩" in asked.title and "⟨U+202E⟩" in asked_options[0].name


def test_responses_are_cleaned_but_session_ids() -> None:
    init = clean(
        InitializeResponse.model_validate(
            {"protocolVersion": 1, "agentInfo": {"name": HOSTILE, "version": HOSTILE}}
        )
    )
    assert unsafe(init) == [] and init.agent_info is not None
    assert init.agent_info.name.startswith("L31m0;c1x⟨U+202E⟩")
    session = clean(
        NewSessionResponse.model_validate(
            {
                "sessionId": "s\x1b1",
                "modes": {
                    "currentModeId": HOSTILE,
                    "availableModes": [{"id": HOSTILE, "name": HOSTILE, "description": HOSTILE}],
                },
            }
        )
    )
    assert session.session_id == "s\x1b1"  # on the wire exactly; never shown unsanitised
    assert unsafe(session, (".sessionId",)) == []
    listed = clean(
        ListSessionsResponse.model_validate(
            {"sessions": [{"sessionId": "a", "cwd": "/w", "title": HOSTILE}]}
        )
    )
    assert unsafe(listed) == []


def test_free_form_fields_are_cleaned() -> None:
    update = clean(
        ConfigOptionUpdate.model_validate(
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [
                    {
                        "id": "x",
                        "name": "x",
                        "type": "select",
                        "currentValue": "a",
                        "category": {HOSTILE: [HOSTILE]},
                        "options": [{"value": "a", "name": "a"}],
                    }
                ],
            }
        )
    )
    assert unsafe(update) == []


def test_plain_updates_are_not_copied() -> None:
    chunk = AgentMessageChunk.model_validate(
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "héllo\n"}}
    )
    call = ToolCallStart.model_validate(
        {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read a.py"}
    )
    assert clean(chunk) is chunk and clean(call) is call


def test_errors_are_one_safe_line() -> None:
    from acp import RequestError

    text = clean_error(RequestError(-32603, f"bad\n{HOSTILE}"))
    assert not UNSAFE.search(text) and text.startswith("bad L")


# ---------------------------------------------------------------------------- bidi, visibly


@given(st.text())
def test_reveal_invisible_leaves_nothing_hidden(text: str) -> None:
    shown = clean_line(text)
    assert not UNSAFE.search(shown)
    assert not re.search("[\ud800-\udfff]", shown)
    assert reveal_invisible(shown) == shown  # idempotent: safe to apply twice


def test_reveal_invisible_names_the_character() -> None:
    assert reveal_invisible("exe.\u202etxt") == "exe.⟨U+202E⟩txt"
    assert reveal_invisible("a\u200bb\U000e0041") == "a⟨U+200B⟩b⟨U+E0041⟩"
    assert reveal_invisible("⚠️ עברית") == "⚠️ עברית"  # variation selectors and RTL letters stay


# ---------------------------------------------------------------------------- plain, not markup


async def test_notifications_are_plain_text(monkeypatch: Any, tmp_path: Path) -> None:
    """`[@click=app.quit]` in a notification is shown as written, and a click does nothing;
    escapes in it are gone."""
    monkeypatch.setattr(DshApp, "start_agent", lambda self, resume=None: None)
    app = DshApp(AppConfig(cwd=tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        app.notify(f"Could not switch mode: {MARKUP} {ESCAPES}", severity="error")
        await pilot.pause(0.3)
        (notification,) = app._notifications
        assert notification.markup is False
        assert MARKUP in notification.message and not UNSAFE.search(notification.message)
        from textual.widgets._toast import Toast

        toast = app.screen.query_one(Toast)
        assert MARKUP in str(toast.render())
        await pilot.click(Toast, offset=(2, 1))
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_the_quit_hint_reads_well_as_plain_text(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setattr(DshApp, "start_agent", lambda self, resume=None: None)
    app = DshApp(AppConfig(cwd=tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        app.action_help_quit()
        await pilot.pause()
        (notification,) = app._notifications
        assert notification.message == "Press ctrl+q to quit the app"


async def test_choices_and_permission_titles_are_plain_text(
    monkeypatch: Any, tmp_path: Path
) -> None:
    monkeypatch.setattr(DshApp, "start_agent", lambda self, resume=None: None)
    app = DshApp(AppConfig(cwd=tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(ChoiceScreen("Model", [("m", MARKUP)], None))
        await pilot.pause()
        menu = app.screen.query_one(OptionList)
        rows = ["".join(s.text for s in menu.render_line(y)) for y in range(4)]
        assert any(MARKUP in row for row in rows), rows
    call = ToolCallUpdate.model_validate({"toolCallId": "c", "title": MARKUP})
    panel = PermissionPanel(PendingPermission("s1", call, []), tmp_path)
    assert Content.from_markup(str(panel.border_title)).plain.endswith(MARKUP)
