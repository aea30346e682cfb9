"""A prompt and its `@` mentions as `session/prompt` content blocks.

The text block comes first, as typed (mentions included, so the model sees where each file
was meant). Then one block per mentioned path, in order, each path once:

- an embedded `resource` with the file's text when the agent advertised
  `promptCapabilities.embeddedContext`;
- else, and for a directory, a file over `MAX_EMBEDDED_BYTES` or one that is not UTF-8 text,
  a `resource_link` (URI, name, size).

Files are read through `ConfinedFs`, the code that serves the agent's `fs/read_text_file`, so
a mention can attach nothing the agent could not read there: a path outside the workspace (by
`..` or a symlink) is refused. What was not attached as asked comes back as a notice for the
user, never silently.
"""

from __future__ import annotations

import mimetypes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from acp.schema import (
    EmbeddedResourceContentBlock,
    InitializeResponse,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from dsh_common.attachments import AttachedFile, line_count, shown_prompt, uri_label
from tui.fs import ConfinedFs, FsError
from tui.prompt.mentions.parse import find_mentions

MAX_EMBEDDED_BYTES = 256 * 1024
# A file name that is not UTF-8 comes from the OS with surrogate escapes (U+DC80-U+DCFF), which
# JSON cannot carry as text: such a name is never sent, and the prompt's text says U+FFFD.
_SURROGATES = re.compile("[\ud800-\udfff]")


def wire_text(text: str) -> str:
    """`text` as valid Unicode for the wire: each lone surrogate becomes U+FFFD."""
    return _SURROGATES.sub("\ufffd", text)


def shown_name(name: str) -> str:
    """A name for a notice: its undecodable bytes shown as `\\xff`."""
    raw = name.encode("utf-8", "surrogateescape") if _SURROGATES.search(name) else None
    if raw is None:
        return name
    try:
        return raw.decode("utf-8", "backslashreplace")
    except UnicodeDecodeError:  # pragma: no cover - backslashreplace never raises
        return wire_text(name)


"""A larger file is sent as a link: the agent can still read it, in parts, with its tools."""

PromptBlock: TypeAlias = TextContentBlock | EmbeddedResourceContentBlock | ResourceContentBlock


@dataclass(frozen=True, slots=True)
class PreparedPrompt:
    """What to send, what to tell the user, and how the transcript shows the prompt.

    `shown` is the user message as the transcript shows it; dsh-agent replays the same text
    on `session/load` (`dsh_common.attachments.shown_prompt`).
    """

    blocks: list[PromptBlock]
    notices: list[str] = field(default_factory=list)
    attached: list[AttachedFile] = field(default_factory=list)
    shown: str = ""


def embeds_context(init: InitializeResponse | None) -> bool:
    """Whether the agent's `initialize` answer advertised `promptCapabilities.embeddedContext`
    (the spec's default is false)."""
    caps = init.agent_capabilities if init is not None else None
    prompt = caps.prompt_capabilities if caps is not None else None
    return bool(prompt is not None and prompt.embedded_context)


def build_prompt(
    text: str,
    workspace: str | os.PathLike[str],
    fs: ConfinedFs,
    *,
    embedded: bool,
    max_bytes: int = MAX_EMBEDDED_BYTES,
) -> PreparedPrompt:
    """The content blocks for `text` (blocking: it reads the mentioned files)."""
    root = os.path.normpath(os.fspath(workspace))
    blocks: list[PromptBlock] = [TextContentBlock(type="text", text=wire_text(text))]
    notices: list[str] = []
    attached: list[AttachedFile] = []
    seen: set[str] = set()
    for mention in find_mentions(text):
        path = os.path.normpath(os.path.join(root, mention.path))
        if path in seen:
            continue
        seen.add(path)
        block, notice = _attachment(mention.path, path, root, fs, embedded, max_bytes)
        if notice:
            notices.append(notice)
        if block is None:
            continue
        blocks.append(block)
        if isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            assert isinstance(resource, TextResourceContents)
            attached.append(AttachedFile(uri_label(resource.uri, root), line_count(resource.text)))
        else:
            attached.append(AttachedFile(uri_label(block.uri, root), None))
    return PreparedPrompt(blocks, notices, attached, shown_prompt(wire_text(text), attached))


def _attachment(
    typed: str, path: str, root: str, fs: ConfinedFs, embedded: bool, max_bytes: int
) -> tuple[PromptBlock | None, str | None]:
    """One mention's block (None: nothing attached) and a notice when it is not as asked."""
    if _SURROGATES.search(path):
        return None, f"@{shown_name(typed)}: the file name is not UTF-8: not attached"
    try:
        real = fs.resolve(path)
    except FsError:
        return None, f"@{typed} is outside the workspace: not attached"
    try:
        info = real.stat()
    except OSError:
        return None, f"@{typed}: no such file: not attached"
    uri = Path(path).as_uri()
    name = uri_label(uri, root)
    if real.is_dir():
        return _link(uri + "/", name + "/", None), None
    mime = mimetypes.guess_type(path)[0]
    if not embedded:
        return _link(uri, name, info.st_size, mime), None
    if info.st_size > max_bytes:
        notice = f"{name} is {_kb(info.st_size)}, over the {_kb(max_bytes)} cap: sent as a link"
        return _link(uri, name, info.st_size, mime), notice
    try:
        text = fs.read_text(path)
    except FsError as error:
        return None, f"@{typed}: {error}: not attached"
    if "\x00" in text or "\ufffd" in text:
        notice = f"{name} is not UTF-8 text: sent as a link"
        return _link(uri, name, info.st_size, mime), notice
    if len(text.encode("utf-8")) > max_bytes:  # it grew since the stat
        notice = f"{name} is over the {_kb(max_bytes)} cap: sent as a link"
        return _link(uri, name, info.st_size, mime), notice
    resource = TextResourceContents(uri=uri, mime_type=mime or "text/plain", text=text)
    return EmbeddedResourceContentBlock(type="resource", resource=resource), None


def _link(uri: str, name: str, size: int | None, mime: str | None = None) -> ResourceContentBlock:
    return ResourceContentBlock(type="resource_link", uri=uri, name=name, size=size, mime_type=mime)


def _kb(size: int) -> str:
    return f"{(size + 1023) // 1024} KB"


__all__ = ["MAX_EMBEDDED_BYTES", "PreparedPrompt", "PromptBlock", "build_prompt", "embeds_context"]
