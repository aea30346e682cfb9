"""Message text for an ACP content block: text as sent, anything else a short readable
placeholder. Pure Python; the SDK's schema is imported when a block is read, not at import."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp.schema import (
        AudioContentBlock,
        EmbeddedResourceContentBlock,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
    )

    ContentBlock = (
        TextContentBlock
        | ImageContentBlock
        | AudioContentBlock
        | ResourceContentBlock
        | EmbeddedResourceContentBlock
    )


def block_text(block: ContentBlock) -> str:
    """Message text for a content block; non-text blocks get a short readable placeholder."""
    from acp.schema import (
        AudioContentBlock,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
    )

    if isinstance(block, TextContentBlock):
        return block.text
    if isinstance(block, ImageContentBlock):
        return f"[image {block.mime_type}, {len(block.data) * 3 // 4} bytes]"
    if isinstance(block, AudioContentBlock):
        return f"[audio {block.mime_type}]"
    if isinstance(block, ResourceContentBlock):
        return f"[{block.name}]({block.uri})"
    return f"[resource {block.resource.uri}]"


def standalone(block: ContentBlock) -> bool:
    """Whether a block stands apart in a message (an image, a link): any block but text."""
    return getattr(block, "type", "text") != "text"
