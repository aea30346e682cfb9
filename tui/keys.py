"""Alt+Enter from terminals without the kitty keyboard protocol.

Those terminals send ESC CR for Alt+Enter. Textual 8.2.8 (pinned exactly) has no entry for
it and falls back to a plain Enter, which would send the prompt instead of adding a line.
One entry in its sequence table makes it the `alt+enter` key the prompt binds.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, cast

from textual import _ansi_sequences


class ExtraKeys(StrEnum):
    ALT_ENTER = "alt+enter"


def register_alt_enter() -> None:
    table = cast(dict[str, Any], _ansi_sequences.ANSI_SEQUENCES_KEYS)
    table.setdefault("\x1b\r", (ExtraKeys.ALT_ENTER,))
