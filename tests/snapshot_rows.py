"""The rows that differ between an expected and an actual snapshot SVG, as text.

A failed snapshot leaves its pictures in `snapshot_report.html`, but CI keeps only the tail
of the output, and a raw SVG diff there is mostly class names and coordinates: every class
name changes when any style anywhere changes. So the end of the run names, for each failed
comparison, the screen rows that differ: their text, or "styles only" when the text is the
same and a colour, an attribute or a background moved.

Rich's `export_svg` draws each run of a row as one `<text>` (clipped to `line-N`, at
`x = column * char_width`, its class naming a CSS rule) and each background as one `<rect>`
at `y = row * line_height + 1.5`; that is all this module reads.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.cells import cell_len

_FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px;\s*line-height:\s*([\d.]+)px")
_RULE = re.compile(r"\.terminal-(?:\d+-)?(r\d+)\s*\{\s*([^}]*?)\s*\}")
_TEXT = re.compile(
    r'<text class="terminal-(?:\d+-)?(r\d+)" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
    r'clip-path="url\(#terminal-(?:\d+-)?line-(\d+)\)">(.*?)</text>'
)
_BACKGROUND = re.compile(
    r'<rect fill="([^"]+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="[\d.]+" '
    r'shape-rendering="crispEdges"/>'
)
_UNIQUE_ID = re.compile(r"\bterminal-\d+-")
SHOWN_ROWS = 6
"""Rows listed per failed snapshot: enough to see what moved, few enough for a CI tail."""


@dataclass
class Row:
    """One screen row: its text, and what it looks like (runs and backgrounds by column)."""

    runs: list[tuple[int, str]] = field(default_factory=list)
    looks: list[tuple[Any, ...]] = field(default_factory=list)

    @property
    def text(self) -> str:
        line = ""
        for column, text in sorted(self.runs):
            line += " " * max(0, column - cell_len(line)) + text
        return line.rstrip()


def svg_rows(svg: str) -> dict[int, Row]:
    """The rows of a Rich SVG export, by row number from 0."""
    found = _FONT_SIZE.search(svg)
    font_size, line_height = (float(found[1]), float(found[2])) if found else (20.0, 24.4)
    char_width = font_size * 0.61  # export_svg's default font aspect ratio
    rules = dict(_RULE.findall(svg))
    rows: dict[int, Row] = {}
    for name, x, line, escaped in _TEXT.findall(svg):
        text = html.unescape(escaped).replace("\xa0", " ")
        column = round(float(x) / char_width)
        row = rows.setdefault(int(line), Row())
        row.runs.append((column, text))
        row.looks.append(("text", column, rules.get(name, name), text))
    for fill, x, y, width in _BACKGROUND.findall(svg):
        number = round((float(y) - 1.5) / line_height)
        if number < 0:
            continue  # the window frame, not a row
        column, cells = round(float(x) / char_width), round(float(width) / char_width)
        rows.setdefault(number, Row()).looks.append(("background", column, cells, fill))
    for row in rows.values():
        row.looks.sort(key=repr)
    return rows


def differing_rows(expected: str, actual: str, shown: int = SHOWN_ROWS) -> list[str]:
    """Compact lines naming the rows that differ: the number, then the expected and the
    actual text, or "styles only" when only the look differs."""
    before, after = svg_rows(expected), svg_rows(actual)
    lines: list[str] = []
    numbers = sorted(set(before) | set(after))
    changed = [n for n in numbers if _look(before, n) != _look(after, n)]
    for number in changed[:shown]:
        old, new = _text(before, number), _text(after, number)
        if old == new:
            lines.append(f"  row {number:>3} styles only: {old.strip()[:100]!r}")
        else:
            lines.append(f"  row {number:>3} expected: {old!r}")
            lines.append(f"  {'':>7} actual:   {new!r}")
    if len(changed) > shown:
        lines.append(f"  ... and {len(changed) - shown} more rows")
    return lines


def screen_differences(expected: str, actual: str) -> list[str]:
    """`differing_rows`, or one line when the rows agree but the SVGs (their random ids
    aside) still differ: for tests that compare two screenshots, where a plain `==` on
    200 KB strings would have pytest diff them character by character for minutes."""
    rows = differing_rows(expected, actual)
    if rows or _UNIQUE_ID.sub("terminal-", expected) == _UNIQUE_ID.sub("terminal-", actual):
        return rows
    return ["  the rows agree; the SVGs differ elsewhere (size, title or frame)"]


def _look(rows: dict[int, Row], number: int) -> list[tuple[Any, ...]]:
    return rows[number].looks if number in rows else []


def _text(rows: dict[int, Row], number: int) -> str:
    return rows[number].text if number in rows else ""


def failed_snapshot_lines(diffs: Iterable[Any]) -> list[str]:
    """The end-of-run lines for pytest-textual-snapshot's failed comparisons (its
    `SvgSnapshotDiff`s: `snapshot`, `actual`, `path`, `test_name`, `snapshot_exists`)."""
    lines: list[str] = []
    for diff in diffs:
        where = f"{Path(diff.path).name}::{diff.test_name}"
        if not diff.snapshot_exists:
            lines.append(f"{where}: no snapshot on disk yet")
            continue
        rows = differing_rows(str(diff.snapshot), str(diff.actual))
        lines.append(f"{where}: " + ("rows that differ" if rows else "no row differs"))
        lines.extend(rows)
    return lines
