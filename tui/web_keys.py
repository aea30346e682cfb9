"""Keys a browser keeps for itself, and what dsh-tui binds instead when it runs in a page.

Chromium never hands a page the shortcuts it reserves for its tabs and windows
(BrowserCommandController::IsReservedCommandOrKey: new and closed tabs and windows, the next
and previous tab, quitting), so in `dsh-tui serve` an action bound only to one of them would be
out of reach. The web build (serve sets DSH_TUI_WEB=1 for its apps) binds each such action to
an Alt key as well, which xterm.js passes on, and F1 lists both.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

WEB_ENV = "DSH_TUI_WEB"

# Kept key -> the key bound beside it in the web build.
BROWSER_KEEPS: dict[str, str] = {
    "ctrl+t": "alt+t",
    "ctrl+w": "alt+w",
    "ctrl+n": "alt+n",
    "ctrl+shift+t": "alt+shift+t",
    "ctrl+shift+w": "alt+shift+w",
    "ctrl+shift+n": "alt+shift+n",
    "ctrl+tab": "alt+pagedown",
    "ctrl+shift+tab": "alt+pageup",
    "ctrl+pagedown": "alt+pagedown",
    "ctrl+pageup": "alt+pageup",
    "ctrl+shift+q": "alt+shift+q",
}


def in_browser(env: Mapping[str, str] = os.environ) -> bool:
    return env.get(WEB_ENV) == "1"


def kept(keys: str) -> list[str]:
    """The keys of a binding's comma-separated list that the browser keeps."""
    return [key for key in (part.strip() for part in keys.split(",")) if key in BROWSER_KEEPS]


def alternative_keys(keys: str) -> str | None:
    """What to bind beside `keys` in a page, or None when none of them is kept."""
    own = [part.strip() for part in keys.split(",")]
    extra = [BROWSER_KEEPS[key] for key in kept(keys)]
    extra = [key for i, key in enumerate(extra) if key not in own and key not in extra[:i]]
    return ",".join(extra) or None
