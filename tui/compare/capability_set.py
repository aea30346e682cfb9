"""What one compare side advertises: a comma list of capability words or presets, pure data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the SDK is imported after the first frame
    from acp.schema import ClientCapabilities

WORDS = ("terminal", "terminal_output", "fs.read", "fs.write", "auth.terminal")
"""`terminal_output` is the `_meta.terminal_output` display convention."""
PRESETS: dict[str, frozenset[str]] = {
    "all": frozenset(WORDS),
    "none": frozenset(),
    "no-terminal": frozenset(WORDS) - {"terminal", "terminal_output"},
    "read-only-fs": frozenset(WORDS) - {"fs.write"},
}
MIN_SIDES = 2
MAX_SIDES = 4


class SpecError(ValueError):
    """A side or agent list that cannot be run; the message names what is valid."""


@dataclass(frozen=True)
class CapabilitySet:
    """The capability words a side advertises, and the spec it was written as (its label)."""

    words: frozenset[str]
    label: str

    @property
    def terminal(self) -> bool:
        return "terminal" in self.words

    def has(self, word: str) -> bool:
        return word in self.words

    def client_capabilities(self) -> ClientCapabilities:
        """The `clientCapabilities` of this side's `initialize`."""
        from acp.schema import AuthCapabilities, ClientCapabilities, FileSystemCapabilities

        return ClientCapabilities(
            fs=FileSystemCapabilities(
                read_text_file=self.has("fs.read"), write_text_file=self.has("fs.write")
            ),
            terminal=self.terminal,
            auth=AuthCapabilities(terminal=self.has("auth.terminal")),
            field_meta={"terminal_output": self.has("terminal_output")},
        )

    def summary(self) -> str:
        """Each word on or off, in WORDS order: `terminal ✓ fs.write ✗ …`."""
        return "  ".join(f"{word} {'✓' if word in self.words else '✗'}" for word in WORDS)


def valid_words() -> str:
    return f"capabilities {', '.join(WORDS)}; presets {', '.join(PRESETS)}"


def parse_side(spec: str) -> CapabilitySet:
    """`terminal,fs.read` or a preset such as `no-terminal`; items are united, so
    `no-terminal,terminal_output` is every capability but `terminal`."""
    items = [item.strip() for item in spec.split(",")]
    if not any(items):
        raise SpecError(f"--side {spec!r} is empty; give a comma list of {valid_words()}")
    words: set[str] = set()
    for item in items:
        if item in PRESETS:
            words |= PRESETS[item]
        elif item in WORDS:
            words.add(item)
        else:
            raise SpecError(f"--side {spec!r}: unknown {item!r}; valid: {valid_words()}")
    return CapabilitySet(frozenset(words), spec.strip())


@dataclass(frozen=True)
class SidePlan:
    """One side to run: its agent (a command line or registry id) and what it advertises."""

    agent: str
    capabilities: CapabilitySet


def plan_sides(agents: list[str], sides: list[str]) -> list[SidePlan]:
    """`--agent` once for every side, or once per side in the same order."""
    if not MIN_SIDES <= len(sides) <= MAX_SIDES:
        raise SpecError(f"compare runs {MIN_SIDES} to {MAX_SIDES} sides; got {len(sides)} --side")
    if not agents:
        raise SpecError("--agent is required (once for all sides, or once per side)")
    if len(agents) == 1:
        agents = agents * len(sides)
    elif len(agents) != len(sides):
        raise SpecError(
            f"--agent given {len(agents)} times for {len(sides)} sides: give it once for all "
            "sides, or once per side"
        )
    return [SidePlan(agent, parse_side(side)) for agent, side in zip(agents, sides, strict=True)]
