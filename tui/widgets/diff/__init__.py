"""The diff panel (unified or split, highlighted by Pygments), its rows drawn as strips, and
the full-screen review of an edit awaiting permission.

- `panel`: The diff panel: ACP `diff` content as a unified or split, syntax-highlighted Line API
  view.
- `render`: The diff panel's rows drawn as strips: gutters, code in its colours, folds, gaps and
  headers.
- `review`: Full-screen review of an edit awaiting permission: the whole diff, then the agent's
  options.
"""
