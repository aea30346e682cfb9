"""Keys typed while dsh-tui starts are kept as typed, not echoed or translated.

Until Textual switches the terminal to raw mode (after its imports, about 0.3 s), the
terminal is in cooked mode: it echoes what is typed over the screen and turns Enter (CR)
into Ctrl+J (NL), which the prompt would read as a new line instead of "send". Switching
echo, line editing and CR translation off at once keeps type-ahead exact; the terminal's
own settings come back on exit, whatever Textual restores in between.
"""

from __future__ import annotations

import contextlib
import sys
import termios
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_terminal() -> Iterator[None]:
    try:
        fd = sys.stdin.fileno()
        before = termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        yield  # not a terminal (a pipe, a test): nothing to keep quiet
        return
    quiet = termios.tcgetattr(fd)
    quiet[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR)  # iflag
    quiet[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)  # lflag: keep ISIG
    try:
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        yield
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)
