"""The default turn of `dsh-tui check`, shared with dsh-agent's offline model.

The check asks any agent for a read, an edit and a command in a scratch workspace that holds
CHECK_FILE. The offline model has no language understanding, so it plays its bundled `check`
scenario for exactly this prompt: `dsh-tui check --agent dsh-agent` then runs with no model.
"""

from __future__ import annotations

CHECK_FILE = "check.txt"
CHECK_FILE_TEXT = "status: draft\nThis file was written by dsh-tui check.\n"
CHECK_PROMPT = (
    f"Read the file {CHECK_FILE}, then edit it to replace the word draft with final, "
    f"then run the shell command `cat {CHECK_FILE}`, and say in one line what it printed."
)
