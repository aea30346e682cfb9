"""Terminals, without Textual: client-side `terminal/*` processes on a pty, their output as
safe styled lines, and the `_meta.terminal_*` convention. The widgets are in
`tui.widgets.terminal`.

- `labels`: The words of a terminal pane's header: durations, sizes, signal names and the cwd
  shown.
- `line_editor`: The general path of terminal output: tokens, escape sequences and in-line
  editing.
- `meta`: The `_meta.terminal_*` display convention, read into a tool call's display terminal.
- `process`: One client-side terminal's process: how it is started, and the output it keeps.
- `process_tree`: Process trees: finding every process a terminal's command started, and
  signalling them.
- `pty_spawn`: Client terminals on a pseudo-terminal: the command's stdout and stderr are a
  pty's slave.
- `sgr`: SGR pens: the colour and style state of terminal output, and stored lines as styled
  text.
- `source`: Where a terminal pane's output comes from: one interface, two kinds of terminal.
- `status`: A pane's status, one frozen value computed from its card and its source.
- `stream`: Terminal output as display lines: a stream of decoded chunks in, safe styled lines
  out.
- `terminals`: Client-side terminals: the processes behind ACP's `terminal/*` methods.
"""
