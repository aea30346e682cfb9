"""The `dev` script: `./dev tui` runs dsh-tui in the caller's directory, not the checkout.

The script runs on a stub checkout: a copy of `dev` beside a `.venv` whose install stamp is
current (so nothing is installed) and whose `dsh-tui` only prints where it ran and its arguments.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STUB = """#!/bin/sh
echo "cwd=$PWD"
for arg in "$@"; do echo "arg=$arg"; done
"""


def stub_checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    bin_dir = checkout / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    shutil.copy(ROOT / "dev", checkout / "dev")
    for name in ("pyproject.toml", "constraints.txt"):
        shutil.copy(ROOT / name, checkout / name)
    for name in ("python", "dsh-tui", "dsh-agent"):
        (bin_dir / name).write_text(STUB)
        (bin_dir / name).chmod(0o755)
    stamp = subprocess.run(
        ["sh", "-c", "cat pyproject.toml constraints.txt | cksum"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (checkout / ".venv" / ".dsh-installed").write_text(stamp)
    return checkout


def run_dev(checkout: Path, cwd: Path, *args: str) -> list[str]:
    done = subprocess.run(
        ["bash", str(checkout / "dev"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "setting up" not in done.stderr  # the stub venv counts as installed
    return done.stdout.splitlines()


def test_dev_tui_runs_in_the_callers_directory(tmp_path: Path) -> None:
    """`./dev tui` from a project: dsh-tui's default workspace (its cwd) is that project."""
    checkout = stub_checkout(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    assert run_dev(checkout, project, "tui") == [f"cwd={project}"]
    # Arguments pass through unchanged, `demo` first included, and a relative path in them
    # means what it means where the user typed it.
    assert run_dev(checkout, project, "tui", "demo") == [f"cwd={project}", "arg=demo"]
    assert run_dev(checkout, project, "tui", "--cwd", "sub") == [
        f"cwd={project}",
        "arg=--cwd",
        "arg=sub",
    ]


def test_dev_shell_still_runs_in_the_checkout(tmp_path: Path) -> None:
    """The other commands (tests, screenshots, shell) keep running in the checkout."""
    checkout = stub_checkout(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_dev(checkout, elsewhere, "shell", "dsh-agent") == [f"cwd={checkout}"]
