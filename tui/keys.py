"""Keys Textual does not map by itself: Alt+Enter from terminals without the kitty keyboard
protocol, Alt+digit, and the Alt twins of keys a browser keeps.

Those terminals send ESC CR for Alt+Enter. Textual 8.2.8 (pinned exactly) has no entry for
it and falls back to a plain Enter, which would send the prompt instead of adding a line.
One entry in its sequence table makes it the `alt+enter` key the prompt binds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from enum import StrEnum
from typing import Any, cast

from textual import _ansi_sequences
from textual.binding import Binding, BindingsMap, BindingType

from tui.web_keys import BROWSER_KEEPS


class ExtraKeys(StrEnum):
    ALT_ENTER = "alt+enter"


def alt_digit(number: int) -> str:
    """Alt+`number` in every form it reaches the app: `alt+N` (the kitty protocol) and the
    key of the character Textual makes of ESC N, what macOS's Option+N types (`\\x1b3` is
    `£`, as WezTerm on macOS sends it), which is also what Alt+N sends in xterm and tmux."""
    from textual._xterm_parser import _character_to_key  # type: ignore[attr-defined]
    from textual.keys import KEY_NAME_REPLACEMENTS

    names = [f"alt+{number}"]
    character = _ansi_sequences.ANSI_SEQUENCES_KEYS.get(f"\x1b{number}")
    if isinstance(character, str) and len(character) == 1:
        name = character if character.isalnum() else _character_to_key(character)
        names.append(KEY_NAME_REPLACEMENTS.get(name, name))
    return ",".join(names)


def register_alt_enter() -> None:
    table = cast(dict[str, Any], _ansi_sequences.ANSI_SEQUENCES_KEYS)
    table.setdefault("\x1b\r", (ExtraKeys.ALT_ENTER,))


def add_browser_alternatives(bindings: BindingsMap, declared: Iterable[BindingType]) -> None:
    """In a browser page: each binding to a key the browser keeps (tui/web_keys.py) gets its
    Alt twin, which the footer shows instead; the kept key stays bound, unseen."""
    for binding in Binding.make_bindings(declared):
        twin = BROWSER_KEEPS.get(binding.key)
        if twin is None:
            continue
        bound = bindings.key_to_bindings.get(binding.key, [])
        bindings.key_to_bindings[binding.key] = [
            replace(each, show=False) if each == binding else each for each in bound
        ]
        bindings.key_to_bindings.setdefault(twin, []).append(
            replace(binding, key=twin, key_display=None)
        )
