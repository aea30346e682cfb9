"""What surrounds the transcript, drawn from the controller's state: the header, the welcome
and the mode line, and the failure screen with its retry."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.sanitize import clean_line
from tui.widgets.failure import AgentFailedScreen, exit_text
from tui.widgets.header import HeaderInfo, SessionHeader
from tui.widgets.status import StatusLine
from tui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget

    from tui.launch import AgentFailed
    from tui.session.controller import SessionController

log = logging.getLogger(__name__)


def workspace_label(cwd: Path) -> str:
    """The workspace as the header shows it, one safe line: a directory's name may hold any
    character but a slash."""
    home = Path.home()
    try:
        label = "~/" + str(cwd.relative_to(home)) if cwd != home else "~"
    except ValueError:
        label = str(cwd)
    return clean_line(label)


def refresh_header(root: Widget, controller: SessionController, cwd: Path) -> None:
    """The header, the welcome (while it shows) and the mode line in `root`, for the open
    session."""
    session = controller.session
    if session is None:
        return
    conversation = controller.conversation
    agent = session.init.agent_info
    for welcome in root.query(Welcome):
        welcome.show(
            f"{agent.name} {agent.version}" if agent else "the agent",
            conversation.mode_name,
            conversation.model_name,
            agent.name if agent else None,
            {command.name for command in conversation.commands},
        )
    fs = session.capabilities.fs
    root.query_one(StatusLine).show_mode(conversation.mode_name)
    root.query_one(SessionHeader).show_info(
        HeaderInfo(
            agent_name=agent.name if agent else "agent",
            agent_version=agent.version if agent else "",
            protocol_version=session.init.protocol_version,
            terminal=bool(session.capabilities.terminal),
            fs=bool(fs and fs.read_text_file),
            workspace=workspace_label(cwd),
            title=conversation.title,
            mode=conversation.mode_name,
            model=conversation.model_name,
        )
    )


def show_failure(
    app: App[Any],
    controller: SessionController,
    failure: AgentFailed,
    retry: Callable[[str | None], None],
    quit: Callable[[], None],
) -> None:
    """Log the failure, say it in the transcript, and offer retry or quit. A retry resumes
    the session (`retry(session_id)`) when the agent can replay it, else starts a new one
    (`retry(None)`)."""
    log.error(
        "agent failed: %s\n  command: %s\n  executable: %s\n  exit: %s\n  agent log: %s"
        "\n  stderr (last lines):\n%s",
        failure.reason,
        failure.spec.command_line,
        failure.spec.program or "(none found)",
        exit_text(failure),
        failure.spec.log_path,
        failure.stderr_tail or "(empty)",
    )
    controller.notice(f"{failure.reason} (exit: {exit_text(failure)})", "error")
    resume = controller.retry_resume()

    def after(choice: str | None) -> None:
        if choice == "retry":
            retry(resume)
        else:
            quit()

    app.push_screen(AgentFailedScreen(failure), after)
