"""ACP `diff` content, without Textual: line diffs, the per-file model of blocks and folds,
rows for the unified and split views, true line numbers. The panel is `tui.widgets.diff`.

- `diffing`: Line diffs of ACP `diff` content, built into the model the diff panel draws.
- `doc`: One side of a diff item (`Doc`): its display lines, their file numbers and their
  colours.
- `intraline`: Word-level changes inside a replacement: which old and new lines pair up, and
  what changed.
- `line_numbers`: Where a diff block sits in its file: true line numbers for any agent's diffs,
  or none.
- `model`: The diff model: per file, a sequence of blocks (unchanged, changed, folded,
  separators).
- `rows`: The rows of a diff model for one view (unified or split), built one at a time on
  demand.
- `text`: Text of a diff side made safe and measured for display: lines, controls, tabs, line
  ends.
"""
