"""The terminal pane inside a tool card: its header words, and its rows as a Line API view.

- `header`: What a terminal pane's header and info line say, from the pane's state: pure text
  builders.
- `pane`: The terminal pane: one command's output inside its tool-call card, live, between a
  header (prompt line, cwd, status, duration) and an info line (tui/widgets/terminal/header.py).
- `view`: The rows of a terminal pane: a Line API view of a `TerminalScreenBuffer`.
"""
