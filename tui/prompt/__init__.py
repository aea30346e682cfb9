"""What the prompt offers beyond text, without Textual: `@` mentions, history, `!` commands and
the external editor. The prompt widgets are `tui.widgets.prompt.prompt`.

- `external_editor`: Edit the prompt's draft in the user's own editor (`$VISUAL`, else
  `$EDITOR`, else `vi`).
- `history`: Prompt history per workspace, kept across runs in the XDG state directory.
- `mentions`: `@` mentions: point at workspace files in a prompt and send them along with it.
- `shell_command`: `!command` in the prompt: run it on this machine, in the workspace, as the
  user.
"""
