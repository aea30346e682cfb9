"""An MCP tool result as what the model reads and what the card shows.

The card's blocks are kept as JSON in the result's `meta`, so the session log holds them and
`session/load` draws the same card, never asking the server again.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.jsonvalue import JsonObject, JsonValue, as_json
from agent.views import ContentBlock, ImageBlock, ResourceBlock, TextBlock

if TYPE_CHECKING:  # the SDK is imported only by sessions that have MCP servers
    from mcp import types


def _size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _structured_text(structured: object) -> str:
    return "```json\n" + json.dumps(structured, indent=2, ensure_ascii=False) + "\n```"


def _says_the_same(texts: Sequence[str], structured: object) -> bool:
    """Whether the text content already is the structured value (servers often send both)."""
    for text in texts:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        if parsed == structured or (
            isinstance(structured, dict)
            and list(structured) == ["result"]
            and parsed == structured["result"]
        ):
            return True
    return False


def result_parts(result: types.CallToolResult) -> tuple[str, JsonObject]:
    """(the model's text, the card's meta) of one result."""
    from mcp import types

    blocks: list[JsonValue] = []
    model: list[str] = []
    texts: list[str] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            blocks.append({"type": "text", "text": item.text})
            model.append(item.text)
            texts.append(item.text)
        elif isinstance(item, types.ImageContent | types.AudioContent):
            kind = "image" if isinstance(item, types.ImageContent) else "audio"
            if kind == "image":
                blocks.append({"type": "image", "data": item.data, "mimeType": item.mime_type})
            else:
                blocks.append({"type": "text", "text": f"[audio: {item.mime_type}]"})
            model.append(f"[{kind}: {item.mime_type}, {_size(item.data)} bytes]")
        elif isinstance(item, types.EmbeddedResource):
            resource = item.resource
            uri = str(resource.uri)
            if isinstance(resource, types.TextResourceContents):
                blocks.append(
                    {
                        "type": "resource",
                        "uri": uri,
                        "text": resource.text,
                        "mimeType": resource.mime_type,
                    }
                )
                model.append(f"[resource {uri}]\n{resource.text}")
            else:
                blocks.append({"type": "resource", "uri": uri, "mimeType": resource.mime_type})
                model.append(f"[resource {uri}: {_size(resource.blob)} bytes of binary data]")
        elif isinstance(item, types.ResourceLink):
            uri = str(item.uri)
            blocks.append({"type": "resource", "uri": uri, "mimeType": item.mime_type})
            model.append(f"[resource link {uri}]")
    structured = result.structured_content
    if structured is not None and not _says_the_same(texts, structured):
        text = _structured_text(as_json(structured))
        blocks.append({"type": "text", "text": text})
        model.append(text)
    output = "\n\n".join(model) or "(no content)"
    return output, {"blocks": blocks}


def card_blocks(meta: JsonValue) -> tuple[ContentBlock, ...] | None:
    """The blocks `result_parts` stored, read back; None when `meta` holds none."""
    if not isinstance(meta, dict) or not isinstance(meta.get("blocks"), list):
        return None
    shown: list[ContentBlock] = []
    for block in meta["blocks"]:  # type: ignore[union-attr]
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        mime = block.get("mimeType")
        mime = mime if isinstance(mime, str) else None
        if kind == "text" and isinstance(block.get("text"), str):
            shown.append(TextBlock(str(block["text"])))
        elif kind == "image" and isinstance(block.get("data"), str) and mime:
            shown.append(ImageBlock(str(block["data"]), mime))
        elif kind == "resource" and isinstance(block.get("uri"), str):
            text = block.get("text")
            shown.append(
                ResourceBlock(str(block["uri"]), text if isinstance(text, str) else None, mime)
            )
    return tuple(shown)


__all__ = ["card_blocks", "result_parts"]
