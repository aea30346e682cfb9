"""The live ACP registry: fetched with a timeout, kept in the user's cache once it arrives.

Offline, nothing changes: the last fetched copy (or the bundled snapshot) stays in use.
"""

from __future__ import annotations

import datetime
import json
import urllib.error
import urllib.request
from pathlib import Path

from tui.catalogue.registry import Registry, RegistryError, bundled, parse_registry

LIVE_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
FETCH_TIMEOUT_S = 10.0
MAX_BYTES = 8 * 1024 * 1024
CACHE_FILE = "registry.json"


class FetchFailed(Exception):
    """The live registry could not be fetched or read; the message says why."""


def fetch_json(url: str, timeout: float = FETCH_TIMEOUT_S) -> object:
    """The JSON at `url`. Raises FetchFailed (offline, a timeout, an HTTP error, bad JSON)."""
    request = urllib.request.Request(url, headers={"User-Agent": "dsh-tui"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(MAX_BYTES + 1)
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise FetchFailed(f"could not fetch {url}: {reason}") from error
    if len(body) > MAX_BYTES:
        raise FetchFailed(f"{url}: larger than {MAX_BYTES} bytes")
    try:
        return json.loads(body)
    except ValueError as error:
        raise FetchFailed(f"{url}: not JSON: {error}") from error


def refresh(cache_dir: Path, url: str = LIVE_URL, timeout: float = FETCH_TIMEOUT_S) -> Registry:
    """Fetch the live registry and keep it in `cache_dir`. Raises FetchFailed."""
    data = fetch_json(url, timeout)
    today = datetime.date.today().isoformat()
    try:
        registry = parse_registry(data, today, url)
    except RegistryError as error:
        raise FetchFailed(f"{url}: {error}") from error
    assert isinstance(data, dict)
    data["snapshot"] = {"date": today, "source": url}
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / CACHE_FILE
    partial = target.with_suffix(".partial")
    partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
    partial.replace(target)
    return registry


def current(cache_dir: Path) -> Registry:
    """The last fetched registry, or the bundled snapshot when none was fetched (or it broke)."""
    try:
        return parse_registry(json.loads((cache_dir / CACHE_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return bundled()
