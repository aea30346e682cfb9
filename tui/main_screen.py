"""The app's default screen, whose footer lists keys in one order whatever has focus.

Textual orders the footer by the binding chain: a key the focused widget also binds (the
prompt's TextArea binds Ctrl+K, say) keeps that widget's place even once the app's priority
binding replaces it, so the order changed with focus. Here the keys of the moment (the focused
widget's, and the app's own that `check_action` shows only now) come first, then the app's
keys in the order `DshApp.BINDINGS` declares.

The footer cuts what does not fit its one row mid-word (`^k C`), so keys that would not fit
are hidden instead, the least needed first (`FOOTER_DROP_ORDER`); they still work, and F1
lists them all.
"""

from __future__ import annotations

from dataclasses import replace

from textual import events
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen

# Hidden first when the footer is too narrow: what the moment needs (cancel, answer) and Quit
# stay longest.
FOOTER_DROP_ORDER = ("capabilities", "resume", "pick_model", "next_mode")
# The command palette's key at the footer's right end: its rule, padding and "palette".
PALETTE_WIDTH = 13


def key_width(key_display: str, description: str) -> int:
    """A footer key's cells: a space each side of the key, a space after the description."""
    return len(key_display) + len(description) + 3


class MainScreen(Screen[None]):
    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings
        declared = [
            binding.action for binding in type(self.app).BINDINGS if isinstance(binding, Binding)
        ]

        def rank(item: tuple[str, ActiveBinding]) -> int:
            active = item[1]
            if active.node is self.app and active.binding.action in declared:
                return 1 + declared.index(active.binding.action)
            return 0  # the focused widget's keys: they belong to this moment

        return self._fit_footer(dict(sorted(bindings.items(), key=rank)))

    def _fit_footer(self, bindings: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
        width = self.size.width
        if not width:
            return bindings
        shown: dict[str, int] = {}  # action -> cells, once per action as the footer shows it
        for key, active in bindings.items():
            binding = active.binding
            if binding.show and key != self.app.COMMAND_PALETTE_BINDING:
                cells = key_width(self.app.get_key_display(binding), binding.description)
                shown.setdefault(binding.action, cells)
        room = width - (PALETTE_WIDTH if self.app.ENABLE_COMMAND_PALETTE else 0)
        hidden: set[str] = set()
        for action in FOOTER_DROP_ORDER:
            if sum(shown.values()) <= room:
                break
            if shown.pop(action, None) is not None:
                hidden.add(action)
        if not hidden:
            return bindings
        return {
            key: active._replace(binding=replace(active.binding, show=False))
            if active.binding.action in hidden
            else active
            for key, active in bindings.items()
        }

    def on_resize(self, event: events.Resize) -> None:
        self.app.refresh_bindings()  # the footer refits to the new width
