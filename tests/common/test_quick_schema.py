"""The SDK's schema imported at its quickest still validates and serialises the same."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
{prelude}
import acp.schema as s
from pydantic import BaseModel
from pydantic._internal import _fields
class Later(BaseModel):
    x: int = 0
update = s.ToolCallUpdate.model_validate(
    {{"toolCallId": "c1", "status": "completed", "unknownField": 1, "_meta": {{"x": 1}}}}
)
print(json.dumps({{
    "dumped": update.model_dump(by_alias=True, exclude_none=True),
    "fields": sorted(s.ToolCallUpdate.model_fields),
    "description": s.ToolCallUpdate.model_fields["status"].description,
    "restored": _fields.extract_docstrings_from_cls.__name__,
    "deferred": bool(s.SessionNotification.model_config.get("defer_build")),
    "later_deferred": bool(Later.model_config.get("defer_build")),
}}))
"""


def probe(prelude: str) -> dict[str, object]:
    """The probe's findings in a fresh interpreter: each import happens once per process."""
    code = PROBE.format(prelude=prelude)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_models_behave_the_same_without_field_descriptions() -> None:
    plain = probe("")
    quick = probe("from dsh_common.quick_schema import import_acp_schema; import_acp_schema()")
    assert quick["dumped"] == plain["dumped"]
    assert quick["fields"] == plain["fields"]
    assert plain["description"]  # the docstring the quick import skips
    assert quick["description"] is None
    # Models defined after it get their docstrings again, and are built at once again.
    assert quick["restored"] == "extract_docstrings_from_cls"
    assert quick["deferred"] and not plain["deferred"]
    assert not quick["later_deferred"]
