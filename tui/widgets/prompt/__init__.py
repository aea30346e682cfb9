"""The prompt and what sits around it: the input, the `@` and `/` menus, the queued prompts.

- `command_menu`: Slash-command completion: the agent's commands, filtered as the user types
  after `/`.
- `mention_menu`: `@` completion: workspace paths, fuzzy-matched to the word being typed after
  `@`.
- `prompt`: The prompt: a multi-line input where Enter sends and a modified Enter adds a line.
- `queued`: The prompts that wait to be sent, shown above the prompt so a queued prompt is never
  a surprise: each one can still be taken back (Up on an empty prompt) or cancelled (Esc).
"""
