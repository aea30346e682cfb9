"""The embedded offline answer: what dsh-agent says with no model configured."""

from __future__ import annotations

import re

OFFLINE_HELP = (
    "I'm **dsh-agent** in *offline mode*: no model is configured, so I answer locally "
    "and need no key and no network.\n\n"
    "To use a real model, set `DEEPSEEK_API_KEY`, or point `dsh-agent` at any "
    "OpenAI-compatible server with `--base-url` and `--model`."
)


def quote(text: str, limit: int = 200) -> str:
    """Quote the user's prompt as Markdown, shortened so a paste does not flood the reply."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return "\n".join("> " + line for line in short.splitlines() or [""])


def offline_reply_chunks(prompt: str) -> list[str]:
    """The reply, cut into word-sized chunks so clients exercise streaming."""
    reply = f"You said:\n\n{quote(prompt)}\n\n{OFFLINE_HELP}\n"
    return re.findall(r"\S+\s*|\s+", reply)
