"""Streaming chat completions with tool calling, for DeepSeek and any OpenAI-compatible server.

Built on the official `openai` client so llama.cpp, vLLM, Ollama and DeepSeek all work through
one path. The client's own retries are off (`max_retries=0`): this module retries 429 and 5xx
itself so the user sees a notice for each wait instead of a silent stall. Every other failure
ends the stream with `Finish("error", message)`; `stream` never raises except for task
cancellation, so the turn loop can always log a clean end.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from agent.models.base import (
    ChatMessage,
    Finish,
    FinishReason,
    ModelDelta,
    NoticeDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    UsageDelta,
    call_id,
    prior_tool_call_count,
)

if TYPE_CHECKING:
    import openai
    from openai import AsyncOpenAI

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
DEEPSEEK_DEFAULT_MODEL = "deepseek-chat"


@dataclass
class _PendingCall:
    """Fragments of one streamed tool call, keyed by its index in the delta stream."""

    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _retryable(error: openai.APIStatusError) -> bool:
    return error.status_code == 429 or error.status_code >= 500


def _detail(error: openai.APIStatusError) -> str:
    """The server's own error message when it sent one, else the HTTP reason."""
    body = error.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    text = error.response.text.strip() if error.response is not None else ""
    return text[:300] or error.response.reason_phrase or "no details"


def _seconds(delay: float) -> str:
    return f"{delay:g} s"


def _retry_after(error: openai.APIStatusError) -> float | None:
    value = error.response.headers.get("retry-after") if error.response is not None else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds <= 60 else None


class OpenAICompatModel:
    """A chat-completions model. DeepSeek by default; `base_url` reaches any compatible server.

    `retry_base_delay` doubles per attempt (1, 2, 4 s by default); tests pass 0 so retries
    cost no wall-clock time. `keep_reasoning_content` passes an assistant message's
    `reasoning_content` back, which DeepSeek's thinking mode requires on tool-call turns and
    strict servers may reject, so it is on for DeepSeek and off elsewhere by default.
    """

    def __init__(
        self,
        *,
        model: str = DEEPSEEK_DEFAULT_MODEL,
        base_url: str = DEEPSEEK_BASE_URL,
        api_key: str | None = None,
        label: str | None = None,
        require_api_key: bool = False,
        api_key_hint: str = "set DSH_API_KEY",
        max_attempts: int = 4,
        retry_base_delay: float = 1.0,
        timeout: float = 600.0,
        keep_reasoning_content: bool | None = None,
        extra_body: Mapping[str, Any] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._model = model
        self.base_url = base_url
        self._api_key = api_key
        self.label = label or urlparse(base_url).netloc or base_url
        self._require_api_key = require_api_key
        self._api_key_hint = api_key_hint
        self._max_attempts = max(1, max_attempts)
        self._retry_base_delay = retry_base_delay
        self._timeout = timeout
        is_deepseek = urlparse(base_url).netloc.endswith("deepseek.com")
        self._keep_reasoning = (
            is_deepseek if keep_reasoning_content is None else keep_reasoning_content
        )
        self._extra_body = dict(extra_body or {})
        self._sleep = sleep
        self._client: AsyncOpenAI | None = None

    @property
    def name(self) -> str:
        return self._model

    async def _get_client(self) -> AsyncOpenAI:
        # Created on first use so building a model (e.g. to list choices) costs nothing; the key
        # placeholder lets keyless local servers work, since the client insists on some key.
        if self._client is None:
            # `openai` takes about a second to import: do it off the event loop, and only
            # when a networked model is actually used, so offline startup stays fast.
            await asyncio.to_thread(importlib.import_module, "openai")
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key or "no-key",
                max_retries=0,
                timeout=self._timeout,
            )
        return self._client

    async def aclose(self) -> None:
        """Release the HTTP connection pool."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _request_messages(self, messages: Sequence[ChatMessage]) -> list[ChatMessage]:
        if self._keep_reasoning:
            return list(messages)
        return [
            {key: value for key, value in message.items() if key != "reasoning_content"}
            for message in messages
        ]

    def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], *, cwd: str
    ) -> AsyncIterator[ModelDelta]:
        return self._stream(messages, tools)

    async def _stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ModelDelta]:
        if self._require_api_key and not self._api_key:
            yield Finish("error", f"{self.label}: no API key; {self._api_key_hint}.")
            return
        request: dict[str, Any] = {
            "model": self._model,
            "messages": self._request_messages(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            request["tools"] = list(tools)
        if self._extra_body:
            request["extra_body"] = self._extra_body
        try:
            client = await self._get_client()
        except Exception as error:  # e.g. an unusable base URL
            yield Finish("error", f"{self.label}: cannot create the client: {error}")
            return
        import openai  # loaded by _get_client; bound here for the except clauses

        attempt = 1
        while True:
            try:
                response = await client.chat.completions.create(**request)
            except openai.APIStatusError as error:
                if _retryable(error) and attempt < self._max_attempts:
                    delay = _retry_after(error)
                    if delay is None:
                        delay = self._retry_base_delay * 2 ** (attempt - 1)
                    what = "Rate limited" if error.status_code == 429 else "Server error"
                    yield NoticeDelta(
                        f"{what} by {self.label} (HTTP {error.status_code}); retrying in "
                        f"{_seconds(delay)} (attempt {attempt + 1} of {self._max_attempts})."
                    )
                    await self._sleep(delay)
                    attempt += 1
                    continue
                yield Finish("error", self._status_message(error, attempt))
                return
            except openai.APIError as error:
                yield Finish("error", self._failure_message(error))
                return
            except Exception as error:  # never raise out of stream: the loop must log an end
                yield Finish("error", f"{self.label} failed: {type(error).__name__}: {error}")
                return
            break
        async for delta in self._read(response, messages):
            yield delta

    async def _read(
        self, response: Any, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ModelDelta]:
        import openai

        pending: dict[int, _PendingCall] = {}
        finish_reason: str | None = None
        usage: UsageDelta | None = None
        try:
            async for chunk in response:
                if chunk.usage is not None:
                    usage = UsageDelta(
                        chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0
                    )
                for choice in chunk.choices or ():
                    delta = choice.delta
                    reasoning = getattr(delta, "reasoning_content", None) or getattr(
                        delta, "reasoning", None
                    )
                    if isinstance(reasoning, str) and reasoning:
                        yield ReasoningDelta(reasoning)
                    if delta.content:
                        yield TextDelta(delta.content)
                    for fragment in delta.tool_calls or ():
                        call = pending.setdefault(fragment.index, _PendingCall())
                        if fragment.id:
                            call.id = fragment.id
                        if fragment.function is not None:
                            if fragment.function.name:
                                call.name += fragment.function.name
                            if fragment.function.arguments:
                                call.arguments.append(fragment.function.arguments)
                    if choice.finish_reason:
                        finish_reason = choice.finish_reason
        except openai.APIError as error:
            yield Finish("error", self._failure_message(error))
            return
        except Exception as error:  # e.g. a malformed chunk; never raise out of stream
            yield Finish("error", f"{self.label} sent an unreadable reply: {error}")
            return
        finally:
            await response.close()
        number = prior_tool_call_count(messages)
        for offset, index in enumerate(sorted(pending), start=1):
            call = pending[index]
            if not call.name:
                yield Finish("error", f"{self.label} sent a tool call without a name.")
                return
            yield ToolCallDelta(
                call.id or call_id(number + offset), call.name, "".join(call.arguments) or "{}"
            )
        if usage is not None:
            yield usage
        yield self._finish(finish_reason, bool(pending))

    def _finish(self, reason: str | None, made_calls: bool) -> Finish:
        # Some servers (e.g. Ollama) say "stop" after tool calls; the calls are what matter,
        # unless the reply was cut off, when the last call's arguments may be incomplete.
        if made_calls and reason != "length":
            return Finish("tool_calls")
        mapping: dict[str, FinishReason] = {"stop": "stop", "length": "length"}
        if reason is None or reason in mapping:
            return Finish(mapping.get(reason or "stop", "stop"))
        if reason == "content_filter":
            return Finish("error", f"{self.label} stopped the reply with its content filter.")
        return Finish("stop")

    def _status_message(self, error: openai.APIStatusError, attempts: int) -> str:
        status = error.status_code
        text = f"{self.label} answered HTTP {status}: {_detail(error)}"
        if status in (401, 403):
            text += f". Check the API key ({self._api_key_hint})"
        elif status == 404:
            text += f". Check the model name ({self._model!r}) and the base URL ({self.base_url})"
        if attempts > 1:
            text += f" (gave up after {attempts} attempts)"
        return text + ("" if text.endswith(".") else ".")

    def _failure_message(self, error: openai.APIError) -> str:
        import openai

        if isinstance(error, openai.APITimeoutError):
            return f"{self.label} did not answer in time ({self.base_url})."
        if isinstance(error, openai.APIConnectionError):
            cause = error.__cause__ or error.__context__
            reason = f": {cause}" if cause else ""
            return f"Cannot reach {self.label} at {self.base_url}{reason}."
        if isinstance(error, openai.APIStatusError):
            return self._status_message(error, 1)
        return f"{self.label} failed: {error.message}"
