"""The prompts that wait to be sent, shown above the prompt so a queued prompt is never a
surprise: each one can still be taken back (Up on an empty prompt) or cancelled (Esc)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

MAX_SHOWN = 3


def queued_content(prompts: list[str]) -> Content:
    parts: list[tuple[str, str] | str] = []
    for index, prompt in enumerate(prompts[:MAX_SHOWN]):
        first_line, _, rest = prompt.partition("\n")
        parts.append(("\n" if index else "") + "⧗ queued  ")
        parts.append((first_line + (" …" if rest else ""), "$text-muted"))
    if len(prompts) > MAX_SHOWN:
        parts.append((f"\n… {len(prompts) - MAX_SHOWN} more queued", "$text-muted"))
    parts.append(("\n↑ takes the last one back · esc cancels them", "$text-muted italic"))
    return Content.assemble(*parts)


class QueuedPrompts(Static):
    DEFAULT_CSS = """
    QueuedPrompts { height: auto; padding: 0 2; display: none; color: $warning; }
    QueuedPrompts.-visible { display: block; }
    """

    def show(self, prompts: list[str]) -> None:
        self.set_class(bool(prompts), "-visible")
        self.update(queued_content(prompts) if prompts else "")
