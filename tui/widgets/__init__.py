"""The widgets, grouped by feature: a module holds one job's widgets, each with its own CSS."""

from tui.widgets import layout_fix

layout_fix.apply()
