"""Import the ACP SDK's schema without pydantic reading its field docstrings, and with each
model's validator built on its first use rather than at import.

`acp.schema` sets `use_attribute_docstrings` on its models, so pydantic parses the source of
every class (about 280) to turn attribute docstrings into field descriptions: that is most of
the module's import time, the largest part of both processes' start-up. Neither side reads
those descriptions (they matter only for JSON Schema output), so each entry point imports the
schema once with the extraction skipped, and restores it at once for any later model.

Most of what is left is building each model's validator and serializer, and a session uses a
few dozen of the 280 models: the import sets pydantic's own `defer_build` on them, so each is
built the first time it validates or serialises (a few milliseconds for the first update). The
client imports the SDK between its first frame and the handshake, so this is start-up time a
user waits for.
"""

from __future__ import annotations

import sys
from typing import Any

HOOK = "extract_docstrings_from_cls"  # what pydantic 2 calls for each model's field docstrings


def import_acp_schema() -> None:
    """Import `acp.schema` now, without field docstrings and with deferred builds; a no-op
    once it is imported, and a plain import on a pydantic that no longer has the hooks."""
    if "acp.schema" in sys.modules:
        return
    from pydantic._internal import _config, _fields

    extract = getattr(_fields, HOOK, None)
    wrapper = getattr(_config, "ConfigWrapper", None)
    original = None if wrapper is None else vars(wrapper).get("for_model")  # the classmethod
    for_model = getattr(wrapper, "for_model", None)
    if extract is None or wrapper is None or original is None or for_model is None:
        import acp.schema

        return

    def deferred(bases: Any, namespace: Any, kwargs: Any) -> Any:
        config = for_model(bases, namespace, kwargs)
        config.config_dict["defer_build"] = True
        return config

    setattr(_fields, HOOK, _no_docstrings)
    wrapper.for_model = deferred
    try:
        import acp.schema  # noqa: F401
    finally:
        setattr(_fields, HOOK, extract)
        wrapper.for_model = original


def _no_docstrings(cls: type, use_inspect: bool = False) -> dict[str, str]:
    return {}
