"""The SDK logs an ERROR with a traceback for each session/update it cannot parse; the client
has already shown such an update as a note, so the log keeps one line for it instead."""

from __future__ import annotations

import logging

from pydantic import ValidationError

SDK_NOTIFICATION_ERROR = "Unhandled error while handling notification method=%s"


class NotedUpdateFilter(logging.Filter):
    """Turns the SDK's traceback for an unparseable session/update into one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if (
            record.msg == SDK_NOTIFICATION_ERROR
            and record.args == ("session/update",)
            and isinstance(exc, ValidationError)
        ):
            record.msg = "the SDK dropped a session/update it could not parse (%d errors; noted)"
            record.args = (exc.error_count(),)
            record.exc_info = None
            record.exc_text = None
            record.levelno = logging.WARNING
            record.levelname = "WARNING"
        return True


FILTER = NotedUpdateFilter()


def quiet_noted_updates() -> None:
    """Install the filter on the root logger, where the SDK logs (idempotent)."""
    root = logging.getLogger()
    if FILTER not in root.filters:
        root.addFilter(FILTER)
