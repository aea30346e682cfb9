"""The session's settings and sessions, picked by the user: the next mode (Shift+Tab), the model
(Ctrl+L) and an earlier session to resume (Ctrl+R). Pickers are pushed screens; the requests
themselves are the controller's."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.capabilities import can_list
from tui.sanitize import clean_line
from tui.session.prompts import first_prompt, prompts_path, remembered
from tui.widgets.choice import Choice, ChoiceScreen, select_option_choices

if TYPE_CHECKING:
    from acp.schema import AuthMethodEnvVar, SessionInfo

    from tui.connection import AgentConnection
    from tui.connection.login import LoginMethod
    from tui.session_app import SessionApp


def session_choice(info: SessionInfo, noted: dict[str, str]) -> Choice:
    """`2026-12-02 14:50:23  title`, the time first, to the second, so a long title cut by
    the picker's width never hides what tells two same-titled sessions apart; then, on a
    second line, `› ` and the session's first prompt, unless it is the title itself."""
    title = info.title or "(untitled)"
    when = (info.updated_at or "")[:19].replace("T", " ")
    prompt = first_prompt(info, noted)
    label = f"{when}  {title}" if when else title
    detail = None if prompt is None or prompt == title else f"› {prompt}"
    return Choice(info.session_id, label, detail=detail)


def offers_modes(app: SessionApp) -> bool:
    return app.controller.session is not None and bool(app.controller.conversation.modes)


def offers_models(app: SessionApp) -> bool:
    """A model config option of the select kind, or models offered in the `models` field."""
    conversation = app.controller.conversation
    option = conversation.model_option()
    selectable = option is not None and option.type == "select"
    return app.controller.session is not None and (
        selectable or conversation.offered_models is not None
    )


def next_mode(app: SessionApp) -> None:
    conversation = app.controller.conversation
    if not offers_modes(app):
        app.notify("This agent offers no modes.")
        return
    ids = [mode.id for mode in conversation.modes]
    current = ids.index(conversation.mode_id) if conversation.mode_id in ids else -1
    mode_id = ids[(current + 1) % len(ids)]

    async def switch() -> None:
        if await app.controller.set_mode(mode_id):
            app.notify(f"Mode: {app.controller.conversation.mode_name or mode_id}", timeout=2)

    app.run_worker(switch(), group="settings")


def pick_model(app: SessionApp) -> None:
    """The model config option when the agent has one; else the models it offers in the
    unstable `models` field, switched with session/set_model."""
    controller = app.controller
    option = controller.conversation.model_option()
    offered = controller.conversation.offered_models
    if controller.session is not None and (option is None or option.type != "select") and offered:

        def picked(model_id: str | None) -> None:
            if model_id is not None:
                app.run_worker(controller.set_model(model_id), group="settings")

        app.push_screen(ChoiceScreen("Model", list(offered.choices), offered.current), picked)
        return
    if controller.session is None or option is None or option.type != "select":
        app.notify("This agent offers no model choice.")
        return

    def chosen(value: str | None) -> None:
        if value is not None:
            app.run_worker(controller.set_config(option.id, value), group="settings")

    # Each model with its description, and marked when the agent says it cannot answer yet.
    screen = ChoiceScreen("Model", select_option_choices(option), option.current_value)
    app.push_screen(screen, chosen)


async def choose_session(
    app: SessionApp, sessions: list[SessionInfo], missing: str | None = None
) -> str | None:
    """Let the user pick a session to resume (--resume without an id, or with one the agent
    does not have: `missing`); None starts a new one."""
    if missing is not None:
        missing = clean_line(missing)[:80]  # the user's argument, any characters
        app.notify(
            f"Session {missing} was not found in this workspace."
            + (" Pick one to resume, or Esc for a new session." if sessions else ""),
            severity="warning",
            timeout=10,
        )
    if not sessions:
        app.notify("No earlier sessions in this workspace: starting a new one.")
        return None
    title = "Resume a session" if missing is None else f"Session {missing} not found: resume"
    return await pick_session(app, sessions, title)


def login_note(method: LoginMethod) -> str | None:
    """The method's description, else for an env_var method the variables it asks for."""
    if method.description:
        return clean_line(method.description)
    names = [var.name for var in getattr(method, "vars", [])]
    return clean_line("asks for " + ", ".join(names)) if names else None


async def choose_login(
    app: SessionApp, methods: list[LoginMethod], refusal: str | None = None
) -> str | None:
    """The agent asked for a login: the method to use, or None on Esc. Each method's
    description is under its name, wrapped in a wide list: it is often an instruction
    (`Run claude /login in the terminal`) that a note after the name would cut. `refusal`,
    when the methods come again, is why the last one failed: said above them."""
    choices = [
        Choice(method.id, clean_line(method.name), detail=login_note(method), wraps=True)
        for method in methods
    ]
    answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
    screen = ChoiceScreen("Log in to the agent", choices, None, wide=True, message=refusal)
    app.push_screen(screen, answer.set_result)
    return await answer


async def ask_env(app: SessionApp, method: AuthMethodEnvVar) -> dict[str, str] | None:
    """An env_var method's values from the login form, or None on Esc."""
    from tui.widgets.env_login import EnvLoginScreen

    answer: asyncio.Future[dict[str, str] | None] = asyncio.get_running_loop().create_future()
    app.push_screen(EnvLoginScreen(method), answer.set_result)
    return await answer


async def pick_session(
    app: SessionApp, sessions: list[SessionInfo], title: str = "Resume a session"
) -> str | None:
    """The session picker: the chosen session's id, or None on Esc."""
    noted = remembered(prompts_path(app.config.cwd))
    choices = [session_choice(info, noted) for info in sessions]
    answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
    app.push_screen(ChoiceScreen(title, choices, None, wide=True), answer.set_result)
    return await answer


async def resume(app: SessionApp) -> None:
    """Pick an earlier session, then reconnect and load it. The list comes from the live
    connection (session/list), so Esc in the picker leaves the current session untouched;
    nothing is restarted before a choice. Not with an agent that cannot load sessions:
    restarting it would only throw the current conversation away."""
    if isinstance(app.screen, ChoiceScreen):
        return  # a picker is already open
    session = app.controller.session
    if session is None:
        # Not connected (still starting, or failed): there is nothing to keep.
        await app.stop_agent()
        app.reset_conversation()
        app.start_agent(resume="")
        return
    if not app.controller.agent_can_load:
        app.notify(
            "This agent cannot resume sessions (it offers neither session/load nor session/resume)."
        )
        return
    if not can_list(session.init):
        app.notify(
            "This agent cannot list its sessions (no session/list): "
            "start dsh-tui with --resume ID to load one."
        )
        return
    # In a worker, since the picker waits for the user's keys.
    app.run_worker(
        resume_from_list(app, session),
        name="resume",
        group="resume",
        exclusive=True,
        exit_on_error=False,
    )


async def resume_from_list(app: SessionApp, session: AgentConnection) -> None:
    from acp.exceptions import RequestError

    from tui.agent_text import clean_error

    try:
        listed = await session.list_sessions()
    except (RequestError, ConnectionError) as error:
        app.notify(f"Could not list sessions: {clean_error(error)}", severity="error")
        return
    others = [info for info in listed if info.session_id != session.session_id]
    if not others:
        app.notify("No earlier sessions in this workspace.")
        return
    choice = await pick_session(app, others)
    if choice is None or app.controller.session is not session:
        return  # Esc, or the connection changed while the picker was open
    await app.stop_agent()
    app.reset_conversation()
    app.start_agent(resume=choice)
