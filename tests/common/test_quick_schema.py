"""The SDK's schema imported at its quickest still validates and serialises the same."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
{prelude}
import acp.schema as s
from pydantic._internal import _fields
update = s.ToolCallUpdate.model_validate(
    {{"toolCallId": "c1", "status": "completed", "unknownField": 1, "_meta": {{"x": 1}}}}
)
print(json.dumps({{
    "dumped": update.model_dump(by_alias=True, exclude_none=True),
    "fields": sorted(s.ToolCallUpdate.model_fields),
    "description": s.ToolCallUpdate.model_fields["status"].description,
    "restored": _fields.extract_docstrings_from_cls.__name__,
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
    # Models defined after it get their docstrings again.
    assert quick["restored"] == "extract_docstrings_from_cls"
