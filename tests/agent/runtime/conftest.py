"""Makes `runtime_support` importable and provides its fixtures to this directory."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).parent))

from runtime_support import connect, workspace

__all__ = ["connect", "workspace"]
