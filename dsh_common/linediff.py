"""Line diff: difflib-style opcodes turning one list of lines into another, fast on big files.

Both dsh-agent (the hunks of its write and edit results, `agent.tools.hunks`) and dsh-tui (the
diff panel, `tui.diff.diffing`) diff lines with it, so it lives in this leaf package rather than
in either of them: the client does not depend on one agent's internals.

Why not `difflib`: `SequenceMatcher` with autojunk off is quadratic when lines repeat (`}`,
blank lines): minutes for a 10,000-line `replace_all`. Instead: trim the common prefix and
suffix, anchor on lines unique to both sides (patience diff), recurse between the anchors, and
run a bounded Myers diff on stretches with no unique line.

Why not the `patiencediff` package (Breezy's, Rust-accelerated, the same opcode shape): it is
faster, but where no line is unique it does not search at all, so a few lines inserted among
many repeated ones come out as the whole file rewritten. Elsewhere both give the same edit
script, and the time saved is milliseconds in a worker thread or once per edit. It is also
GPL-2.0-or-later, which this MIT project would then carry.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

__all__ = ["MAX_EDIT_DISTANCE", "Opcode", "line_opcodes"]

Opcode = tuple[str, int, int, int, int]
"""(tag, i1, i2, j1, j2) as `difflib.SequenceMatcher.get_opcodes` gives them."""

# Myers is O((N+M)·D); beyond this many edits in one anchorless stretch the stretch is shown
# as one replacement, which is what its hunk would mostly be anyway.
MAX_EDIT_DISTANCE = 1000
_MAX_DEPTH = 64


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """Opcodes (difflib's shape) turning `old` into `new`, fast on large files.

    A replacement may come as adjacent `delete` and `insert` opcodes (from Myers) rather than
    one `replace`; equal runs are merged.
    """
    ids: dict[str, int] = {}
    a = [ids.setdefault(line, len(ids)) for line in old]
    b = [ids.setdefault(line, len(ids)) for line in new]
    raw: list[Opcode] = []
    _diff(a, b, 0, len(a), 0, len(b), raw, 0)
    merged: list[Opcode] = []
    for op in raw:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if merged and merged[-1][0] == op[0] == "equal":
            prev = merged[-1]
            merged[-1] = ("equal", prev[1], op[2], prev[3], op[4])
        else:
            merged.append(op)
    return merged


def _diff(
    a: list[int],
    b: list[int],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[Opcode],
    depth: int,
) -> None:
    pre = 0
    while alo + pre < ahi and blo + pre < bhi and a[alo + pre] == b[blo + pre]:
        pre += 1
    if pre:
        out.append(("equal", alo, alo + pre, blo, blo + pre))
        alo, blo = alo + pre, blo + pre
    suf = 0
    while ahi - suf > alo and bhi - suf > blo and a[ahi - suf - 1] == b[bhi - suf - 1]:
        suf += 1
    ahi, bhi = ahi - suf, bhi - suf

    if alo == ahi or blo == bhi:
        if alo < ahi:
            out.append(("delete", alo, ahi, blo, blo))
        elif blo < bhi:
            out.append(("insert", alo, alo, blo, bhi))
    else:
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi) if depth < _MAX_DEPTH else []
        if anchors:
            i, j = alo, blo
            for x, y in anchors:
                _diff(a, b, i, x, j, y, out, depth + 1)
                out.append(("equal", x, x + 1, y, y + 1))
                i, j = x + 1, y + 1
            _diff(a, b, i, ahi, j, bhi, out, depth + 1)
        elif not _myers(a, b, alo, ahi, blo, bhi, out):
            out.append(("replace", alo, ahi, blo, bhi))
    if suf:
        out.append(("equal", ahi, ahi + suf, bhi, bhi + suf))


def _unique_anchors(
    a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The longest in-order run of lines that occur exactly once on each side (patience)."""
    count_a: dict[int, int] = {}
    for x in range(alo, ahi):
        count_a[a[x]] = count_a.get(a[x], 0) + 1
    count_b: dict[int, int] = {}
    for y in range(blo, bhi):
        count_b[b[y]] = count_b.get(b[y], 0) + 1
    where_b = {b[y]: y for y in range(blo, bhi) if count_b[b[y]] == 1}
    pairs = [(x, where_b[a[x]]) for x in range(alo, ahi) if count_a[a[x]] == 1 and a[x] in where_b]
    if not pairs:
        return []
    # Longest increasing subsequence of the b positions, by patience sorting.
    tops: list[int] = []  # b position on top of each pile
    top_index: list[int] = []  # index in `pairs` of each pile's top
    back: list[int] = [-1] * len(pairs)
    for n, (_x, y) in enumerate(pairs):
        pile = bisect_left(tops, y)
        if pile:
            back[n] = top_index[pile - 1]
        if pile == len(tops):
            tops.append(y)
            top_index.append(n)
        else:
            tops[pile] = y
            top_index[pile] = n
    chain: list[tuple[int, int]] = []
    n = top_index[-1]
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    chain.reverse()
    return chain


def _myers(
    a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int, out: list[Opcode]
) -> bool:
    """Greedy Myers shortest edit script; False when it needs more than the edit bound."""
    n, m = ahi - alo, bhi - blo
    dmax = min(n + m, MAX_EDIT_DISTANCE)
    off = dmax + 1
    v = [0] * (2 * dmax + 3)
    trace: list[list[int]] = []
    for d in range(dmax + 1):
        trace.append(v.copy())
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
                x = v[off + k + 1]
            else:
                x = v[off + k - 1] + 1
            y = x - k
            while x < n and y < m and a[alo + x] == b[blo + y]:
                x += 1
                y += 1
            v[off + k] = x
            if x >= n and y >= m:
                out.extend(_backtrack(trace, off, n, m, alo, blo))
                return True
    return False


def _backtrack(
    trace: list[list[int]], off: int, n: int, m: int, alo: int, blo: int
) -> list[Opcode]:
    ops: list[Opcode] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        v = trace[d]
        k = x - y
        if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
            prev_k = k + 1  # arrived by an insertion (a step down)
            px = v[off + prev_k]
            sx = px
        else:
            prev_k = k - 1  # arrived by a deletion (a step right)
            px = v[off + prev_k]
            sx = px + 1
        py = px - prev_k
        if x > sx:
            ops.append(("equal", alo + sx, alo + x, blo + sx - k, blo + y))
        if prev_k == k + 1:
            ops.append(("insert", alo + px, alo + px, blo + py, blo + py + 1))
        else:
            ops.append(("delete", alo + px, alo + px + 1, blo + py, blo + py))
        x, y = px, py
    if x > 0:
        ops.append(("equal", alo, alo + x, blo, blo + y))
    ops.reverse()
    return ops
