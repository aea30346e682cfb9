"""The conversation model: ordered entries, messages merged by kind, tool calls upserted by id.

Pure Python, no Textual: every ACP update becomes a list of small change records that the
view applies to exactly the widget concerned. Nothing here knows whether an update is
live or replayed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tui.content_blocks import block_text as block_text  # re-exported: widgets show blocks
from tui.content_blocks import standalone
from tui.sanitize import clean_line
from tui.terminal.meta import apply_terminal_meta
from tui.terminal.source import TerminalState

# The SDK's schema is imported where it is needed at run time (Conversation.apply),
# not here: the app's first frame builds a Conversation and must not wait for the SDK.
if TYPE_CHECKING:
    from acp.schema import (
        AvailableCommand,
        PermissionOption,
        PlanEntry,
        RequestPermissionResponse,
        SessionMode,
        SessionModeState,
        ToolCallLocation,
        ToolCallProgress,
        ToolCallStart,
        ToolCallUpdate,
        UsageUpdate,
    )

log = logging.getLogger(__name__)

Role = Literal["user", "agent", "thought"]


class MessageEntry:
    """A message's text, kept as the chunks it came in and joined when read.

    `text += chunk` copies the whole text per chunk, quadratic in a flood of small chunks. A
    list append is O(1), and the join happens once per read, which the transcript does only
    when it builds the widget.
    """

    __slots__ = ("_chunks", "block_last", "chars", "role")

    def __init__(self, role: Role, text: str = "") -> None:
        self.role: Role = role
        self._chunks: list[str] = [text] if text else []
        self.chars = len(text)
        # The last chunk was an image, a link or a resource: what follows starts a paragraph.
        self.block_last = False

    @property
    def text(self) -> str:
        if len(self._chunks) > 1:
            self._chunks = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    @text.setter
    def text(self, value: str) -> None:
        self._chunks = [value] if value else []
        self.chars = len(value)

    def append(self, text: str) -> None:
        if text:
            self._chunks.append(text)
            self.chars += len(text)

    def paragraph_break(self) -> str:
        """What to append so the next chunk starts a paragraph of its own (a Markdown
        paragraph needs a blank line: one newline would join the lines with a space)."""
        tail = "".join(self._chunks[-2:])[-2:]
        if not tail or tail == "\n\n":
            return ""
        return "\n" if tail.endswith("\n") else "\n\n"

    def __repr__(self) -> str:
        return f"MessageEntry(role={self.role!r}, chars={self.chars})"


@dataclass(eq=False)
class ToolCallEntry:
    tool_call_id: str
    title: str = ""
    kind: str = "other"
    status: str = "pending"
    content: list[Any] = field(default_factory=list)
    locations: list[ToolCallLocation] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None
    terminal: TerminalState | None = None
    # The permission question about this call: None (never asked), "asked" (open), "allowed"
    # or "rejected". A call waiting for an answer is not running; a rejected one never ran.
    permission: Literal["asked", "allowed", "rejected"] | None = None
    # A command the user ran with `!` in a client terminal: no agent asked for it.
    by_user: bool = False
    # The agent said the command never started (`_meta` `dsh.not_run`: rejected, refused or
    # cancelled first), so a replayed card reads "not run" as the live one did.
    never_ran: bool = False
    # From a loaded session's history or a replay: the files on disk are today's, not the
    # ones the call saw, so its diffs are numbered only from what the wire carries.
    wire_only: bool = False
    # The stretch of the conversation it belongs to (`Conversation.period`): once that is
    # over, the card is history, and an update naming its id gets a new card instead.
    period: int = 0


@dataclass(eq=False)
class NoticeEntry:
    text: str
    level: Literal["info", "warning", "error"] = "info"


Entry = MessageEntry | ToolCallEntry | NoticeEntry


@dataclass(frozen=True)
class OfferedModels:
    """The models an agent offers in the unstable `models` field of session/new or load (the
    SDK drops it; tui/connection/client.py reads it off the wire). Ids are exactly as sent, since
    session/set_model sends them back; names are one safe line each."""

    current: str | None
    choices: tuple[tuple[str, str], ...]  # (model id, name)


@dataclass(frozen=True)
class EntryAdded:
    entry: Entry


@dataclass(frozen=True)
class TextAppended:
    entry: MessageEntry
    text: str


@dataclass(frozen=True)
class ToolCallChanged:
    entry: ToolCallEntry
    fields: frozenset[str]


@dataclass(frozen=True)
class TerminalOutput:
    entry: ToolCallEntry
    data: str


@dataclass(frozen=True)
class PlanChanged:
    """The agent's plan was replaced (`Conversation.plan`)."""


@dataclass(frozen=True)
class TitleChanged:
    """The session's title changed (`Conversation.title`)."""


@dataclass(frozen=True)
class UsageChanged:
    """The context window's use changed (`Conversation.usage`)."""


@dataclass(frozen=True)
class ModeChanged:
    """The current mode changed (`Conversation.mode_id`)."""


@dataclass(frozen=True)
class CommandsChanged:
    """The agent's slash commands were replaced (`Conversation.commands`)."""


@dataclass(frozen=True)
class SettingsChanged:
    """Config options or the current offered model changed: the model shown may differ."""


# The chrome around the transcript, one record per thing that changed: observers switch on
# the type, never on a string.
SessionChanged = (
    PlanChanged | TitleChanged | UsageChanged | ModeChanged | CommandsChanged | SettingsChanged
)
Change = EntryAdded | TextAppended | ToolCallChanged | TerminalOutput | SessionChanged

TOOL_FIELDS = ("title", "kind", "status", "content", "locations", "raw_input", "raw_output")


def select_choices(option: Any) -> list[tuple[str, str]]:
    """A select config option's (value, name) pairs, its groups flattened in order: options
    come either as a flat list or as groups that each hold a list."""
    return [
        (str(item.value), str(item.name))
        for choice in option.options
        for item in getattr(choice, "options", [choice])
    ]


class Conversation:
    """Everything one session has shown, in order, plus the session chrome."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.tool_calls: dict[str, ToolCallEntry] = {}
        self.plan: list[PlanEntry] = []
        self.title: str | None = None
        self.usage: UsageUpdate | None = None
        self.mode_id: str | None = None
        self.commands: list[AvailableCommand] = []
        self.config_options: list[Any] = []
        self.modes: list[SessionMode] = []
        self.offered_models: OfferedModels | None = None
        # The last entry of the last finished turn: text chunks no longer merge into it.
        self._closed: Entry | None = None
        self._user_shells = 0
        # True while updates are history (before a session opened, in a replay): the calls
        # they create are `wire_only`.
        self.wire_only = False
        # Each prompt turn is a period, and so is each stretch between turns (a load's
        # replay, updates out of turn): a call of a period that is over is never changed.
        self.period = 0
        # After a turn has ended and before the next prompt: each chunk the agent sends then
        # (a mode switch's message, say) stands alone, never glued to the one before.
        self._between_turns = False

    def start_session(
        self,
        modes: SessionModeState | None,
        config_options: list[Any],
        models: OfferedModels | None = None,
    ) -> None:
        """Modes, config options and offered models as the session/new (or load) response
        gave them."""
        self.modes = list(modes.available_modes) if modes else []
        self.mode_id = modes.current_mode_id if modes else None
        self.config_options = list(config_options)
        self.offered_models = models

    def model_chosen(self, model_id: str) -> list[Change]:
        """session/set_model succeeded: the offered model now current."""
        if self.offered_models is None:
            return []
        self.offered_models = OfferedModels(model_id, self.offered_models.choices)
        return [SettingsChanged()]

    @property
    def mode_name(self) -> str | None:
        for mode in self.modes:
            if mode.id == self.mode_id:
                return mode.name
        return self.mode_id

    def model_option(self) -> Any | None:
        """The config option that selects the model, by category, else by id."""
        for option in self.config_options:
            if getattr(option, "category", None) == "model" or getattr(option, "id", "") == "model":
                return option
        return None

    @property
    def model_name(self) -> str | None:
        """The current model's name: from the model config option when there is one (it is
        preferred), else from the offered models."""
        option = self.model_option()
        if option is None or getattr(option, "type", "") != "select":
            offered = self.offered_models
            if offered is None or offered.current is None:
                return None
            # Its name; a current model missing from the agent's own list is still a model:
            # its id, cleaned like any agent text.
            name = dict(offered.choices).get(offered.current)
            return name if name is not None else clean_line(offered.current)[:80] or None
        current = option.current_value
        return dict(select_choices(option)).get(current, str(current))

    def add(self, entry: Entry) -> list[Change]:
        self.entries.append(entry)
        return [EntryAdded(entry)]

    def end_turn(self) -> None:
        """The prompt turn is over: a chunk that arrives now (say, after a mode switch) is not
        part of its reply and starts a message of its own instead of merging into it. Its
        calls are history from now on."""
        self._closed = self.entries[-1] if self.entries else None
        self.period += 1
        self._between_turns = True

    def notice(
        self, text: str, level: Literal["info", "warning", "error"] = "info"
    ) -> list[Change]:
        return self.add(NoticeEntry(text, level))

    def add_prompt(self, text: str) -> list[Change]:
        """A prompt the user typed always opens its own block, even after another prompt,
        and starts a turn: what came before it is history."""
        self.period += 1
        self._between_turns = False
        return self.add(MessageEntry("user", text))

    def add_user_shell(self, command: str, terminal_id: str) -> tuple[ToolCallEntry, list[Change]]:
        """A `!` command the user runs in a client terminal: a terminal card of its own, with
        a client-side id (`user-shell-N`) no agent's call id is mistaken for."""
        from acp.schema import TerminalToolCallContent

        self._user_shells += 1
        entry = ToolCallEntry(
            f"user-shell-{self._user_shells}",
            title=f"! {command}",
            kind="execute",
            status="in_progress",
            content=[TerminalToolCallContent(type="terminal", terminal_id=terminal_id)],
            by_user=True,
            period=self.period,
        )
        self.tool_calls[entry.tool_call_id] = entry
        return entry, self.add(entry)

    def finish_user_shell(self, entry: ToolCallEntry, exit_code: int | None) -> list[Change]:
        """The `!` command exited: completed on exit 0, else failed (the pane says how)."""
        entry.status = "completed" if exit_code == 0 else "failed"
        return [ToolCallChanged(entry, frozenset({"status"}))]

    def unsupported(self, what: str) -> list[Change]:
        """Something the client cannot show: a small note instead of an error."""
        return self.notice(f"unsupported {what} (not shown)", "warning")

    def append_text(self, role: Role, text: str, standalone: bool = False) -> list[Change]:
        """Chunks merge into the current block of their kind; another kind starts a new block.

        A `standalone` chunk (an image, a link, a resource: not text) is a paragraph of its
        own, so `[image]`, a link and the words around them never run into one line."""
        last = self.entries[-1] if self.entries else None
        if isinstance(last, MessageEntry) and last.role == role and last is not self._closed:
            if standalone or last.block_last:
                text = last.paragraph_break() + text
            last.block_last = standalone
            last.append(text)
            return [TextAppended(last, text)]
        entry = MessageEntry(role, text)
        entry.block_last = standalone
        if self._between_turns:
            self._closed = entry
        return self.add(entry)

    def apply(self, update: Any) -> list[Change]:
        """Apply one `session/update`; unknown kinds become a note instead of an error."""
        from acp.schema import (
            AgentMessageChunk,
            AgentPlanUpdate,
            AgentThoughtChunk,
            AvailableCommandsUpdate,
            ConfigOptionUpdate,
            CurrentModeUpdate,
            SessionInfoUpdate,
            ToolCallProgress,
            ToolCallStart,
            UsageUpdate,
            UserMessageChunk,
        )

        match update:
            case UserMessageChunk(content=block):
                return self.append_text("user", block_text(block), standalone(block))
            case AgentMessageChunk(content=block):
                return self.append_text("agent", block_text(block), standalone(block))
            case AgentThoughtChunk(content=block):
                return self.append_text("thought", block_text(block), standalone(block))
            case ToolCallStart() | ToolCallProgress():
                return self.upsert_tool_call(update)
            case AgentPlanUpdate(entries=entries):
                self.plan = list(entries)
                return [PlanChanged()]
            case SessionInfoUpdate():
                if "title" in update.model_fields_set:
                    self.title = update.title
                return [TitleChanged()]
            case UsageUpdate():
                self.usage = update
                return [UsageChanged()]
            case CurrentModeUpdate(current_mode_id=mode_id):
                self.mode_id = mode_id
                return [ModeChanged()]
            case AvailableCommandsUpdate(available_commands=commands):
                self.commands = list(commands)
                return [CommandsChanged()]
            case ConfigOptionUpdate(config_options=options):
                self.config_options = list(options)
                return [SettingsChanged()]
        kind = getattr(update, "session_update", type(update).__name__)
        log.warning("unsupported session update: %r", kind)
        return self.unsupported(f"update kind {kind!r}")

    def settle_unfinished(
        self, status: Literal["failed", "cancelled", "unknown", "unfinished"] = "failed"
    ) -> list[Change]:
        """Calls still pending or running that will get no more updates stop spinning.

        "failed" when the agent is gone; "cancelled" when a turn ended cancelled (the spec asks
        the client to mark them so, v1 having no such status); "unfinished" when a turn ended
        otherwise with calls the agent never finished; "unknown" when a load replay ends,
        since a replayed call's last update says nothing about how it ended. The user's own
        `!` commands are not the agent's to leave unfinished: their exit settles them.
        """
        changes: list[Change] = []
        for entry in self.tool_calls.values():
            if entry.status in ("pending", "in_progress") and not entry.by_user:
                entry.status = status
                changes.append(ToolCallChanged(entry, frozenset({"status"})))
        return changes

    def asked_call(self, tool_call: ToolCallUpdate) -> list[Change]:
        """A permission question about a call never announced (some agents send only the
        question, with a full `toolCall`): its card is created from the question, so the call
        is in the transcript while it runs and after a rejection."""
        changes: list[Change] = []
        if self._current(tool_call.tool_call_id) is None:
            changes += self.upsert_tool_call(tool_call)
        entry = self.tool_calls[tool_call.tool_call_id]
        entry.permission = "asked"
        return [*changes, ToolCallChanged(entry, frozenset({"permission"}))]

    def permission_answered(
        self,
        call_id: str,
        options: list[PermissionOption],
        response: RequestPermissionResponse,
    ) -> list[Change]:
        """A rejected call that is still pending shows as rejected: an agent that asked only
        may never update it again. A later update from the agent still replaces it."""
        entry = self._current(call_id)
        chosen = getattr(response.outcome, "option_id", None)
        kinds = {option.option_id: option.kind for option in options}
        if entry is None:
            return []
        allowed = chosen is not None and not kinds.get(chosen, "").startswith("reject")
        entry.permission = "allowed" if allowed else "rejected"
        fields = {"permission"}
        if entry.status == "pending" and chosen is not None and not allowed:
            entry.status = "rejected"
            fields.add("status")
        return [ToolCallChanged(entry, frozenset(fields))]

    def upsert_tool_call(
        self, update: ToolCallStart | ToolCallProgress | ToolCallUpdate
    ) -> list[Change]:
        """Set only the fields the update carries; content and locations replace wholesale.

        An update for an id never seen creates the card, so a late or reordered update is
        shown rather than lost.
        """
        changes: list[Change] = []
        entry = self._current(update.tool_call_id)
        if entry is None:
            if update.tool_call_id in self.tool_calls:
                changes += self._reused(update.tool_call_id)
            entry = ToolCallEntry(update.tool_call_id, period=self.period, wire_only=self.wire_only)
            self.tool_calls[entry.tool_call_id] = entry
            changes += self.add(entry)
        carried = update.model_fields_set
        changed: set[str] = set()
        for name in TOOL_FIELDS:
            if name not in carried:
                continue
            value = getattr(update, name)
            if name in ("content", "locations"):
                value = list(value or [])
            elif value is None and name in ("title", "kind", "status"):
                continue
            setattr(entry, name, value)
            changed.add(name)
        ignored: list[str] = []
        data = apply_terminal_meta(entry, update.field_meta or {}, changed, ignored)
        if (update.field_meta or {}).get("dsh.cancelled") is True and entry.status == "failed":
            # dsh-agent's mark for a call its turn's cancel stopped: v1 has no such status.
            entry.status = "cancelled"
            changed.add("status")
        if data:
            changes.append(TerminalOutput(entry, data))
        if changed:
            changes.append(ToolCallChanged(entry, frozenset(changed)))
        if ignored:
            log.warning("ignored out-of-range _meta values: %s", ", ".join(ignored))
            changes += self.notice(
                f"ignored out-of-range values in a tool call's _meta: {', '.join(ignored)}",
                "warning",
            )
        return changes

    def _current(self, call_id: str) -> ToolCallEntry | None:
        """The call of this id in the current period; None when there is none, or when the id
        names a call whose turn is over (never to be changed again)."""
        entry = self.tool_calls.get(call_id)
        if entry is None or entry.period != self.period or entry.by_user:
            return None
        return entry

    def _reused(self, call_id: str) -> list[Change]:
        """An id that names a call of a turn that is over: a new card, and a note saying why."""
        old = self.tool_calls[call_id]
        if old.by_user:
            log.warning("agent named the user's own call id %r", call_id)
            what = "a command you ran"
        else:
            log.info("agent reused the call id %r of an earlier turn", call_id)
            what = "a call of an earlier turn"
        shown = clean_line(call_id)[:80]
        return self.notice(f"the agent reused the id {shown!r} of {what}: shown as a new card")
