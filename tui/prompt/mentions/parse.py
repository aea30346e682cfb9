"""Where the `@` mentions are in a prompt, and what completion puts there.

A mention starts with `@` at the start of the text or after whitespace (so `user@host` is
not one) and runs to the next whitespace: `@src/app.py`. A path with spaces is quoted:
`@"my file.txt"`, up to the next `"`. Trailing punctuation that ends a sentence
(`,;:!?)]}` and a final `.`) is not part of an unquoted mention, so "look at @app.py." means
`app.py`; quote a path that really ends that way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MENTION = re.compile(r'(?<!\S)@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"][^\s]*))')
_TRAILING = ",;:!?)]}."


@dataclass(frozen=True, slots=True)
class Mention:
    """A mentioned path as typed (workspace-relative or absolute) and its span in the text."""

    path: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class MentionQuery:
    """The mention being typed: `query` is what follows `@` up to the cursor; completion
    replaces `text[start:end]` (the whole word, from `@` on)."""

    query: str
    start: int
    end: int


def find_mentions(text: str) -> list[Mention]:
    """Every mention in the text, in order."""
    found: list[Mention] = []
    for match in _MENTION.finditer(text):
        quoted = match.group("quoted")
        if quoted is not None:
            found.append(Mention(quoted, match.start(), match.end()))
            continue
        bare = match.group("bare").rstrip(_TRAILING)
        if bare:
            found.append(Mention(bare, match.start(), match.start() + 1 + len(bare)))
    return found


def mention_at(text: str, cursor: int) -> MentionQuery | None:
    """The mention the cursor is in (or just after), or None when the word under it does not
    start with `@`. An open quote (`@"my fi`) keeps the spaces typed so far."""
    cursor = max(0, min(cursor, len(text)))
    before = text[:cursor]
    quote = before.rfind('@"')
    if quote >= 0 and (quote == 0 or before[quote - 1].isspace()):
        typed = before[quote + 2 :]
        if '"' not in typed and "\n" not in typed:
            closing = text.find('"', cursor)
            newline = text.find("\n", cursor)
            line_end = len(text) if newline < 0 else newline
            end = closing + 1 if 0 <= closing < line_end else cursor
            return MentionQuery(typed, quote, end)
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    if not text.startswith("@", start):
        return None
    query = text[start + 1 : cursor]
    if query.startswith('"'):
        return None  # a closed quote: the cursor is past the mention
    return MentionQuery(query, start, _word_end(text, cursor))


def _word_end(text: str, cursor: int) -> int:
    end = cursor
    while end < len(text) and not text[end].isspace():
        end += 1
    return end


def mention_text(path: str) -> str:
    """How a chosen path is written into the prompt: `@path`, quoted if it needs it."""
    needs_quotes = any(char.isspace() for char in path) or path[-1:] in _TRAILING
    return f'@"{path}"' if needs_quotes else f"@{path}"


def complete(text: str, at: MentionQuery, path: str) -> tuple[str, int]:
    """The text with the mention being typed replaced by `path` and a space; and the cursor
    after that space."""
    inserted = mention_text(path) + " "
    rest = text[at.end :]
    if rest.startswith(" "):
        rest = rest[1:]
    return text[: at.start] + inserted + rest, at.start + len(inserted)


__all__ = ["Mention", "MentionQuery", "complete", "find_mentions", "mention_at", "mention_text"]
