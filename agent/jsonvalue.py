"""A JSON value type, so payloads persisted in the session log are typed, not `Any`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypeAlias

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"


def as_json(value: object) -> JsonValue:
    """Coerce `value` to plain JSON; anything JSON cannot hold becomes its `str()`.

    Tool arguments come from the model as JSON already, so this only guards against a caller
    handing in tuples or other mappings: what goes on the wire must serialize.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [as_json(item) for item in value]
    return str(value)


def as_object(value: Mapping[str, object]) -> JsonObject:
    """A mapping as a plain JSON object (values coerced by `as_json`).

    `rawInput` on the wire must be an object (strict clients reject a string or a list), so
    tool arguments are shown through this rather than `as_json`.
    """
    return {str(key): as_json(item) for key, item in value.items()}
