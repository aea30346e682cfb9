"""The replay agent: plays a recording's agent side to the real client, in process.

It walks the recording in wire order. A line the agent sent is handed to the client as it
came (a malformed line included, so the client's guard meets it as it did live), after the
recorded pause scaled by the speed, or, when stepping, after a key press (tui/replay/steps.py
says where a step starts). Where the client spoke, it waits for the client to say the same
(the same method and id, in any order within one run of the client's messages): what the
client would only have sent because its user did something (a prompt, Esc, a mode switch) it
asks the client's session for. Whatever does not match is drift, said in a notice; it never
waits without end:

* a message the client does not send within `GIVE_UP_S` is given up on (a notice), except the
  answer to a permission question: the replay app gives the recorded one (tui/replay/app.py),
  and one the recording lacks is the user's to give;
* a request the recording never answered (it was cut in the middle of a turn) is answered
  when the recording ends: a prompt turn ends `cancelled`, with a notice;
* a request the recording does not have gets an answer all the same (a prompt is refused);
* a recorded pause longer than `MAX_PAUSE_S` is shortened to it (a notice).

The client's answers to the agent's requests are matched by id, not by place: an answer that
comes before the recording has it (the client answered a quick `fs/*` request before a slower
permission question, in the other order than live) is held until the replay gets there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any, Protocol

from dsh_common.jsonrpc_lines import encode, error_response
from tui.replay.pipes import AgentLines, ClientLines, ClientMessage
from tui.replay.recording import Entry, Recording
from tui.replay.steps import prompt_request_ids, step_starts

log = logging.getLogger(__name__)

GIVE_UP_S = 10.0
"""How long a client message the recording expects is waited for before the replay goes on."""
MAX_PAUSE_S = 5.0
"""The longest recorded pause kept (divided by the speed like any other): a recording's
clock is the recording's word, and a gap of days must not hold the replay."""
METHOD_NOT_FOUND = -32601
USER_ANSWERS = frozenset({"session/request_permission"})


class Driver(Protocol):
    """The client's session, as the replay needs it (tui/session/controller.py offers it)."""

    def notice(self, text: str, level: Any = "info") -> None: ...

    def submit_prompt(self, text: str) -> None: ...

    def cancel_turn(self) -> Awaitable[None]: ...

    def set_mode(self, mode_id: str) -> Awaitable[bool]: ...

    def set_model(self, model_id: str) -> Awaitable[None]: ...

    def set_config(self, config_id: str, value: str) -> Awaitable[None]: ...


def prompt_text(params: object) -> str:
    """The text a recorded `session/prompt` carried (its text blocks, joined)."""
    blocks = params.get("prompt") if isinstance(params, dict) else None
    texts = [
        block["text"]
        for block in blocks or []
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    ]
    return "".join(texts)


def _key(message: dict[str, Any]) -> tuple[object, object]:
    method = message.get("method")
    return (method if isinstance(method, str) else None, message.get("id", "(none)"))


def _describe(message: dict[str, Any]) -> str:
    method, request_id = _key(message)
    if "raw" in message:
        return "a line that is not JSON"
    if not isinstance(method, str):
        return f"an answer to id {request_id!r}"
    return method + ("" if request_id == "(none)" else f" (id {request_id!r})")


def _hashable(request_id: object) -> object:
    """A JSON-RPC id as a dict key (a malformed one may be a list or an object)."""
    return request_id if isinstance(request_id, str | int | float | None) else repr(request_id)


class ClientGone(Exception):
    """The client closed its side: the replay has no one to play to."""


class ReplayAgent:
    def __init__(self, recording: Recording, *, speed: float = 1.0, step: bool = False) -> None:
        self.recording = recording
        self.speed = speed
        self.stepping = step
        self.driver: Driver | None = None
        self.played = 0  # agent messages handed to the client so far
        self.finished = False  # the whole recording has been played
        # Stepping: each key press is put here, "unit" (the next message or tool call) or
        # "message" (one wire message); `_granted` is what the last press still covers. The
        # session's set-up plays at once: the first step is the first thing to read.
        self._presses: asyncio.Queue[str] = asyncio.Queue()
        self._granted: str | None = "unit"
        self._starts = step_starts(recording.entries, prompt_request_ids(recording.entries))
        self.to_end = False  # "play to the end": no more waiting, at any speed
        self.waiting = False  # stepping, and waiting for a key press
        self._asked: dict[object, dict[str, Any]] = {}  # client requests not yet answered
        self._triggers: set[asyncio.Task[Any]] = set()
        # Recorded client answers (by the entry's id()) the client sent before their turn.
        self._early: dict[int, dict[str, Any]] = {}
        self._agent_requests = {
            _hashable(entry.request_id): entry.method
            for entry in recording.entries
            if entry.incoming and entry.is_request
        }

    def step(self) -> None:
        """The next message or tool call, whole (a key press, when stepping)."""
        self._presses.put_nowait("unit")

    def step_message(self) -> None:
        """One more agent message on the wire: the fine step."""
        self._presses.put_nowait("message")

    def play_to_end(self) -> None:
        """The rest of the recording, without waiting."""
        self.to_end = True
        self._presses.put_nowait("end")

    async def run(self, reader: AgentLines, client: ClientLines) -> None:
        self._reader, self._client = reader, client
        try:
            await self._play()
            await self._end()
            while True:  # the recording is over: still answer, never leave the client waiting
                self._unexpected(await self._next(None))
        except ClientGone:
            pass
        finally:
            for task in self._triggers:
                task.cancel()

    # -- playing ------------------------------------------------------------------------

    async def _play(self) -> None:
        entries = self.recording.entries
        last_t = entries[0].t if entries else 0.0
        index = 0
        while index < len(entries):
            entry = entries[index]
            if entry.incoming:
                await self._pace(entry.t - last_t, self._starts[index])
                await self._send(entry)
                index += 1
            else:
                run = [entry]
                while index + len(run) < len(entries) and not entries[index + len(run)].incoming:
                    run.append(entries[index + len(run)])
                await self._expect(run, entry.t - last_t, index + len(run))
                index += len(run)
            last_t = entries[index - 1].t

    async def _pace(self, gap: float, starts_step: bool) -> None:
        if self.to_end:
            return
        if self.stepping:
            if self._granted == "unit" and not starts_step:
                return  # the rest of the unit the last press showed
            self.waiting = True
            try:
                self._granted = await self._presses.get()
            finally:
                self.waiting = False
        else:
            await self._pause(gap)

    async def _pause(self, gap: float) -> None:
        """The recorded pause, scaled by the speed, and never longer than `MAX_PAUSE_S`."""
        if self.speed <= 0 or not gap > 0:  # `not >` is true for NaN as well
            return
        if gap > MAX_PAUSE_S:
            await self.notice(
                f"the recording pauses {gap:.3g} s here; shortened to {MAX_PAUSE_S:g} s"
            )
            gap = MAX_PAUSE_S
        await asyncio.sleep(gap / self.speed)

    async def _send(self, entry: Entry) -> None:
        if entry.is_response:
            self._asked.pop(_hashable(entry.request_id), None)
        await self._reader.feed_line(entry.line)
        self.played += 1

    async def _expect(self, run: list[Entry], gap: float, rest: int) -> None:
        """Wait for the client to send this run of messages, asking its session for those
        only a user's action would have sent. `rest` is where the recording goes on after
        the run: an answer found there, by id, is one the client gave early."""
        waiting = list(run)
        for entry in run:
            early = self._early.pop(id(entry), None)
            if early is not None:
                waiting.remove(entry)
                await self._check_answer(entry, early)
        if any(self._needs_user(entry) for entry in waiting):
            if not self.stepping and not self.to_end:
                await self._pause(gap)
            for entry in waiting:
                self._act(entry)
        while waiting:
            patient = any(
                entry.is_response and self._asked_method(entry) in USER_ANSWERS for entry in waiting
            )
            try:
                message = await self._next(None if patient else GIVE_UP_S)
            except TimeoutError:
                missing = ", ".join(entry.describe() for entry in waiting)
                await self.notice(f"the client did not send {missing}; going on")
                return
            match = next(
                (e for e in waiting if e.message is not None and _key(e.message) == _key(message)),
                None,
            )
            if match is None:
                later = self._recorded_later(message, rest)
                if later is None:
                    self._unexpected(message)
                else:
                    self._early[id(later)] = message
                continue
            waiting.remove(match)
            if match.is_request:
                self._asked[_hashable(match.request_id)] = message
            else:
                await self._check_answer(match, message)

    async def _check_answer(self, recorded: Entry, message: dict[str, Any]) -> None:
        if recorded.message is not None and ("error" in recorded.message) != ("error" in message):
            said = "an error" if "error" in message else "a result"
            await self.notice(f"the client answered {recorded.describe()} with {said}")

    def _recorded_later(self, message: dict[str, Any], rest: int) -> Entry | None:
        """The client's recorded answer with this id further on (not yet taken), if the
        message is an answer: the client gave it sooner than it did live."""
        method, request_id = _key(message)
        if method is not None or request_id == "(none)":
            return None
        for entry in self.recording.entries[rest:]:
            if entry.incoming and entry.is_request and entry.request_id == request_id:
                return None  # the agent asks with this id again first: not this answer
            if (
                not entry.incoming
                and entry.is_response
                and entry.request_id == request_id
                and id(entry) not in self._early
            ):
                return entry
        return None

    def _asked_method(self, response: Entry) -> str | None:
        """The method of the agent's request this recorded client answer answers."""
        return self._agent_requests.get(_hashable(response.request_id))

    @staticmethod
    def _needs_user(entry: Entry) -> bool:
        return entry.method in (
            "session/prompt",
            "session/cancel",
            "session/set_mode",
            "session/set_model",
            "session/set_config_option",
        )

    def _act(self, entry: Entry) -> None:
        """Have the client send what its user made it send live."""
        driver = self.driver
        message = entry.message or {}
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if driver is None:
            return
        if entry.method == "session/prompt":
            driver.submit_prompt(prompt_text(params))
            return
        action: Awaitable[Any] | None = None
        if entry.method == "session/cancel":
            action = driver.cancel_turn()
        elif entry.method == "session/set_mode":
            action = driver.set_mode(str(params.get("modeId")))
        elif entry.method == "session/set_model":
            action = driver.set_model(str(params.get("modelId")))
        elif entry.method == "session/set_config_option":
            action = driver.set_config(str(params.get("configId")), str(params.get("value")))
        if action is not None:
            task = asyncio.ensure_future(action)
            self._triggers.add(task)
            task.add_done_callback(self._triggers.discard)

    async def _next(self, timeout: float | None) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            message: ClientMessage = await self._client.messages.get()
        if message is None:
            raise ClientGone
        return message

    # -- drift and the end ----------------------------------------------------------------

    def _unexpected(self, message: dict[str, Any]) -> None:
        """A client message the recording does not have here: said, and answered if asked."""
        method, request_id = _key(message)
        task = asyncio.ensure_future(
            self.notice(f"the client sent {_describe(message)}, which the recording does not have")
        )
        self._triggers.add(task)
        task.add_done_callback(self._triggers.discard)
        if method is None or request_id == "(none)":
            return
        if method == "session/prompt":
            self._answer(request_id, {"stopReason": "refusal"})
        else:
            reason = "not in the recording"
            self._reply(error_response(request_id, METHOD_NOT_FOUND, "Method not found", reason))

    async def _end(self) -> None:
        """What the recording leaves open is closed: the client never waits for an answer."""
        self.finished = True
        for problem in self.recording.problems:
            await self.notice(problem)
        for request_id, message in list(self._asked.items()):
            if message.get("method") == "session/prompt":
                await self.notice("the recording ends here, in the middle of the turn")
                self._answer(request_id, {"stopReason": "cancelled"})
            else:
                reason = "the recording ends before the answer"
                self._reply(error_response(request_id, METHOD_NOT_FOUND, "Not recorded", reason))
        self._asked.clear()

    def _answer(self, request_id: object, result: dict[str, Any]) -> None:
        self._reply({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _reply(self, message: dict[str, Any]) -> None:
        self._reader.feed_data(encode(message))

    async def notice(self, text: str) -> None:
        """A notice in the client's transcript, after what the client has read so far."""
        driver = self.driver
        log.warning("replay: %s", text)
        if driver is None:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(GIVE_UP_S):
                await self._reader.idle.wait()
        asyncio.get_running_loop().call_soon(driver.notice, f"replay: {text}", "warning")
