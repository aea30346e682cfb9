"""Agent text is untrusted: control and escape sequences must never reach the user's terminal."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls (ESC and CSI/OSC introducers included).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL/ST
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS, PM, APC, SOS ... ST
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
)


def clean_text(text: str) -> str:
    """Drop escape sequences and control characters, keeping newlines and tabs.

    A lone carriage return before a newline is dropped too (CRLF text reads as LF).
    """
    return _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n")))
