"""The shared /proc reader on real processes: a shell and the sleep it started."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from dsh_common.proc_tree import descendants, environ_value, read_stat, scan

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")


@pytest.fixture
def shell() -> Iterator[subprocess.Popen[bytes]]:
    env = {"DSH_TEST_MARK": "token-1/term-7", **os.environ}
    process = subprocess.Popen(
        ["sh", "-c", "sleep 30 & echo started; wait"], env=env, stdout=subprocess.PIPE
    )
    assert process.stdout is not None and process.stdout.readline() == b"started\n"
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_scan_sees_the_shell_and_its_child(shell: subprocess.Popen[bytes]) -> None:
    # "started" can come before the forked child has exec'd `sleep` (its comm is still sh).
    deadline = time.monotonic() + 10
    while True:
        table = scan()
        assert table is not None
        (child,) = descendants((shell.pid,), table)
        if table[child].comm == "sleep" or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert table[shell.pid].ppid == os.getpid() and table[shell.pid].alive
    assert table[child].comm == "sleep" and table[child].ppid == shell.pid
    assert shell.pid in descendants((os.getpid(),), table)


def test_environ_value_reads_the_marker_and_nothing_else(shell: subprocess.Popen[bytes]) -> None:
    assert environ_value(shell.pid, b"DSH_TEST_MARK=") == b"token-1/term-7"
    assert environ_value(shell.pid, b"DSH_TEST_MARK=token-1/") == b"term-7"
    assert environ_value(shell.pid, b"MARK=") is None  # only a whole entry's start counts
    assert environ_value(shell.pid, b"DSH_TEST_ABSENT=") is None


def test_a_reaped_process_has_no_stat() -> None:
    process = subprocess.Popen(["true"])
    process.wait()
    assert read_stat(process.pid) is None
    assert environ_value(process.pid, b"PATH=") is None


def test_a_zombie_is_not_alive() -> None:
    process = subprocess.Popen(["true"])
    info = read_stat(process.pid)
    while info is not None and info.alive:
        time.sleep(0.005)
        info = read_stat(process.pid)
    assert info is not None and info.state == "Z"
    process.wait()
