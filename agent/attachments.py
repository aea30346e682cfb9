"""Files attached to a prompt: read from its content blocks, logged, and put into the context.

A client that knows `promptCapabilities.embeddedContext` sends a mentioned file as an
embedded `resource` with its text; otherwise, or for a file too large to embed, as a
`resource_link`. Both arrive here as `Attachment`s, are logged with the prompt (the embedded
text too, so a loaded session gives the model exactly what it saw live), and reach the model
as sections after the prompt text:

    <file path="src/app.py" lines="120">
    ...the text...
    </file>

    [linked file: file:///work/big.log]

`lines` lets `split_context` find where the prompt ends without trusting anything in a file's
text, so the offline model can tell the prompt from its attachments.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import (
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from agent.jsonvalue import JsonValue
from dsh_common.attachments import AttachedFile, line_count, uri_label


class UnsupportedContent(ValueError):
    """A prompt block dsh-agent cannot give the model (an image, audio)."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attached file; `text` is None for a link (or an embedded binary resource)."""

    uri: str
    label: str  # as the transcript and the model's context name it
    text: str | None = None
    mime: str | None = None
    size: int | None = None

    @property
    def shown(self) -> AttachedFile:
        return AttachedFile(self.label, None if self.text is None else line_count(self.text))

    def to_json(self) -> dict[str, JsonValue]:
        record: dict[str, JsonValue] = {"uri": self.uri, "label": self.label}
        for key, value in (("text", self.text), ("mime", self.mime), ("size", self.size)):
            if value is not None:
                record[key] = value
        return record

    @classmethod
    def from_json(cls, record: Any) -> Attachment | None:
        """One logged attachment, or None when the record is not one (a damaged log)."""
        if not isinstance(record, dict):
            return None
        uri, label = record.get("uri"), record.get("label")
        text, mime, size = record.get("text"), record.get("mime"), record.get("size")
        if not isinstance(uri, str) or not isinstance(label, str):
            return None
        return cls(
            uri,
            label,
            text if isinstance(text, str) else None,
            mime if isinstance(mime, str) else None,
            size if isinstance(size, int) and not isinstance(size, bool) else None,
        )


def prompt_parts(blocks: Sequence[Any], cwd: str) -> tuple[str, list[Attachment]]:
    """The prompt's text (its text blocks joined) and its attached files, in order.

    Images and audio are refused rather than dropped, since the model would otherwise answer
    without them.
    """
    texts: list[str] = []
    attachments: list[Attachment] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            attachments.append(
                Attachment(
                    block.uri, uri_label(block.uri, cwd), mime=block.mime_type, size=block.size
                )
            )
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            label = uri_label(resource.uri, cwd)
            if isinstance(resource, TextResourceContents):
                attachments.append(
                    Attachment(resource.uri, label, resource.text, resource.mime_type)
                )
            else:  # a blob: the model gets a link, not base64
                attachments.append(Attachment(resource.uri, label, mime=resource.mime_type))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise UnsupportedContent(f"dsh-agent does not accept {kind} content in prompts")
    return "".join(texts), attachments


def attachments_to_json(attachments: Iterable[Attachment]) -> JsonValue:
    """The `attachments` field of a logged user message (None when there are none)."""
    records: list[JsonValue] = [attachment.to_json() for attachment in attachments]
    return records or None


def attachments_from_json(value: JsonValue) -> list[Attachment]:
    if not isinstance(value, list):
        return []
    return [a for a in (Attachment.from_json(record) for record in value) if a is not None]


def context_section(attachment: Attachment) -> str:
    """What the model reads for one attachment."""
    if attachment.text is None:
        return f"[linked file: {attachment.uri}]"
    body = attachment.text
    if body and not body.endswith("\n"):
        body += "\n"
    path = html.escape(attachment.label, quote=True)
    return f'<file path="{path}" lines="{line_count(body)}">\n{body}</file>'


def user_content(text: str, attachments: Sequence[Attachment]) -> str:
    """The user message's content: the prompt, then one section per attachment."""
    if not attachments:
        return text
    return "\n\n".join([text, *(context_section(a) for a in attachments)])


_SECTION_START = re.compile(r"\n\n(?=<file path=\"|\[linked file: )")
_FILE_HEAD = re.compile(r'<file path="([^"]*)" lines="(\d+)">\n')
_LINK = re.compile(r"\[linked file: ([^\]\n]*)\]")


def split_context(content: str) -> tuple[str, list[tuple[str, int | None]]]:
    """Undo `user_content`: the prompt and, per attachment, (path or URI, lines or None).

    The first place after which the rest parses completely as sections is where the prompt
    ends; a prompt that merely quotes a section is left whole unless everything after it is
    one, which `user_content` never produces by accident.
    """
    for start in _SECTION_START.finditer(content):
        sections = _sections(content, start.end())
        if sections is not None:
            return content[: start.start()], sections
    return content, []


def _sections(content: str, at: int) -> list[tuple[str, int | None]] | None:
    found: list[tuple[str, int | None]] = []
    while True:
        link = _LINK.match(content, at)
        if link is not None:
            found.append((link.group(1), None))
            at = link.end()
        else:
            head = _FILE_HEAD.match(content, at)
            if head is None:
                return None
            lines = int(head.group(2))
            at = head.end()
            for _ in range(lines):
                newline = content.find("\n", at)
                if newline < 0:
                    return None
                at = newline + 1
            if not content.startswith("</file>", at):
                return None
            found.append((html.unescape(head.group(1)), lines))
            at += len("</file>")
        if at == len(content):
            return found
        if not content.startswith("\n\n", at):
            return None
        at += 2


__all__ = [
    "Attachment",
    "UnsupportedContent",
    "attachments_from_json",
    "attachments_to_json",
    "context_section",
    "prompt_parts",
    "split_context",
    "user_content",
]
