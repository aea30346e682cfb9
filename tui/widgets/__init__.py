"""One widget per module; each owns its DEFAULT_CSS."""

from tui.widgets import layout_fix

layout_fix.apply()
