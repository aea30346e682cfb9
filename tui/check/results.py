"""One line of the report: a check, its status and the evidence, cleaned for the terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tui.sanitize import clean_line

Status = Literal["pass", "fail", "skipped"]
EVIDENCE_CHARS = 160


def evidence(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """Agent text as the report may show it: one line, no escape sequence, trimmed."""
    line = clean_line(" ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True)
class Result:
    check: str
    status: Status
    evidence: str = ""

    @classmethod
    def passed(cls, check: str, said: str = "") -> Result:
        return cls(check, "pass", evidence(said))

    @classmethod
    def failed(cls, check: str, said: str) -> Result:
        return cls(check, "fail", evidence(said))

    @classmethod
    def skipped(cls, check: str, said: str) -> Result:
        return cls(check, "skipped", evidence(said))
