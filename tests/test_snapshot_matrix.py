"""The snapshot matrix in tests/README.md agrees with the SVGs under tests/snapshots/.

Every cell names snapshots that exist or says `—`; every row has a snapshot; every SVG is named
somewhere in the table. Pure file reading: no app runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
README = TESTS / "README.md"
SNAPSHOT_TESTS = TESTS / "snapshots"
SVG_ROOT = SNAPSHOT_TESTS / "__snapshots__"
START = "<!-- snapshot-matrix:start -->"
END = "<!-- snapshot-matrix:end -->"
COLUMNS = ("terminal on", "terminal off", "n.a.")
NOT_APPLICABLE = "—"
REFERENCE = re.compile(r"`(?P<module>test_\w+)::(?P<test>test_\w+(?:\[[^\]`]+\])?)`")
SEPARATOR = re.compile(r"\s*(?:<br\s*/?>|,)\s*")


@dataclass(frozen=True)
class Cell:
    row: str
    column: str
    text: str

    @property
    def where(self) -> str:
        return f"row {self.row!r}, column {self.column!r}"


def matrix_lines(text: str) -> list[str]:
    if text.count(START) != 1 or text.count(END) != 1:
        raise AssertionError(f"{README.name} needs exactly one {START} and one {END}")
    body = text.split(START, 1)[1].split(END, 1)[0]
    return [line.strip() for line in body.splitlines() if line.strip()]


def split_row(line: str) -> list[str]:
    if not (line.startswith("|") and line.endswith("|")):
        raise AssertionError(f"not a table row between the markers: {line!r}")
    return [cell.strip() for cell in line[1:-1].split("|")]


def parse_matrix(text: str) -> list[Cell]:
    lines = matrix_lines(text)
    if len(lines) < 3:
        raise AssertionError("the snapshot matrix has no rows")
    header = split_row(lines[0])
    if tuple(header[1:]) != COLUMNS:
        raise AssertionError(f"matrix columns are {header[1:]}, expected {list(COLUMNS)}")
    if not all(set(cell) <= set("-: ") and "-" in cell for cell in split_row(lines[1])):
        raise AssertionError(f"the second matrix line is not a separator: {lines[1]!r}")
    cells: list[Cell] = []
    for line in lines[2:]:
        row = split_row(line)
        if len(row) != len(header):
            raise AssertionError(f"{len(row)} cells, expected {len(header)}: {line!r}")
        label = row[0] or "<no label>"
        cells += [
            Cell(label, column, value) for column, value in zip(COLUMNS, row[1:], strict=True)
        ]
    return cells


def references(cell: Cell) -> list[tuple[str, str]]:
    """The `module::test id` pairs in a cell; [] for `—`. Raises on anything else."""
    if cell.text == NOT_APPLICABLE:
        return []
    if not cell.text:
        raise ValueError(f'{cell.where} is empty: name a snapshot or write "{NOT_APPLICABLE}"')
    found = []
    for part in SEPARATOR.split(cell.text):
        match = REFERENCE.fullmatch(part)
        if match is None:
            raise ValueError(
                f"{cell.where}: {part!r} is not a `module::test id` reference "
                f'(or the whole cell "{NOT_APPLICABLE}")'
            )
        found.append((match["module"], match["test"]))
    return found


def svg_path(module: str, test: str) -> Path:
    return SVG_ROOT / module / f"{test}.svg"


def has_test_function(module: str, test: str) -> bool:
    source = SNAPSHOT_TESTS / f"{module}.py"
    name = test.split("[", 1)[0]
    return source.is_file() and re.search(rf"^def {name}\(", source.read_text(), re.M) is not None


@pytest.fixture(scope="module")
def cells() -> list[Cell]:
    return parse_matrix(README.read_text(encoding="utf-8"))


def test_every_cell_is_a_snapshot_or_a_dash(cells: list[Cell]) -> None:
    problems = []
    for cell in cells:
        try:
            references(cell)
        except ValueError as exc:
            problems.append(str(exc))
    assert not problems, "snapshot matrix cells:\n" + "\n".join(problems)


def test_every_named_snapshot_exists(cells: list[Cell]) -> None:
    problems = []
    for cell in cells:
        try:
            refs = references(cell)
        except ValueError:
            continue  # reported by test_every_cell_is_a_snapshot_or_a_dash
        for module, test in refs:
            path = svg_path(module, test)
            if not path.is_file():
                problems.append(f"{cell.where}: {module}::{test} has no {path.relative_to(TESTS)}")
            elif not has_test_function(module, test):
                problems.append(
                    f"{cell.where}: {module}::{test} has an SVG but no "
                    f"`def {test.split('[', 1)[0]}(` in snapshots/{module}.py (a stale snapshot?)"
                )
    assert not problems, "snapshot matrix names missing snapshots:\n" + "\n".join(problems)


def test_every_row_has_a_snapshot(cells: list[Cell]) -> None:
    rows: dict[str, list[Cell]] = {}
    for cell in cells:
        rows.setdefault(cell.row, []).append(cell)
    duplicated = [row for row, row_cells in rows.items() if len(row_cells) != len(COLUMNS)]
    assert not duplicated, f"snapshot matrix rows listed more than once: {duplicated}"
    empty = []
    for row, row_cells in rows.items():
        if all(cell.text == NOT_APPLICABLE for cell in row_cells):
            empty.append(row)
    assert not empty, f'snapshot matrix rows with no snapshot in any column (all "—"): {empty}'


def test_every_svg_is_in_the_matrix(cells: list[Cell]) -> None:
    named: set[Path] = set()
    for cell in cells:
        try:
            named.update(svg_path(module, test) for module, test in references(cell))
        except ValueError:
            continue
    on_disk = set(SVG_ROOT.glob("*/*.svg"))
    assert on_disk, f"no snapshots found under {SVG_ROOT}"
    missing = sorted(
        f"{path.parent.name}::{path.stem}  ({path.relative_to(TESTS)})" for path in on_disk - named
    )
    assert not missing, (
        "SVGs not named in the snapshot matrix of tests/README.md "
        "(add a row or a cell for each):\n" + "\n".join(missing)
    )


def test_the_parser_rejects_bad_cells() -> None:
    """Guard the guard: an empty cell, free text and a missing SVG are all caught."""
    table = "\n".join(
        [
            START,
            "| Content type × state | terminal on | terminal off | n.a. |",
            "| --- | --- | --- | --- |",
            "| image |  | free text | `test_x::test_nowhere[a-b]` |",
            END,
        ]
    )
    empty, free, missing = parse_matrix(table)
    with pytest.raises(ValueError, match="'image', column 'terminal on' is empty"):
        references(empty)
    with pytest.raises(ValueError, match="'free text' is not a"):
        references(free)
    assert references(missing) == [("test_x", "test_nowhere[a-b]")]
    assert not svg_path("test_x", "test_nowhere[a-b]").exists()
