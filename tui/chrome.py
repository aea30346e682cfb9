"""What surrounds the transcript, drawn from the controller's state: the header, the welcome
and the mode line, and the failure screen with its retry."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from tui.sanitize import clean_line
from tui.widgets.failure import AgentFailedScreen, exit_text
from tui.widgets.header import HeaderInfo, SessionHeader
from tui.widgets.status import StatusLine
from tui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from tui.app import DshApp
    from tui.launch import AgentFailed

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


def refresh_header(app: DshApp) -> None:
    """The header, the welcome (while it shows) and the mode line, for the open session."""
    session = app.controller.session
    if session is None:
        return
    conversation = app.controller.conversation
    agent = session.init.agent_info
    for welcome in app.query(Welcome):
        welcome.show(
            f"{agent.name} {agent.version}" if agent else "the agent",
            conversation.mode_name,
            conversation.model_name,
            agent.name if agent else None,
            {command.name for command in conversation.commands},
        )
    fs = session.capabilities.fs
    app.query_one(StatusLine).show_mode(conversation.mode_name)
    app.query_one(SessionHeader).show_info(
        HeaderInfo(
            agent_name=agent.name if agent else "agent",
            agent_version=agent.version if agent else "",
            protocol_version=session.init.protocol_version,
            terminal=bool(session.capabilities.terminal),
            fs=bool(fs and fs.read_text_file),
            workspace=workspace_label(app.config.cwd),
            title=conversation.title,
            mode=conversation.mode_name,
            model=conversation.model_name,
        )
    )


def show_failure(app: DshApp, failure: AgentFailed) -> None:
    """Log the failure, say it in the transcript, and offer retry or quit. A retry resumes
    the session when the agent can replay it, else starts a new one."""
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
    app.controller.notice(f"{failure.reason} (exit: {exit_text(failure)})", "error")
    resume = app.controller.retry_resume()

    def after(choice: str | None) -> None:
        if choice == "retry":
            if resume is not None:
                app.reset_conversation()
            app.start_agent(resume)
        else:
            app.run_worker(app.action_quit(), group="quit")

    app.push_screen(AgentFailedScreen(failure), after)
