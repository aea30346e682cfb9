"""Fuzzy ranking of workspace paths for the text typed after `@`.

A path matches when the query's characters appear in it in order (case-insensitive), as in
fzf or VS Code's quick open. Ranking, first key to last:

1. a tier: the basename equals the query (ignoring its extension), starts with it, contains
   it, holds it as a subsequence; then the whole path contains it; then any subsequence;
2. directories before files within a basename tier (so `@src` offers `src/` first);
3. a fine score: matched characters at segment starts (after `/`, `_`, `-`, `.`, a space,
   or a lower-to-upper case change) and consecutive runs earn points, gaps cost them;
4. shorter paths, then the index's order (shallower first, then alphabetical).

Hand-written rather than a library: the small Python fuzzy libraries (pfzy's fzy port,
fuzzyfinder) score every candidate in Python and take hundreds of milliseconds per keystroke
on 50,000 paths, and rapidfuzz ranks by edit distance, not subsequences. Here each path costs
one compiled-regex or substring test, only the best tiers' paths are scored in Python, and a
query that extends the previous one searches only the previous matches.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from tui.prompt.mentions.index import PathIndex

DEFAULT_LIMIT = 50
_BASENAME_TIERS = 3  # tiers 3 to 6 matched in the basename, 1 and 2 only across the path
_SEPARATORS = frozenset("/_-. ")


@dataclass(frozen=True, slots=True)
class Match:
    """One ranked path; `positions` are the indices in `path` that matched (to highlight)."""

    path: str
    positions: tuple[int, ...]

    @property
    def is_dir(self) -> bool:
        return self.path.endswith("/")


class FuzzyMatcher:
    """Ranks one index's paths; remembers the last query to narrow the next one."""

    def __init__(self, index: PathIndex) -> None:
        self.index = index
        self._bases = tuple(
            lowered[start:].rstrip("/")
            for lowered, start in zip(index.lowered, index.base_starts, strict=True)
        )
        self._last: tuple[str, list[int]] | None = None

    def search(self, query: str, limit: int = DEFAULT_LIMIT) -> list[Match]:
        """The best `limit` paths for `query`; the first `limit` in index order for `""`."""
        index = self.index
        if not query:
            return [Match(path, ()) for path in index.paths[:limit]]
        needle = query.lower()
        if self._last is not None and needle.startswith(self._last[0]):
            pool: Iterable[int] = self._last[1]
        else:
            pool = range(len(index))
        hits = _hits(index.lowered, pool, needle)
        self._last = (needle, hits)
        ranked = heapq.nlargest(
            limit,
            (self._key(position, needle) for position in self._best_tiers(hits, needle, limit)),
            key=lambda key: key[0],
        )
        return [Match(index.paths[position], positions) for _, position, positions in ranked]

    def _best_tiers(self, hits: list[int], needle: str, limit: int) -> Iterable[int]:
        """The hits worth scoring: those of the best tiers that together hold `limit` paths.

        Each tier's test is one C-level string operation per hit, and only the chosen are
        scored in Python, so a one-letter query does not score every path. A hit left out
        is in a worse tier than `limit` chosen ones, so it could not have made the list.
        """
        bases = self._bases
        lowered = self.index.lowered
        subsequence = _subsequence(needle).match
        tests: tuple[Callable[[int], object], ...] = (
            lambda position: bases[position].startswith(needle),
            lambda position: needle in bases[position],
            lambda position: subsequence(bases[position]),
            lambda position: needle in lowered[position],
        )
        for test in tests:
            chosen = [position for position in hits if test(position)]
            if len(chosen) >= limit:
                return chosen
        return hits

    def _key(
        self, position: int, needle: str
    ) -> tuple[tuple[int, bool, int, int, int], int, tuple[int, ...]]:
        path = self.index.paths[position]
        lowered = self.index.lowered[position]
        base = self.index.base_starts[position]
        is_dir = path.endswith("/")
        end = len(lowered) - 1 if is_dir else len(lowered)
        tier, positions = _locate(lowered, base, end, needle)
        fine = _fine_score(path, positions)
        # Higher is better; the last resort is index order (alphabetical within a depth).
        # Directories lead only where the basename matched: in a scattered match over the
        # whole path, being a directory says nothing about being wanted.
        lead = is_dir and tier >= _BASENAME_TIERS
        return (tier, lead, fine, -len(path), -position), position, positions


def _hits(lowered: tuple[str, ...], pool: Iterable[int], needle: str) -> list[int]:
    """The pool's paths holding `needle` as a subsequence."""
    if len(needle) == 1:
        return [position for position in pool if needle in lowered[position]]
    match = _subsequence(needle).match
    return [position for position in pool if match(lowered[position])]


def _subsequence(needle: str) -> re.Pattern[str]:
    """`[^a]*a[^b]*b...`: one way to match, so a path that fails costs one pass."""
    return _compiled("".join(f"[^{re.escape(char)}]*{re.escape(char)}" for char in needle))


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _locate(lowered: str, base: int, end: int, needle: str) -> tuple[int, tuple[int, ...]]:
    """The tier of a match and where its characters are (see the module docstring)."""
    size = len(needle)
    at = lowered.find(needle, base, end)
    if at >= 0:
        stem_end = lowered.rfind(".", base + 1, end)
        whole = (at == base) and (base + size in (end, stem_end))
        tier = 6 if whole else 5 if at == base else 4
        return tier, tuple(range(at, at + size))
    spread = _window(lowered, base, end, needle)
    if spread is not None:
        return 3, spread
    at = lowered.find(needle)
    if at >= 0:
        return 2, tuple(range(at, at + size))
    spread = _window(lowered, 0, len(lowered), needle)
    return 1, spread or ()


def _window(text: str, start: int, end: int, needle: str) -> tuple[int, ...] | None:
    """Positions of `needle` in `text[start:end]`, in the shortest window ending first.

    fzf's v1 idea: a forward scan finds where the earliest complete match ends, a backward
    scan from there pulls each character as far right as it goes, which tightens the window
    and favours runs.
    """
    cursor = start
    for char in needle:
        found = text.find(char, cursor, end)
        if found < 0:
            return None
        cursor = found + 1
    positions = [0] * len(needle)
    limit = cursor
    for slot in range(len(needle) - 1, -1, -1):
        limit = text.rfind(needle[slot], start, limit)
        positions[slot] = limit
    return tuple(positions)


def _fine_score(path: str, positions: tuple[int, ...]) -> int:
    score = 0
    previous = -2
    for position in positions:
        if position == 0 or path[position - 1] in _SEPARATORS:
            score += 8
        elif path[position].isupper() and path[position - 1].islower():
            score += 6
        if position == previous + 1:
            score += 4
        elif previous >= 0:
            score -= min(position - previous - 1, 10)
        previous = position
    return score


__all__ = ["DEFAULT_LIMIT", "FuzzyMatcher", "Match"]
