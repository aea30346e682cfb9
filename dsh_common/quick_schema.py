"""Import the ACP SDK's schema without pydantic reading its field docstrings.

`acp.schema` sets `use_attribute_docstrings` on its models, so pydantic parses the source of
every class (about 280) to turn attribute docstrings into field descriptions: that is most of
the module's import time, the largest part of both processes' start-up. Neither side reads
those descriptions (they matter only for JSON Schema output), so each entry point imports the
schema once with the extraction skipped, and restores it at once for any later model.
"""

from __future__ import annotations

import sys

HOOK = "extract_docstrings_from_cls"  # what pydantic 2 calls for each model's field docstrings


def import_acp_schema() -> None:
    """Import `acp.schema` now, without field docstrings; a no-op once it is imported, and a
    plain import on a pydantic that no longer has the hook."""
    if "acp.schema" in sys.modules:
        return
    from pydantic._internal import _fields

    extract = getattr(_fields, HOOK, None)
    if extract is None:
        import acp.schema

        return
    setattr(_fields, HOOK, _no_docstrings)
    try:
        import acp.schema  # noqa: F401
    finally:
        setattr(_fields, HOOK, extract)


def _no_docstrings(cls: type, use_inspect: bool = False) -> dict[str, str]:
    return {}
