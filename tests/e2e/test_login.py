"""Logging in over real pipes: an agent that answers session/new with auth_required gets a
login picker of its methods; an `agent` method is `authenticate`d and the session retried; an
`env_var` method asks for its variables and the agent restarts with them."""

from __future__ import annotations

import json
from pathlib import Path

from scripted import notices, script_app
from textual.widgets import Input, Static

from support import turns_ended, wait_until
from tui.session.controller import after_login
from tui.widgets.capabilities import CapabilitiesScreen
from tui.widgets.choice import ChoiceScreen
from tui.widgets.env_login import EnvLoginScreen
from tui.widgets.failure import AgentFailedScreen
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import UserMessage

METHODS = [
    {"id": "oauth", "name": "Log in with a browser", "description": "opens your account page"},
    {
        "id": "key",
        "name": "API key",
        "type": "env_var",
        "link": "https://acme.test/keys",
        "vars": [
            {"name": "ACME_KEY", "label": "Your key"},
            {"name": "ACME_REGION", "secret": False, "optional": True},
        ],
    },
]
TERMINAL = [{"id": "tty", "name": "Log in in a terminal", "type": "terminal", "args": ["login"]}]
SECRET = "sk-very-secret-value"


def log_lines(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_auth_required_opens_the_login_picker_then_the_session(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {
        "prompts": [[]],
        "sessionLog": str(log),
        "auth": {"methods": METHODS, "accept": "oauth"},
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        screen = app.screen
        assert isinstance(screen, ChoiceScreen)
        assert screen.title_text == "Log in to the agent"
        assert [choice.value for choice in screen.choices] == ["oauth", "key"]
        assert screen.choices[0].label == "Log in with a browser"
        assert screen.choices[0].detail == "opens your account page"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        assert [entry["method"] for entry in log_lines(log)] == ["authenticate", "session/new"]
        await app.action_quit()


async def test_declining_the_login_names_the_methods_on_the_failure_screen(
    tmp_path: Path,
) -> None:
    script = {"prompts": [[]], "auth": {"methods": METHODS, "accept": "oauth"}}
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen), timeout=60)
        assert app.controller.failure is not None
        assert "login cancelled" in app.controller.failure.reason


async def test_without_any_method_the_failure_says_the_agent_needs_a_login(
    tmp_path: Path,
) -> None:
    script = {"prompts": [[]], "auth": {"methods": [], "accept": "none"}}
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen), timeout=60)
        assert app.controller.failure is not None
        reason = app.controller.failure.reason
        assert "needs a login (auth_required); its auth methods: none" in reason


async def test_terminal_login_is_advertised_and_offered(tmp_path: Path) -> None:
    """Without a terminal to hand over (a headless run), the login says it failed and the
    methods are offered again; the real terminal run is in tests/tty/test_login.py."""
    record = tmp_path / "wire.jsonl"
    script = {"prompts": [[]], "auth": {"methods": TERMINAL, "accept": "none"}}
    app = script_app(tmp_path, script, record=record)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        screen = app.screen
        assert isinstance(screen, ChoiceScreen)
        assert [choice.value for choice in screen.choices] == ["tty"]
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is not screen, timeout=60)
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        failed = "the terminal login failed (could not run)"
        await wait_until(pilot, lambda: failed in notices(app), timeout=60)
        await app.action_quit()
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    sent = [line["msg"] for line in lines if "msg" in line]
    (initialize,) = [m for m in sent if m.get("method") == "initialize"]
    assert initialize["params"]["clientCapabilities"]["auth"] == {"terminal": True}


async def test_an_env_var_login_restarts_the_agent_with_the_values(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    record = tmp_path / "wire.jsonl"
    script = {
        "prompts": [[]],
        "sessionLog": str(log),
        "auth": {"methods": METHODS, "accept": "none", "env": {"ACME_KEY": SECRET}},
    }
    app = script_app(tmp_path, script, record=record)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EnvLoginScreen), timeout=60)
        form = app.screen
        assert isinstance(form, EnvLoginScreen)
        key, region = form.query(Input)
        assert key.password and not region.password  # secret by default; this one is not
        assert "https://acme.test/keys" in str(form.query_one(".link", Static).render())
        await pilot.press("enter", "enter")  # on past the key: it is not optional
        assert "Your key is needed" in str(form.query_one(".missing", Static).render())
        assert app.screen is form and key.has_focus
        key.value = SECRET
        await pilot.press("enter", "enter")  # to the optional region, then submit
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        assert log_lines(log)[-1]["envLogin"] is True  # the restarted agent had the key
        traffic = app.controller.traffic
        shown = b"".join(m.body() for m in traffic.since(traffic.first_seq)).decode()
        await app.action_quit()
    assert SECRET not in shown
    assert SECRET not in record.read_text()
    second = record.with_name("wire.after-login.jsonl")  # the restarted agent's wire
    assert '"session/new"' in record.read_text() and '"session/new"' in second.read_text()
    assert SECRET not in second.read_text()
    assert SECRET not in "".join(
        p.read_text() for p in (tmp_path / "logs").rglob("*") if p.is_file()
    )


def test_a_recording_after_a_login_is_named_for_the_first() -> None:
    first = Path("/r/wire.jsonl")
    assert after_login(first) == Path("/r/wire.after-login.jsonl")
    assert after_login(after_login(first)) == Path("/r/wire.after-login-2.jsonl")
    assert after_login(Path("/r/wire.after-login-2.jsonl")) == Path("/r/wire.after-login-3.jsonl")
    assert after_login(None) is None


async def test_backing_out_of_the_env_form_shows_the_methods_again(tmp_path: Path) -> None:
    script = {"prompts": [[]], "auth": {"methods": METHODS, "accept": "oauth"}}
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EnvLoginScreen), timeout=60)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("enter")  # oauth
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        await app.action_quit()


async def test_auth_required_at_a_prompt_opens_the_login_then_sends_it(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {
        "prompts": [[]],
        "sessionLog": str(log),
        "auth": {"methods": METHODS, "accept": "oauth", "atPrompt": True},
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: isinstance(app.screen, CapabilitiesScreen), timeout=60)
        shown = str(app.screen.query_one(".consequences").render())
        assert "auth methods the agent offers: Log in with a browser (agent), API key" in shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CapabilitiesScreen))
        app.query_one(PromptArea).text = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("enter")  # oauth
        await wait_until(pilot, lambda: turns_ended(app) == 2, timeout=60)
        assert app.controller.failure is None
        assert app.controller.session is not None
        assert [entry["method"] for entry in log_lines(log)] == ["session/new", "authenticate"]
        await pilot.pause()
        said = [str(message.render()) for message in app.query(UserMessage)]
        assert [text for text in said if "hello" in text] == [said[0]]  # retried, shown once
        await app.action_quit()


async def test_an_env_var_login_at_a_prompt_restarts_and_sends_it_again(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {
        "prompts": [[]],
        "sessionLog": str(log),
        "auth": {
            "methods": METHODS,
            "accept": "none",
            "atPrompt": True,
            "env": {"ACME_KEY": SECRET},
        },
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        app.query_one(PromptArea).text = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EnvLoginScreen), timeout=60)
        app.screen.query(Input).first().value = SECRET
        await pilot.press("enter", "enter")
        await wait_until(pilot, lambda: turns_ended(app) == 2, timeout=60)
        assert app.controller.failure is None
        assert log_lines(log)[-1]["envLogin"] is True
        await pilot.pause()
        said = [str(message.render()) for message in app.query(UserMessage)]
        assert len(said) == 1 and "hello" in said[0]  # sent again, shown once
        await app.action_quit()


REFUSING = [
    {"id": "cli", "name": "Log in with Acme", "description": "Run `acme /login` in a terminal"},
    {"id": "oauth", "name": "Log in with a browser"},
]


async def test_a_refused_login_says_why_and_offers_the_methods_again(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {
        "prompts": [[]],
        "sessionLog": str(log),
        "auth": {
            "methods": REFUSING,
            "accept": "oauth",
            "refuse": {"cli": "Method not implemented."},
            "atPrompt": True,
        },
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        app.query_one(PromptArea).text = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("enter")  # cli: the agent refuses it
        await wait_until(
            pilot, lambda: any("could not log in" in text for text in notices(app)), timeout=60
        )
        said = next(text for text in notices(app) if "could not log in" in text)
        assert "'Log in with Acme': Internal error (Method not implemented.)" in said
        assert "It says: Run `acme /login` in a terminal" in said
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        assert app.controller.failure is None  # the session is kept
        await pilot.press("down", "enter")  # oauth
        await wait_until(pilot, lambda: turns_ended(app) == 2, timeout=60)
        assert app.controller.failure is None
        methods = [entry.get("methodId") for entry in log_lines(log)]
        assert methods == [None, "cli", "oauth"]
        await app.action_quit()


async def test_a_refused_login_at_session_new_offers_the_methods_again(tmp_path: Path) -> None:
    script = {
        "prompts": [[]],
        "auth": {"methods": REFUSING, "accept": "oauth", "refuse": {"cli": "no"}},
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("enter")  # cli: refused
        await wait_until(
            pilot, lambda: any("could not log in" in text for text in notices(app)), timeout=60
        )
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        assert app.controller.failure is None
        await app.action_quit()
