"""Word-level changes inside a replacement: which old and new lines pair up, and what changed.

A paired line sits on one row in the split view and gets its changed words highlighted. Both
steps decline rather than spend quadratic time, and decline lines that are simply different,
where highlighting nearly everything would be noise.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import TypeAlias

__all__ = ["Ranges", "intraline", "pair_lines"]

PAIR_LIMIT = 400
"""Replacement blocks up to this many old×new line comparisons are paired by similarity."""
PAIR_RATIO = 0.5
INTRALINE_MAX_TOKENS = 400
INTRALINE_MAX_CHANGED = 0.65
"""Lines whose changed share exceeds this are simply different: no word highlights."""

Ranges: TypeAlias = tuple[tuple[int, int], ...]
"""Character ranges (start, end) within one line."""


def pair_lines(old: Sequence[str], new: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Which old and new lines of a replacement are edits of each other.

    Equal counts pair in order (the common in-place edit; `intraline` later declines pairs that
    are not alike). Otherwise small blocks get an in-order alignment maximizing similarity;
    large unequal blocks are left unpaired rather than spend quadratic time.
    """
    n, m = len(old), len(new)
    if n == 0 or m == 0:
        return ()
    if n == m:
        return tuple((k, k) for k in range(n))
    if n * m > PAIR_LIMIT:
        return ()
    score = [[0.0] * m for _ in range(n)]
    for i in range(n):
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(old[i])
        for j in range(m):
            matcher.set_seq1(new[j])
            if matcher.real_quick_ratio() >= PAIR_RATIO and matcher.quick_ratio() >= PAIR_RATIO:
                ratio = matcher.ratio()
                if ratio >= PAIR_RATIO:
                    score[i][j] = ratio
    # best[i][j]: best total for old[i:], new[j:]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = score[i][j] + best[i + 1][j + 1] if score[i][j] else 0.0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], take)
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if score[i][j] and best[i][j] == score[i][j] + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return tuple(pairs)


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _merge(ranges: list[tuple[int, int]], text: str) -> Ranges:
    """Join ranges separated only by whitespace: "a b" → "c d" reads as one change."""
    merged: list[tuple[int, int]] = []
    for start, end in ranges:
        if merged and (merged[-1][1] == start or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return tuple(merged)


def intraline(old: str, new: str) -> tuple[Ranges, Ranges] | None:
    """Word-level changed ranges (character offsets) inside a modified line pair.

    None when the lines are mostly different (highlighting nearly everything is noise) or
    identical. Long lines fall back to the common prefix/suffix, which is linear.
    """
    if old == new:
        return None
    limit = min(len(old), len(new))
    prefix = _common_length(old, new, limit, suffix=False)
    suffix = _common_length(old, new, limit - prefix, suffix=True)
    # Back off to word boundaries so a change never starts or ends inside an identifier.
    while (
        prefix
        and _is_word(old[prefix - 1])
        and (_is_word(old[prefix : prefix + 1]) or _is_word(new[prefix : prefix + 1]))
    ):
        prefix -= 1
    while (
        suffix
        and _is_word(old[len(old) - suffix])
        and (
            _is_word(old[len(old) - suffix - 1 : len(old) - suffix])
            or _is_word(new[len(new) - suffix - 1 : len(new) - suffix])
        )
    ):
        suffix -= 1
    mid_old = old[prefix : len(old) - suffix]
    mid_new = new[prefix : len(new) - suffix]
    # Tokenizing is skipped when the middle is clearly too long to compare word by word.
    short = max(len(mid_old), len(mid_new)) <= 8 * INTRALINE_MAX_TOKENS
    tokens_old = _TOKEN.findall(mid_old) if short else []
    tokens_new = _TOKEN.findall(mid_new) if short else []
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    if not short or max(len(tokens_old), len(tokens_new)) > INTRALINE_MAX_TOKENS:
        if mid_old:
            old_ranges.append((prefix, prefix + len(mid_old)))
        if mid_new:
            new_ranges.append((prefix, prefix + len(mid_new)))
    else:
        offsets_old = _offsets(tokens_old, prefix)
        offsets_new = _offsets(tokens_new, prefix)
        matcher = difflib.SequenceMatcher(None, tokens_old, tokens_new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if i2 > i1:
                old_ranges.append((offsets_old[i1], offsets_old[i2]))
            if j2 > j1:
                new_ranges.append((offsets_new[j1], offsets_new[j2]))
    changed_old = sum(e - s for s, e in old_ranges)
    changed_new = sum(e - s for s, e in new_ranges)
    if changed_old > INTRALINE_MAX_CHANGED * max(
        len(old.strip()), 1
    ) or changed_new > INTRALINE_MAX_CHANGED * max(len(new.strip()), 1):
        return None
    return _merge(old_ranges, old), _merge(new_ranges, new)


def _common_length(a: str, b: str, limit: int, *, suffix: bool) -> int:
    """Length of the common prefix (or suffix) of `a` and `b`, at most `limit`.

    A binary search over slice comparisons, which run in C: a Python loop over the characters
    of two 4,000-character lines costs milliseconds per pair.
    """
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if (a[len(a) - mid :] == b[len(b) - mid :]) if suffix else (a[:mid] == b[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _offsets(tokens: list[str], start: int) -> list[int]:
    offsets = [start]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets
