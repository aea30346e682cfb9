"""How fast `@` completion is on a 50,000-file workspace (issue 19).

Run: `.venv/bin/python bench/bench_mentions.py [--runs N] [--files N]`.

* build: `build_index` over a generated tree of `--files` mentionable files, plus what it must
  leave out (a gitignored `build/` and `*.log` files, `node_modules/`, `.venv/`, `.git/`);
  baseline: a bare `os.walk` of the same tree that lists every name and filters nothing.
* keystroke: each prefix of a few typed queries (`w`, `wi`, `wid`, ...) through one
  `FuzzyMatcher`, as the menu sees them while a user types; the first key of a query is the
  slowest (all paths are candidates), so it is reported apart. Baseline: a plain Python loop
  that only checks which paths hold the query as a subsequence, without ranking.

Medians of `--runs` runs, with ratios against the baselines measured in the same run.
Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui.prompt.mentions.fuzzy import FuzzyMatcher
from tui.prompt.mentions.index import build_index

WORDS = (
    *("app", "agent", "api", "auth", "cache", "client", "config", "core", "data", "diff"),
    *("event", "handler", "index", "io", "log", "main", "model", "net", "parser", "plugin"),
    *("prompt", "render", "server", "session", "state", "store", "terminal", "test", "tool"),
    *("ui", "util", "view", "widget", "worker"),
)
EXTENSIONS = (".py", ".py", ".py", ".md", ".json", ".ts", ".tsx", ".css", ".txt", ".toml")
QUERIES = ("widget", "srcapppy", "readme", "tstermpy", "zzq")


def make_tree(root: Path, files: int, *, seed: int = 19) -> int:
    """Create `files` mentionable files under `root` (and the ignored extras); returns how
    many directories hold them. Deterministic for a seed."""
    rng = random.Random(seed)
    directories: list[Path] = []
    made = 0
    while made < files:
        depth = rng.randint(1, 5)
        parts = [rng.choice(("src", "lib", "tests", "docs", "packages"))]
        parts += [f"{rng.choice(WORDS)}_{rng.randint(0, 40)}" for _ in range(depth - 1)]
        directory = root.joinpath(*parts)
        directory.mkdir(parents=True, exist_ok=True)
        directories.append(directory)
        for _ in range(min(rng.randint(5, 40), files - made)):
            stem = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}{rng.randint(0, 999)}"
            _touch(directory / (stem + rng.choice(EXTENSIONS)))
            made += 1
    (root / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    for name, count in (("build", 1000), ("node_modules/pkg", 2000), (".venv/lib", 1000)):
        extra = root / name
        extra.mkdir(parents=True, exist_ok=True)
        for number in range(count):
            _touch(extra / f"file{number}.js")
    (root / ".venv" / "pyvenv.cfg").touch()
    (root / ".git" / "objects").mkdir(parents=True, exist_ok=True)
    for number in range(500):
        _touch(root / ".git" / "objects" / f"obj{number}")
        _touch(root / "src" / f"run{number}.log")
    return len(set(directories))


def _touch(path: Path) -> None:
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def median_ms(action: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def walk_names(root: Path) -> int:
    return sum(len(dirs) + len(names) for _, dirs, names in os.walk(root))


def naive_filter(paths: tuple[str, ...], query: str) -> int:
    """The baseline: a Python subsequence test per path, nothing ranked."""
    count = 0
    for path in paths:
        cursor = 0
        for char in query:
            cursor = path.find(char, cursor) + 1
            if not cursor:
                break
        else:
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=50_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mentions-") as tmp:
        root = Path(tmp)
        make_tree(root, args.files)
        walk_names(root)  # warm the page cache for both
        index = build_index(root)
        files = sum(not path.endswith("/") for path in index.paths)
        print(f"tree: {files} files and {len(index) - files} directories indexed")
        build = median_ms(lambda: build_index(root), args.runs)
        walk = median_ms(lambda: walk_names(root), args.runs)
        print(f"build:     {build:7.1f} ms   (os.walk {walk:6.1f} ms, ratio {build / walk:.2f})")

        firsts: list[float] = []
        keys: list[float] = []
        naive: list[float] = []
        for _ in range(args.runs):
            for query in QUERIES:
                matcher = FuzzyMatcher(index)
                for size in range(1, len(query) + 1):
                    start = time.perf_counter()
                    matcher.search(query[:size])
                    spent = (time.perf_counter() - start) * 1000
                    (firsts if size == 1 else keys).append(spent)
                    naive.append(
                        median_ms(lambda q=query[:size]: naive_filter(index.lowered, q), 1)
                    )
        key = statistics.median(keys)
        first = statistics.median(firsts)
        base = statistics.median(naive)
        print(
            f"keystroke: {key:7.2f} ms   first key {first:.2f} ms,"
            f" worst {max(firsts + keys):.2f} ms"
            f"   (naive filter {base:.2f} ms, ratio {key / base:.2f})"
        )
        setup = median_ms(lambda: FuzzyMatcher(index), args.runs)
        print(f"matcher:   {setup:7.1f} ms   to prepare a matcher for a new index")


if __name__ == "__main__":
    main()
