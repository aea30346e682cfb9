"""One agent session apart from any widget: the controller, the typed events it emits and the
first prompts kept for the resume picker.

- `controller`: One agent session's state and its rules, apart from any widget.
- `events`: What a `SessionController` tells its observer, as typed records (no Textual here).
- `prompts`: The first prompt of each session dsh-tui started, kept per workspace, and what the
  resume picker shows of it.
"""
