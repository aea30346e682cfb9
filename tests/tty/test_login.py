"""Logging in as a person meets it at 80×24: an env_var method's form (the secret masked, the
link shown) restarts the agent with the values."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, script_agent_command

Start = Callable[..., TtyApp]
SECRET = "sk-typed-in-the-form"
KEY_METHOD = {
    "id": "key",
    "name": "API key",
    "type": "env_var",
    "link": "https://acme.test/keys",
    "vars": [{"name": "ACME_KEY", "label": "Your key"}],
}


def test_an_env_var_login_masks_the_key_and_restarts_the_agent(tty: Start, home: Path) -> None:
    script = {
        "agent_name": "keyed",
        "prompts": [[]],
        "auth": {"methods": [KEY_METHOD], "accept": "none", "env": {"ACME_KEY": SECRET}},
    }
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    app.wait_for("Log in to the agent", timeout=60)
    app.wait_for("asks for ACME_KEY", timeout=30)
    app.key("enter")
    app.wait_for("Log in: API key", timeout=30)
    app.wait_for("https://acme.test/keys", timeout=30)
    app.type(SECRET)
    lines = app.wait_for("•" * len(SECRET), timeout=30)
    assert SECRET not in "\n".join(lines), app.dump()
    app.key("enter")
    lines = app.wait_for(header_ready, timeout=60)
    assert "keyed" in lines[0], app.dump()
    app.wait_for("restarting the agent with the login's variables", timeout=30)


def terminal_script(home: Path, code: str = "1234") -> dict[str, object]:
    method = {
        "id": "tty",
        "name": "Log in in a terminal",
        "type": "terminal",
        "args": ["login"],
        "env": {"ACME_LOGIN": "from-the-method"},
    }
    marker = str(home / "logged-in")
    return {
        "agent_name": "termed",
        "prompts": [[]],
        "auth": {
            "methods": [method],
            "accept": "none",
            "terminal": {"marker": marker, "code": code},
        },
    }


def test_a_terminal_login_runs_in_the_real_terminal_then_reconnects(tty: Start, home: Path) -> None:
    script = terminal_script(home)
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    app.wait_for("Log in in a terminal", timeout=60)
    app.key("enter")
    app.wait_for("type the code and press Enter", timeout=60)
    app.wait_for("dsh-tui: logging in to the agent:", timeout=30)
    app.type("1234")
    app.key("enter")
    lines = app.wait_for(header_ready, timeout=60)
    assert "termed" in lines[0], app.dump()
    app.wait_for("logged in in the terminal; reconnecting", timeout=30)
    assert (home / "logged-in").read_text() == "from-the-method"


def test_a_failed_terminal_login_says_so_and_offers_the_methods_again(
    tty: Start, home: Path
) -> None:
    script = terminal_script(home)
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    app.wait_for("Log in in a terminal", timeout=60)
    app.key("enter")
    app.wait_for("type the code and press Enter", timeout=60)
    app.type("0000")
    app.key("enter")
    app.wait_for("Log in to the agent", timeout=60)
    app.key("escape")
    app.wait_for("the terminal login failed (exit status 3)", timeout=60)
    assert not (home / "logged-in").exists()


def boxed_words(lines: list[str]) -> str:
    """The words inside the picker's box, its borders and line breaks gone: a wrapped line
    read whole."""
    inside = [line.split("▊", 1)[1].rsplit("▎", 1)[0] for line in lines if "▊" in line]
    return " ".join(" ".join(inside).split())


LONG_INSTRUCTION = "Run `acme /login` in a terminal, then come back and choose this again"


def test_a_refused_login_is_said_whole_and_no_agent_escape_reaches_the_terminal(
    tty: Start, home: Path
) -> None:
    """The method's instruction is a line of its own, whole at 80 columns; the agent's
    refusal is said with it; escapes in either never reach the terminal."""
    methods = [
        {
            "id": "cli",
            "name": "Log in\x1b]0;EVILNAME\x07 with Acme",
            "description": LONG_INSTRUCTION,
        },
        {"id": "oauth", "name": "Log in with a browser"},
    ]
    script = {
        "agent_name": "refusing",
        "prompts": [[]],
        "auth": {
            "methods": methods,
            "accept": "oauth",
            "refuse": {"cli": "Method\x1b]52;c;cm0gLXJmIH4=\x07 not implemented."},
        },
    }
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=(80, 24))
    lines = app.wait_for("then come back", timeout=60)
    assert LONG_INSTRUCTION in boxed_words(lines), app.dump()
    app.key("enter")  # cli: the agent refuses it
    # The methods again, under why: said above the picker, which covers the transcript.
    lines = app.wait_for(lambda lines: "not implemented" in "\n".join(lines), timeout=60)
    screen = " ".join(" ".join(lines).split())
    assert "could not log in with 'Log in with Acme'" in screen, app.dump()
    assert "Log in to the agent" in screen, app.dump()
    app.key("down", "enter")  # oauth: accepted
    lines = app.wait_for(header_ready, timeout=60)
    assert "refusing" in lines[0], app.dump()
    assert app.quit() == 0
    seen = app.sequences()
    for family in ("OSC 0", "OSC 52"):
        assert family not in seen, (family, app.sequence_examples().get(family))
