"""`@` mentions: point at workspace files in a prompt and send them along with it.

The pieces are pure and Textual-free, so each is tested alone and the UI only calls them:
`index` lists the workspace's paths (what `.gitignore` ignores left out), `fuzzy` ranks them
for what was typed after `@`, `parse` finds the mentions in a prompt, and `blocks` turns a
prompt and its mentions into `session/prompt` content blocks, reading files through the
client's confined file system.
"""
