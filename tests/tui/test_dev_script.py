"""The `dev` script: `./dev tui` runs dsh-tui in the caller's directory, not the checkout, and
the interpreter and venv are chosen robustly (`DSH_PYTHON`, one venv per version).

The script runs on a stub checkout: a copy of `dev` beside a `.venv` whose install stamp is
current (so nothing is installed) and whose `dsh-tui` only prints where it ran and its arguments,
or beside no venv and fake interpreters that answer `dev`'s version probe and make fake venvs.
"""

from __future__ import annotations

import os
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


def dev(
    checkout: Path, cwd: Path, *args: str, path: str | None = None, python: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the checkout's `dev`; `DSH_PYTHON` is only what `python` says, never inherited."""
    env = {k: v for k, v in os.environ.items() if k != "DSH_PYTHON"}
    if path is not None:
        env["PATH"] = path
    if python is not None:
        env["DSH_PYTHON"] = python
    return subprocess.run(
        ["bash", str(checkout / "dev"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )


def run_dev(checkout: Path, cwd: Path, *args: str) -> list[str]:
    done = dev(checkout, cwd, *args)
    assert done.returncode == 0, done.stderr
    assert "setting up" not in done.stderr  # the stub venv counts as installed
    return done.stdout.splitlines()


FAKE_PYTHON = """#!/bin/sh
# A fake Python {version}: answers dev's version probe, makes a venv of itself, installs nothing.
case "$1" in
    -c) echo "{version}" ;;
    -m) if [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi ;;
esac
"""
SHIM = """#!/bin/sh
echo "pyenv: $(basename "$0"): command not found" >&2
exit 127
"""


def fake_pythons(tmp_path: Path, **scripts: str) -> str:
    """A directory of interpreters by name, first on a PATH that still has the system tools."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, script in scripts.items():
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def bare_checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("dev", "pyproject.toml", "constraints.txt"):
        shutil.copy(ROOT / name, checkout / name)
    return checkout


def test_an_interpreter_counts_only_if_it_runs(tmp_path: Path) -> None:
    """A pyenv shim for an inactive version is on PATH but fails: the next candidate is used."""
    checkout = bare_checkout(tmp_path)
    path = fake_pythons(
        tmp_path,
        **{
            "python3.14": SHIM,
            "python3.13": SHIM,
            "python3.12": FAKE_PYTHON.format(version="3.12"),
        },
    )
    done = dev(checkout, checkout, "shell", "true", path=path)
    assert done.returncode == 0, done.stderr
    assert f"setting up {checkout}/.venv with python3.12" in done.stderr
    assert (checkout / ".venv" / "bin" / "python").exists()


def test_dsh_python_must_run(tmp_path: Path) -> None:
    checkout = bare_checkout(tmp_path)
    path = fake_pythons(tmp_path, **{"python3.13": SHIM})
    done = dev(checkout, checkout, "shell", "true", path=path, python="python3.13")
    assert done.returncode != 0
    assert "DSH_PYTHON=python3.13 does not run as Python 3.11 or newer" in done.stderr
    assert not (checkout / ".venv").exists()


def test_another_version_gets_its_own_venv(tmp_path: Path) -> None:
    """`.venv` stays the default; DSH_PYTHON naming another version uses `.venv-X.Y`, and
    naming `.venv`'s own version uses `.venv`."""
    checkout = bare_checkout(tmp_path)
    path = fake_pythons(
        tmp_path,
        **{
            "python3.11": FAKE_PYTHON.format(version="3.11"),
            "python3.13": FAKE_PYTHON.format(version="3.13"),
        },
    )
    which = ("shell", "sh", "-c", "command -v python")
    first = dev(checkout, checkout, *which, path=path, python="python3.11")
    assert first.stdout.strip() == f"{checkout}/.venv/bin/python", first.stderr
    newer = dev(checkout, checkout, *which, path=path, python="python3.13")
    assert "setting up" in newer.stderr
    assert newer.stdout.strip() == f"{checkout}/.venv-3.13/bin/python", newer.stderr
    again = dev(checkout, checkout, *which, path=path, python="python3.13")
    assert "setting up" not in again.stderr  # installed once, then reused
    assert again.stdout.strip() == f"{checkout}/.venv-3.13/bin/python"
    default = dev(checkout, checkout, *which, path=path)
    assert default.stdout.strip() == f"{checkout}/.venv/bin/python"


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
