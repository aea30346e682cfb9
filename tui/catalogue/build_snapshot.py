"""Rebuild the bundled registry snapshot from the `agentclientprotocol/registry` repository.

    python -m tui.catalogue.build_snapshot CHECKOUT   # a clone (or a bare git dir) of the repo
    python -m tui.catalogue.build_snapshot --http     # the published registry.json instead

A checkout's `*/agent.json` files are read (folders starting with `_` or `.` are not
published, as in the registry's own build), and the snapshot is dated by its last commit.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui.catalogue.live import LIVE_URL, fetch_json
from tui.catalogue.registry import SNAPSHOT_FILE, parse_registry

DEFAULT_OUT = Path(__file__).with_name(SNAPSHOT_FILE)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def _published(name: str) -> bool:
    folder = name.split("/")[0]
    return name.count("/") == 1 and name.endswith("/agent.json") and folder[:1] not in "._"


def read_checkout(repo: Path) -> dict[str, Any]:
    """The registry built from a checkout's agent folders, dated by its HEAD commit."""
    files = sorted(str(p.relative_to(repo)) for p in repo.glob("*/agent.json"))
    texts: list[str]
    try:
        head = _git(repo, "log", "-1", "--format=%H %cI").split()
    except (OSError, subprocess.CalledProcessError):
        head = []
    if files:
        texts = [(repo / name).read_text(encoding="utf-8") for name in files if _published(name)]
    elif head:  # a bare repository: read the files from the commit
        names = [n for n in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").split() if n]
        texts = [_git(repo, "show", f"HEAD:{name}") for name in names if _published(name)]
    else:
        raise SystemExit(f"{repo}: no */agent.json files and not a git repository")
    agents = [json.loads(text) for text in texts]
    if head:
        date, source = head[1][:10], f"github.com/agentclientprotocol/registry@{head[0][:12]}"
    else:
        date, source = datetime.date.today().isoformat(), str(repo)
    return {"version": "1.0.0", "agents": agents, "snapshot": {"date": date, "source": source}}


def read_http(url: str) -> dict[str, Any]:
    data = fetch_json(url)
    if not isinstance(data, dict):
        raise SystemExit(f"{url}: not a registry")
    data["snapshot"] = {"date": datetime.date.today().isoformat(), "source": url}
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tui.catalogue.build_snapshot")
    parser.add_argument("checkout", nargs="?", type=Path, help="the registry repository")
    parser.add_argument("--http", nargs="?", const=LIVE_URL, help="fetch registry.json instead")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if (args.checkout is None) == (args.http is None):
        parser.error("give a checkout or --http")
    data = read_checkout(args.checkout) if args.checkout else read_http(args.http)
    registry = parse_registry(data)  # refuses what dsh-tui could not read back
    data["agents"] = sorted(data["agents"], key=lambda agent: str(agent.get("id")))
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(registry.agents)} agents, {registry.date} ({registry.source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
