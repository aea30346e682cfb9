"""Regenerate screenshots/ from the snapshot tests' verified SVGs.

The snapshot tests (tests/snapshots/) drive the real app through the deterministic harness and
compare each screen with its stored SVG, so a screenshot copied from there is what the app
shows. This script runs those tests first and stops if any fails; then it copies every SVG
here under a readable name (xml:space="preserve" added, so viewers keep the spacing) and,
where `rsvg-convert` is installed, writes a PNG beside each.

Usage: ./dev screenshots
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots" / "__snapshots__"
OUT = ROOT / "screenshots"


def readable_name(svg: Path) -> str:
    """`test_demo_cards/test_demo[terminal-on].svg` -> `demo-cards--demo-terminal-on.svg`."""
    module = svg.parent.name.removeprefix("test_").replace("_", "-")
    test = re.sub(r"[\[\]]+", "-", svg.stem.removeprefix("test_")).strip("-").replace("_", "-")
    return f"{module}--{test}.svg"


def app_title(svg: str) -> str:
    """The window title the app itself has: a snapshot of one widget runs in a test host app
    (`DiffHost`, `PaneApp`), whose class name would otherwise title the picture."""

    def retitle(match: re.Match[str]) -> str:
        title = match.group(2)
        return match.group(0) if title.startswith("dsh-tui") else match.group(1) + "dsh-tui<"

    return re.sub(r'(<text class="[^"]*-title"[^>]*>)([^<]*)<', retitle, svg, count=1)


def main() -> int:
    check = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "tests/snapshots"], cwd=ROOT
    )
    if check.returncode != 0:
        print("screenshots: the snapshot tests failed; nothing was copied", file=sys.stderr)
        return check.returncode
    for old in OUT.glob("*.svg"):
        old.unlink()
    for old in OUT.glob("*.png"):
        old.unlink()
    converter = shutil.which("rsvg-convert")
    written = 0
    for svg in sorted(SNAPSHOTS.glob("*/*.svg")):
        target = OUT / readable_name(svg)
        text = app_title(svg.read_text())
        target.write_text(text.replace("<svg ", '<svg xml:space="preserve" ', 1))
        written += 1
        if converter:
            subprocess.run(
                [converter, str(target), "-o", str(target.with_suffix(".png"))], check=True
            )
    note = "with PNGs" if converter else "(install rsvg-convert for PNGs)"
    print(f"screenshots: {written} SVGs written to {OUT.relative_to(ROOT)} {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
