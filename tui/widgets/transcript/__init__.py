"""The transcript: one widget per state entry, messages, the plan, the `↓ new` marker, the
keyboard cursor, and search's bar and highlights.

- `conversation`: The transcript: maps each state entry to one widget and applies changes to
  that widget only.
- `keys`: Keyboard access to the transcript: a cursor on one entry at a time.
- `messages`: Transcript blocks for user prompts, streamed agent Markdown, and thoughts.
- `new_below`: `↓ 3 new · end`: what arrived below while the transcript is held away from its
  end.
- `plan`: The agent's plan, pinned above the prompt: one line per entry with status and
  priority.
- `search_bar`: Ctrl+F: the search bar above the prompt, and what it does to the transcript.
- `search_highlight`: The words a transcript search found, highlighted where they are drawn.
"""
