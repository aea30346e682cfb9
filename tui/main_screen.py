"""The app's default screen, whose footer lists keys in one order whatever has focus.

Textual orders the footer by the binding chain: a key the focused widget also binds (the
prompt's TextArea binds Ctrl+K, say) keeps that widget's place even once the app's priority
binding replaces it, so the order changed with focus. Here the keys of the moment (the focused
widget's, and the app's own that `check_action` shows only now) come first, then the app's
keys in the order `DshApp.BINDINGS` declares.
"""

from __future__ import annotations

from textual.binding import ActiveBinding, Binding
from textual.screen import Screen


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

        return dict(sorted(bindings.items(), key=rank))
