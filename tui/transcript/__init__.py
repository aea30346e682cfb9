"""The transcript as text, without Textual: what copy and export read, and search over the
state.

- `search`: Search through the transcript: every place a query occurs, in order, over the state.
- `text`: The transcript's entries as plain text: what `c` copies, what search looks through and
  what an export writes.
"""
