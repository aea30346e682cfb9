"""Applied-change hunks for write and edit, and their persisted `meta` form.

A result card shows what the tool actually changed: one `FileDiff` per hunk with 3 lines of
context (as claude-agent-acp does), hunks whose context windows touch merged into one. The
hunks are computed once at execution and stored in the result's `meta`, so replay reads them
back instead of diffing a file that may have changed since.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from agent.jsonvalue import JsonObject, JsonValue
from agent.views import FileDiff, FileLocation

DIFF_CONTEXT = 3

Opcode = tuple[str, int, int, int, int]


def split_lines(text: str) -> list[str]:
    """Split on `\\n` only, keeping the ends, so `\\r`, form feeds and U+2028 stay in a line."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _side(lines: Sequence[str]) -> str:
    return "".join(lines).removesuffix("\n")


def compute_hunks(
    path: str, before: str, after: str, context: int = DIFF_CONTEXT
) -> list[FileDiff]:
    """Diff two texts line by line into contextual hunks, in file order.

    Each hunk knows its 1-based start line on both sides (`old_line`, `new_line`), so a
    client can number it truthfully. `old_text` is `None` when a hunk has no old lines, which
    only happens for an insertion into empty content: a whole file, numbered from 1, so it
    carries no start lines. Identical texts give no hunks.
    """
    return [diff for diff, _changed in applied_hunks(path, before, after, context)]


def applied_hunks(
    path: str, before: str, after: str, context: int = DIFF_CONTEXT
) -> list[tuple[FileDiff, int]]:
    """`compute_hunks`, each hunk with the new-file line of its first change.

    That line is the hunk's `locations` entry: the context lines above a change are not
    where an editor following along should jump. A deletion at the end of the file points at
    the last line that is left.
    """
    if before == after:
        return []
    old = split_lines(before)
    new = split_lines(after)
    hunks: list[tuple[FileDiff, int]] = []
    for group in _group(line_opcodes(old, new), context):
        old_lines: list[str] = []
        new_lines: list[str] = []
        for _tag, i1, i2, j1, j2 in group:
            old_lines.extend(old[i1:i2])  # context goes to both sides, changes to their own
            new_lines.extend(new[j1:j2])
        first = next(op for op in group if op[0] != "equal")
        changed = max(1, min(first[3] + 1, len(new)))
        if old_lines:
            diff = FileDiff(
                path, _side(old_lines), _side(new_lines), group[0][1] + 1, group[0][3] + 1
            )
        else:
            diff = FileDiff(path, None, _side(new_lines))
        hunks.append((diff, changed))
    return hunks


# Myers is O((N+M)·D); beyond this many edits in one anchorless stretch the stretch is shown
# as one replacement, which is what its hunk would mostly be anyway.
MAX_EDIT_DISTANCE = 1000
_MAX_DEPTH = 64


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """Opcodes (difflib's shape) turning `old` into `new`, fast on large files.

    `difflib.SequenceMatcher` with autojunk off is quadratic when lines repeat (`}`, blank
    lines): measured at minutes for a 10,000-line `replace_all`. Instead: trim the common
    prefix and suffix, anchor on lines unique to both sides (patience diff), recurse between
    the anchors, and run a bounded Myers diff on stretches with no unique line.
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


def _group(ops: list[Opcode], context: int) -> list[list[Opcode]]:
    """Cut opcodes into hunks with `context` equal lines around each change.

    Equal runs longer than twice the context split hunks; shorter ones keep them together,
    which is the "touching context windows merge" rule of unified diff (and jsdiff).
    """
    if not ops:
        return []
    ops = list(ops)
    tag, i1, i2, j1, j2 = ops[0]
    if tag == "equal":
        ops[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = ops[-1]
    if tag == "equal":
        ops[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))

    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            groups.append(group)
            group = []
            i1, j1 = i2 - context, j2 - context
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return [g for g in groups if any(op[0] != "equal" for op in g)]


def diffs_to_meta(diffs: Sequence[FileDiff], changed: Sequence[int | None] = ()) -> JsonObject:
    """The persisted form: `{"diffs": [{"path", "oldText", "newText", ...}, ...]}`.

    A hunk with known start lines adds `"oldLine"` and `"newLine"`, and `changed[n]` (its
    first changed line, see `applied_hunks`) adds `"line"`. Read back on replay, these give
    the same `_meta` and `locations` as live without diffing a file that may have changed.
    """
    items: list[JsonValue] = []
    for n, d in enumerate(diffs):
        item: JsonObject = {"path": d.path, "oldText": d.old_text, "newText": d.new_text}
        if d.old_line is not None and d.new_line is not None:
            item["oldLine"] = d.old_line
            item["newLine"] = d.new_line
        line = changed[n] if n < len(changed) else None
        if line is not None:
            item["line"] = line
        items.append(item)
    return {"diffs": items}


def hunks_to_meta(hunks: Sequence[tuple[FileDiff, int]]) -> JsonObject:
    """`diffs_to_meta` for the output of `applied_hunks`."""
    return diffs_to_meta([diff for diff, _ in hunks], [line for _, line in hunks])


def _line(value: JsonValue) -> int | None:
    """A 1-based line from meta, or None (absent, mistyped, a bool, or below 1)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def diffs_from_meta(meta: JsonValue) -> tuple[FileDiff, ...] | None:
    """Read hunks back from `meta`, defensively: anything malformed or empty gives `None`.

    Start lines are optional (logs written before they existed have none); a malformed pair
    is dropped rather than failing the hunk, so the client falls back to its own numbering.
    """
    if not isinstance(meta, dict):
        return None
    items = meta.get("diffs")
    if not isinstance(items, list) or not items:
        return None
    diffs: list[FileDiff] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        path, old_text, new_text = item.get("path"), item.get("oldText"), item.get("newText")
        if not isinstance(path, str) or not isinstance(new_text, str):
            return None
        if old_text is not None and not isinstance(old_text, str):
            return None
        old_line, new_line = _line(item.get("oldLine")), _line(item.get("newLine"))
        if old_line is None or new_line is None or old_text is None:
            old_line = new_line = None
        diffs.append(FileDiff(path, old_text, new_text, old_line, new_line))
    return tuple(diffs)


def locations_from_meta(meta: JsonValue) -> tuple[FileLocation, ...]:
    """One location per persisted hunk that knows its first changed line, in hunk order."""
    if diffs_from_meta(meta) is None:
        return ()
    assert isinstance(meta, dict)
    items = meta["diffs"]
    assert isinstance(items, list)
    locations: list[FileLocation] = []
    for item in items:
        assert isinstance(item, dict)
        line = _line(item.get("line"))
        path = item.get("path")
        if line is not None and isinstance(path, str):
            locations.append(FileLocation(path, line))
    return tuple(locations)


def snippet_line(text: str, old_string: str) -> int | None:
    """The 1-based line where `old_string` starts in `text` when it occurs exactly once.

    Matches as the edit tool does: exactly, else (an LF snippet in a CRLF file) with CRLF line
    ends. None when it occurs zero or several times: a guessed line is worse than none.
    """
    if not old_string:
        return None
    count = text.count(old_string)
    if count == 0 and "\r\n" in text and "\n" in old_string:
        old_string = old_string.replace("\r\n", "\n").replace("\n", "\r\n")
        count = text.count(old_string)
    if count != 1:
        return None
    return text.count("\n", 0, text.index(old_string)) + 1
