"""An update the client already noted (an unknown kind, a malformed one) leaves at most one
line in dsh-tui.log, not the SDK's ERROR traceback."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from scripted import notices, script_app, send

from support import turns_ended, wait_until


async def test_noted_updates_log_one_line_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    updates = [
        {"sessionUpdate": "hologram_update", "beam": 1},
        {"sessionUpdate": "agent_message_chunk"},  # no content: the SDK cannot parse it
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "alive"}},
    ]
    app = script_app(tmp_path, {"prompts": [[{"update": u} for u in updates]]})
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: len(notices(app)) >= 2)
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, [(r.name, r.getMessage()) for r in tracebacks]
    for record in caplog.records:
        assert "\n" not in record.getMessage(), record.getMessage()
