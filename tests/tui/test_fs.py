"""ConfinedFs: confinement to the roots, line/limit reads, atomic writes."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

import pytest

from tui.fs import (
    ConfinedFs,
    FsError,
    FsFileNotFoundError,
    FsInvalidContentError,
    FsInvalidPathError,
    FsNotAFileError,
    FsPermissionError,
    FsRangeError,
    FsTooLargeError,
    PathOutsideRootsError,
)


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project root, an extra allowed dir, and an outside dir with a secret."""
    project = tmp_path / "project"
    extra = tmp_path / "extra"
    outside = tmp_path / "outside"
    for d in (project, extra, outside):
        d.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (project / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    (extra / "b.txt").write_text("extra\n")
    return project, extra, outside


# ---------------------------------------------------------------------------- confinement
def test_inside_roots_is_allowed(layout: tuple[Path, Path, Path]) -> None:
    project, extra, _ = layout
    fs = ConfinedFs([project, extra])
    assert fs.read_text(project / "a.txt").startswith("one")
    assert fs.read_text(str(extra / "b.txt")) == "extra\n"  # the --allow-dir root


def test_outside_is_refused_with_a_clear_message(layout: tuple[Path, Path, Path]) -> None:
    project, extra, outside = layout
    fs = ConfinedFs([project])
    with pytest.raises(PathOutsideRootsError) as info:
        fs.read_text(outside / "secret.txt")
    assert "outside the allowed directories" in str(info.value)
    assert str(project.resolve()) in str(info.value)
    assert isinstance(info.value, PermissionError) and isinstance(info.value, FsError)
    with pytest.raises(PathOutsideRootsError):
        fs.read_text(extra / "b.txt")  # not allowed without --allow-dir
    with pytest.raises(PathOutsideRootsError):
        fs.write_text(outside / "new.txt", "x")
    assert not (outside / "new.txt").exists()


def test_dotdot_escape_is_refused(layout: tuple[Path, Path, Path]) -> None:
    project, _, outside = layout
    fs = ConfinedFs([project])
    with pytest.raises(PathOutsideRootsError):
        fs.read_text(f"{project}/../outside/secret.txt")
    with pytest.raises(PathOutsideRootsError):
        fs.write_text(f"{project}/sub/../../outside/evil.txt", "x")
    assert not (outside / "evil.txt").exists()
    # `..` that stays inside is fine.
    assert fs.read_text(f"{project}/sub/../a.txt").startswith("one")


def test_sibling_with_a_common_prefix_is_outside(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "project-evil").mkdir()
    (tmp_path / "project-evil" / "x").write_text("x")
    fs = ConfinedFs([tmp_path / "proj"])
    with pytest.raises(PathOutsideRootsError):
        fs.read_text(tmp_path / "project-evil" / "x")


def test_symlink_escapes_are_refused(layout: tuple[Path, Path, Path]) -> None:
    project, _, outside = layout
    (project / "link-file").symlink_to(outside / "secret.txt")
    (project / "link-dir").symlink_to(outside)
    (project / "dangling").symlink_to(outside / "not-yet.txt")
    fs = ConfinedFs([project])
    with pytest.raises(PathOutsideRootsError, match="resolves to"):
        fs.read_text(project / "link-file")
    with pytest.raises(PathOutsideRootsError):
        fs.read_text(project / "link-dir" / "secret.txt")
    with pytest.raises(PathOutsideRootsError):
        fs.write_text(project / "link-dir" / "new.txt", "x")
    with pytest.raises(PathOutsideRootsError):
        fs.write_text(project / "dangling", "x")  # would create a file outside
    with pytest.raises(PathOutsideRootsError):
        fs.write_text(project / "link-file", "overwritten")
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (outside / "not-yet.txt").exists()
    assert not (outside / "new.txt").exists()


def test_symlinked_root_and_links_inside(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.txt").write_text("old\n")
    alias = tmp_path / "alias"
    alias.symlink_to(real)
    (real / "inner-link").symlink_to(real / "f.txt")
    fs = ConfinedFs([alias])  # e.g. a cwd reached through a symlink
    assert fs.read_text(alias / "f.txt") == "old\n"
    assert fs.read_text(real / "f.txt") == "old\n"
    fs.write_text(real / "inner-link", "new\n")
    assert (real / "inner-link").is_symlink()  # the link survives, its target is replaced
    assert (real / "f.txt").read_text() == "new\n"


@pytest.mark.parametrize("bad", ["a.txt", "./a.txt", "", "/tmp/\x00x"])
def test_relative_and_invalid_paths_are_refused(layout: tuple[Path, Path, Path], bad: str) -> None:
    fs = ConfinedFs([layout[0]])
    with pytest.raises(FsInvalidPathError):
        fs.read_text(bad)
    with pytest.raises(FsInvalidPathError):
        fs.write_text(bad, "x")


def test_resolve_and_roots(layout: tuple[Path, Path, Path]) -> None:
    project, extra, outside = layout
    fs = ConfinedFs([project])
    fs.add_root(extra)
    fs.add_root(extra)
    assert fs.roots == [project.resolve(), extra.resolve()]
    assert fs.resolve(project / "missing" / "deep.txt").name == "deep.txt"
    with pytest.raises(FsError):
        fs.resolve(outside)
    with pytest.raises(FsError):
        fs.resolve("relative")


# ---------------------------------------------------------------------------- reading
@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (None, None, "one\ntwo\nthree\nfour\n"),
        (1, None, "one\ntwo\nthree\nfour\n"),
        (2, None, "two\nthree\nfour\n"),
        (2, 2, "two\nthree\n"),
        (None, 1, "one\n"),
        (4, 10, "four\n"),
        (3, 0, ""),
        (5, None, ""),  # one past the last line: empty, not an error
    ],
)
def test_line_and_limit(
    layout: tuple[Path, Path, Path], line: int | None, limit: int | None, expected: str
) -> None:
    fs = ConfinedFs([layout[0]])
    assert fs.read_text(layout[0] / "a.txt", line=line, limit=limit) == expected


def test_line_range_errors(layout: tuple[Path, Path, Path]) -> None:
    fs = ConfinedFs([layout[0]])
    path = layout[0] / "a.txt"
    with pytest.raises(FsRangeError, match=r"past the end.*4 lines"):
        fs.read_text(path, line=6)
    with pytest.raises(FsRangeError, match="1-based"):
        fs.read_text(path, line=0)
    with pytest.raises(FsRangeError, match="negative"):
        fs.read_text(path, limit=-1)


def test_line_endings_and_last_line_without_newline(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"a\r\nb\r\nc")
    fs = ConfinedFs([tmp_path])
    assert fs.read_text(tmp_path / "crlf.txt") == "a\r\nb\r\nc"
    assert fs.read_text(tmp_path / "crlf.txt", line=2) == "b\r\nc"
    assert fs.read_text(tmp_path / "crlf.txt", line=3, limit=5) == "c"


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    fs = ConfinedFs([tmp_path])
    assert fs.read_text(tmp_path / "empty") == ""
    assert fs.read_text(tmp_path / "empty", line=1, limit=3) == ""


def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"ok \xff\xfe end\nsecond \xe2\x82\n")
    fs = ConfinedFs([tmp_path])
    assert fs.read_text(tmp_path / "bin.txt") == "ok \ufffd\ufffd end\nsecond \ufffd\n"
    assert fs.read_text(tmp_path / "bin.txt", line=2) == "second \ufffd\n"


def test_missing_file_and_directory(layout: tuple[Path, Path, Path]) -> None:
    project = layout[0]
    fs = ConfinedFs([project])
    with pytest.raises(FsFileNotFoundError, match="file not found"):
        fs.read_text(project / "nope.txt")
    with pytest.raises(FsNotAFileError, match="directory"):
        fs.read_text(project)
    with pytest.raises(FsNotAFileError):
        fs.write_text(project, "x")


def test_read_cap(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("0123456789\n" * 10)
    fs = ConfinedFs([tmp_path], max_read_bytes=50)
    with pytest.raises(FsTooLargeError, match="line and limit"):
        fs.read_text(tmp_path / "big.txt")
    assert fs.read_text(tmp_path / "big.txt", line=1, limit=4) == "0123456789\n" * 4
    with pytest.raises(FsTooLargeError):
        fs.read_text(tmp_path / "big.txt", line=1, limit=5)


# ---------------------------------------------------------------------------- writing
def test_write_creates_file_and_parents(tmp_path: Path) -> None:
    fs = ConfinedFs([tmp_path])
    target = tmp_path / "new" / "deep" / "file.txt"
    fs.write_text(target, "héllo\n")
    assert target.read_bytes() == "héllo\n".encode()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_atomic_write_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old\n")
    target.chmod(0o750)
    before = target.stat().st_ino
    fs = ConfinedFs([tmp_path])
    fs.write_text(target, "#!/bin/sh\necho new\n")
    assert target.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.stat().st_ino != before  # replaced by rename, never rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.sh"]


def test_write_read_only_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "ro.txt"
    target.write_text("keep\n")
    target.chmod(0o444)
    with pytest.raises(FsPermissionError, match="read-only"):
        ConfinedFs([tmp_path]).write_text(target, "changed\n")
    assert target.read_text() == "keep\n"


def test_write_through_a_file_parent_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(FsNotAFileError, match="not a directory"):
        ConfinedFs([tmp_path]).write_text(tmp_path / "file" / "child.txt", "x")


def test_write_rejects_unencodable_content(tmp_path: Path) -> None:
    with pytest.raises(FsInvalidContentError, match="surrogate"):
        ConfinedFs([tmp_path]).write_text(tmp_path / "x.txt", "bad \ud800")
    assert list(tmp_path.iterdir()) == []


def test_round_trip_keeps_bytes(tmp_path: Path) -> None:
    fs = ConfinedFs([tmp_path])
    content = "\ufeffBOM, CRLF\r\nno final newline"
    fs.write_text(tmp_path / "x.txt", content)
    assert fs.read_text(tmp_path / "x.txt") == content


def test_read_below_a_file_is_not_found(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(FsFileNotFoundError):
        ConfinedFs([tmp_path]).read_text(tmp_path / "file" / "child.txt")


# ---------------------------------------------------------------------------- hardening
def test_reading_lines_holds_no_more_than_the_cap(tmp_path: Path) -> None:
    """A newline-less "line" is never loaded whole: at most the cap is held, then refused."""
    import tracemalloc

    huge = tmp_path / "sparse.bin"
    with open(huge, "wb") as f:
        f.truncate(64 * 1024 * 1024)  # 64 MiB of zeros, no newline, no disk used
    fs = ConfinedFs([tmp_path], max_read_bytes=1024 * 1024)
    tracemalloc.start()
    try:
        with pytest.raises(FsTooLargeError):
            fs.read_text(huge, line=1, limit=1)
        assert fs.read_text(huge, line=2, limit=1) == ""  # skipping it is bounded too
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024


def test_os_errors_get_a_plain_message(tmp_path: Path) -> None:
    fs = ConfinedFs([tmp_path])
    long_name = tmp_path / ("n" * 300)
    for call in (lambda: fs.read_text(long_name), lambda: fs.write_text(long_name, "x")):
        with pytest.raises(FsError) as info:
            call()
        assert "too long" in str(info.value)
        assert "Errno" not in str(info.value)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FsNotAFileError, match="not a regular file"):
        ConfinedFs([tmp_path]).read_text(fifo)


def test_writes_cannot_escape_through_a_directory_swapped_for_a_symlink(tmp_path: Path) -> None:
    """A thread swaps a workspace directory for a symlink to outside while writes run."""
    import sys
    import threading

    work = tmp_path / "work"
    outside = tmp_path / "outside"
    (work / "d").mkdir(parents=True)
    outside.mkdir()
    fs = ConfinedFs([work])
    stop = threading.Event()

    def swap() -> None:
        d, aside, link = work / "d", work / "d.aside", work / "d.link"
        n = 0
        while not stop.is_set():
            try:
                os.rename(d, aside)
                os.symlink(outside, link)
                os.rename(link, d)  # d is now a symlink to outside
                os.unlink(d)
                os.rename(aside, d)
            except OSError:
                # A write recreated d meanwhile: move it out of the way and start again.
                n += 1
                with contextlib.suppress(OSError):
                    for leftover in (link, d):
                        if leftover.is_symlink():
                            leftover.unlink()
                        elif leftover.is_dir():
                            leftover.rename(work / f"made-{n}")
                    if aside.is_dir() and not d.exists():
                        aside.rename(d)

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        for i in range(1200):
            with contextlib.suppress(OSError):  # refusals (FsError) and lost races alike
                fs.write_text(work / "d" / f"f{i}.txt", "x")
    finally:
        stop.set()
        swapper.join()
        sys.setswitchinterval(old_interval)
    assert list(outside.iterdir()) == []
