"""The traffic inspector's data, without Textual: every JSON-RPC line kept, a message as
pretty JSON, the `initialize` exchange as a table. The view is `tui.widgets.inspector.panel`.

- `json_view`: A message as the inspector shows it: pretty JSON from a bounded prefix of the
  line.
- `negotiation`: The `initialize` exchange as one table: what the client offered beside what the
  agent answered, a row per capability path.
- `traffic`: Every JSON-RPC line of a session, both ways, kept for the traffic inspector: no
  Textual here.
"""
