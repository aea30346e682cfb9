"""The traffic inspector (F12): the message list, one message opened, and the pinned
negotiation table.

- `detail`: One message opened in the inspector: pretty, highlighted JSON in a Line API view.
- `message_list`: The inspector's list: one row per message on the wire, drawn through Textual's
  Line API.
- `negotiation`: The `initialize` exchange pinned at the top of the inspector, and its
  capability table.
- `panel`: The traffic inspector (F12): every JSON-RPC message of the session beside the
  transcript.
"""
