"""Private files: 0600 files, 0700 for the directories dsh creates, no other directory touched."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dsh_common.private_files import open_private, private_dir


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_created_directories_are_private_and_existing_ones_are_left_alone(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # like /tmp, given as --log-dir
    made = private_dir(shared / "a" / "b")
    assert mode(shared) == 0o1777
    assert mode(shared / "a") == 0o700
    assert mode(made) == 0o700


def test_a_file_is_created_and_narrowed_to_0600(tmp_path: Path) -> None:
    wide = tmp_path / "old.log"
    wide.write_text("x")
    os.chmod(wide, 0o644)
    with open_private(wide, "a") as handle:
        handle.write("y")
    assert mode(wide) == 0o600
