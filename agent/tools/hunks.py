"""Applied-change hunks for write and edit, and their persisted `meta` form.

A result card shows what the tool actually changed: one `FileDiff` per hunk with 3 lines of
context (as claude-agent-acp does), hunks whose context windows touch merged into one. The
hunks are computed once at execution and stored in the result's `meta`, so replay reads them
back instead of diffing a file that may have changed since. The line diff itself is
`dsh_common.linediff`, shared with the client.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.jsonvalue import JsonObject, JsonValue
from agent.views import FileDiff, FileLocation
from dsh_common.linediff import Opcode, line_opcodes

DIFF_CONTEXT = 3


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
