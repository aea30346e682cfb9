"""`dsh-tui --record FILE`: every line on the wire, both ways, as JSONL, written off the UI thread.

Each line of the file is `{"dir": "in" | "out", "t": seconds since the recording began
(monotonic), "msg": the message}`, or `"raw": the line as text` instead of `msg` when it was not
valid JSON: the recording is the wire, not a view of state. A line dropped at the transport's
cap keeps only its first bytes: `"raw"` holds those and `"size"` the length it had.

The transport hands each line's bytes to `Recorder` on the event loop, which only stamps them
and queues them; a thread of its own turns them into JSONL and writes them. A valid message is
copied into the file as it came, never parsed or serialised again, so a 60 MB line costs the
loop nothing but the queueing. The queue is bounded in items and in bytes: if the disk cannot
keep up, lines are counted instead of queued and a `{"lost": n}` line says so where they were,
rather than the app waiting for the disk.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, cast

from dsh_common.private_files import open_private

log = logging.getLogger(__name__)

MAX_QUEUED_LINES = 10_000
MAX_QUEUED_BYTES = 256 * 1024 * 1024
IDLE_POLL_S = 0.005
"""How often the writer looks for lines when it has none. Polling keeps the loop's side to a
deque append: waking the thread for each line (a Condition, as queue.Queue does) slowed the loop
down on a stream of small messages."""
BATCH_BYTES = 1024 * 1024

# seconds, direction, the line, whether it is valid JSON, its size when dropped at the cap,
# and how many lines were lost just before it
_Item = tuple[float, str, bytes, bool, int | None, int]


class Recorder:
    """The transport's tap (`dsh_common.jsonrpc_lines.LineTap`) that writes a recording.

    The deque is the bounded queue: the loop only appends and counts what it queued, the
    writer only pops and counts what it wrote, so neither waits on a lock of the other's.
    """

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_lines: int = MAX_QUEUED_LINES,
        max_bytes: int = MAX_QUEUED_BYTES,
    ) -> None:
        self.path = path
        self._file = cast(BinaryIO, open_private(path, "wb"))
        self._clock = clock
        self._start = clock()
        self._items: deque[_Item] = deque()
        self._max_lines = max_lines
        self._max_bytes = max_bytes
        self._queued = self._queued_bytes = 0  # written by the loop only
        self._written = self._written_bytes = 0  # written by the writer thread only
        self._lost = 0
        self._closed = False
        self._thread = threading.Thread(target=self._write_all, name="dsh-tui-record", daemon=True)
        self._thread.start()

    # -- the tap, on the event loop -----------------------------------------------------

    def line_in(self, line: bytes, valid_json: bool) -> None:
        self._put("in", line, valid_json, None)

    def line_out(self, line: bytes) -> None:
        self._put("out", line, True, None)

    def oversized_in(self, size: int, head: bytes) -> None:
        self._put("in", head, False, size)

    def _put(self, direction: str, line: bytes, valid_json: bool, size: int | None) -> None:
        if self._closed:
            return
        lines = self._queued - self._written
        queued = self._queued_bytes - self._written_bytes
        if lines >= self._max_lines or (lines and queued + len(line) > self._max_bytes):
            self._lost += 1
            return
        seconds = self._clock() - self._start
        self._items.append((seconds, direction, line, valid_json, size, self._lost))
        self._lost = 0
        self._queued += 1
        self._queued_bytes += len(line)

    def close(self) -> None:
        """Write what is queued and close the file; blocks (call it from a thread)."""
        self._closed = True
        self._thread.join()

    # -- the writer thread --------------------------------------------------------------

    def _write_all(self) -> None:
        failed = False
        try:
            while True:
                closing = self._closed
                if not self._items:
                    if closing:
                        return
                    time.sleep(IDLE_POLL_S)
                    continue
                pieces: list[bytes | memoryview] = []
                size = 0
                while self._items and size < BATCH_BYTES:
                    item = self._items.popleft()
                    pieces += _jsonl(item)
                    size += len(item[2])
                    self._written += 1
                    self._written_bytes += len(item[2])
                if not failed:
                    try:
                        self._file.writelines(pieces)  # a large piece bypasses the buffer
                        self._file.flush()
                    except OSError as error:
                        log.error("the recording %s stopped: %s", self.path, error)
                        failed = True
        finally:
            self._file.close()


def _jsonl(item: _Item) -> list[bytes | memoryview]:
    """One recording line, in pieces: a valid UTF-8 message is copied into it as it came."""
    seconds, direction, line, valid_json, size, lost = item
    stamp = f'{{"dir":"{direction}","t":{seconds:.6f}'.encode()
    pieces: list[bytes | memoryview] = []
    if lost:
        pieces.append(stamp + b',"lost":%d}\n' % lost)
    end = len(line) - 1 if line.endswith(b"\n") else len(line)
    if valid_json and b"\x00" not in line[:4]:  # not UTF-16 or UTF-32, which json also reads
        pieces += [stamp + b',"msg":', memoryview(line)[:end], b"}\n"]
        return pieces
    raw = json.dumps(line[:end].decode("utf-8", "replace"), ensure_ascii=False)
    extra = "" if size is None else f',"size":{size}'
    pieces.append(stamp + f',"raw":{raw}{extra}}}\n'.encode())
    return pieces
