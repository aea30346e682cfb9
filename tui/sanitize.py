"""Make untrusted agent text safe to show in a Textual widget: stateless sanitizers.

Textual's `Log` and `Static` pass ESC straight through to the user's terminal, so raw text could
set the window title, write the clipboard (OSC 52), switch to the alternate screen or move the
cursor. Everything external therefore goes through here, or, for a stream of terminal output
that redraws with CR, through `tui.terminal.stream.TerminalScreenBuffer`:

* `sanitize_text` drops escapes and controls from a whole string, without line editing (for
  message text), optionally keeping SGR;
* `strip_control` flattens text to one safe line (titles, headers);
* `reveal_invisible` shows bidi controls and invisible characters as `⟨U+202E⟩`, and
  `clean_line` / `clean_block` combine it with the above for text that names a path or an
  action the user approves (tui/agent_text.py applies them to everything an agent sends);
* `clean_prose` is the same for prose (message text, the prompt), which keeps the marks and
  joiners right-to-left text and emoji need;
* `clean_name` is `clean_line` with a fast path, for the many short names (workspace paths).

No Textual import here: this module is unit-tested on its own.
"""

from __future__ import annotations

import re

__all__ = [
    "clean_block",
    "clean_line",
    "clean_name",
    "clean_prose",
    "is_plain",
    "reveal_invisible",
    "sanitize_text",
    "strip_control",
]

# Anything but printable text, LF, CR and TAB: escapes and other controls.
_NEEDS_CLEANING = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def is_plain(text: str) -> bool:
    """No escape and no control but LF, CR and TAB: a C-speed check for big chunks, because a
    regex character-class scan runs at only about 100 MB/s."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _PLAIN_ASCII)
    return _NEEDS_CLEANING.search(text) is None


_STRIP_SEQUENCES = re.compile(
    r"""
      \x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?                # CSI (possibly unfinished)
    | \x1b[\]PX^_][^\x07\x18\x1a\x1b\x9c]*(?:[\x07\x18\x1a\x9c]|\x1b\\|(?=\x1b)|\Z)  # strings
    | \x1b[\x20-\x2f]*[\x30-\x7e]?                             # other escapes, or a lone ESC
    """,
    re.VERBOSE,
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ALL_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_BREAKS = re.compile(r"[\t\n\r\x0b\x0c]+")


def sanitize_text(text: str) -> str:
    """Remove escape sequences and control characters from multi-line text.

    Keeps LF and TAB; CRLF and a lone CR become LF. No line editing is done: terminal output,
    which redraws with CR and keeps its colours, goes through
    `tui.terminal.stream.TerminalScreenBuffer` instead.
    """
    if "\r" not in text and is_plain(text):
        return text  # nothing to remove (the usual message chunk): a C-speed check, no copy
    text = _STRIP_SEQUENCES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", text)


def strip_control(text: str) -> str:
    """Flatten text to one safe line for titles: no escapes or controls; line breaks and tabs
    become one space."""
    text = _STRIP_SEQUENCES.sub("", text)
    text = _BREAKS.sub(" ", text)
    return _ALL_CONTROLS.sub("", text).strip()


# Characters that reorder or hide text without being controls: bidi embeddings, overrides and
# isolates (Trojan Source: `U+202E` shows `exe.txt` as `txt.exe`), marks, zero-width and other
# default-ignorable characters (a hidden `U+200B` makes two paths that look the same differ),
# line and paragraph separators, Hangul fillers, tag characters; lone surrogates (undecodable
# bytes, which the terminal writer cannot encode). Variation selectors are kept: they only pick
# the look of the glyph before them (the emoji `⚠️`), and emoji sequences use them everywhere.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\ud800-\udfff"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f]"
)


# What prose keeps of `_INVISIBLE` but the embeddings, overrides and isolates: right-to-left text
# needs its marks, Persian and emoji their joiners; an override only ever hides what follows.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _reveal(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else f"\u27e8U+{code:04X}\u27e9"


def reveal_invisible(text: str, *, prose: bool = False) -> str:
    """Show bidi controls and invisible characters as `⟨U+202E⟩`, so a path or an action the
    user is asked to approve reads the same on screen as what runs (the diff view does the
    same with its own markers, tui/diff/diffing.py). Lone surrogates become U+FFFD. With `prose`
    (message text), only the embeddings, overrides and isolates are shown so."""
    if text.isascii():
        return text
    return (_BIDI_CONTROLS if prose else _INVISIBLE).sub(_reveal, text)


def clean_line(text: str) -> str:
    """One safe, honest line from agent text: `strip_control`, then `reveal_invisible`."""
    return reveal_invisible(strip_control(text))


def clean_block(text: str) -> str:
    """Multi-line agent text that is shown as what a tool did or will do (tool-call content):
    `sanitize_text`, then `reveal_invisible`; line breaks stay."""
    return reveal_invisible(sanitize_text(text))


def clean_name(text: str) -> str:
    """`clean_line` for a name (a file name, an id): printable ASCII is returned as it is, so
    an index of half a million paths costs no regular expression per path."""
    if text.isascii() and text.isprintable():
        return text
    return clean_line(text)


def clean_prose(text: str) -> str:
    """Multi-line prose from outside (message text, what the prompt holds): `sanitize_text`,
    then only the bidi embeddings, overrides and isolates shown as `⟨U+202E⟩`."""
    return reveal_invisible(sanitize_text(text), prose=True)
