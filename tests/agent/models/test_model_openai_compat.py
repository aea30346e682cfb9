"""OpenAICompatModel against a local fake server that streams real SSE over real HTTP.

The real `openai` client talks to a `http.server` on an ephemeral 127.0.0.1 port. Retries
use an injected sleep that only records the delays, so no test waits on the clock.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agent.models.base import (
    ChatMessage,
    Finish,
    ModelDelta,
    NoticeDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)
from agent.models.openai_compat import OpenAICompatModel


@dataclass
class Status:
    """A plain JSON response with an HTTP status."""

    code: int
    body: dict[str, Any]


@dataclass
class Sse:
    """A 200 text/event-stream response: one `data:` event per chunk, then [DONE]."""

    events: list[dict[str, Any]]


@dataclass
class FakeServer:
    responses: deque[Status | Sse] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def make_handler(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # small SSE writes would otherwise wait on delayed ACKs

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            fake.requests.append(
                {
                    "path": self.path,
                    "body": body,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                }
            )
            response = fake.responses.popleft()
            if isinstance(response, Status):
                payload = json.dumps(response.body).encode()
                self.send_response(response.code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for event in response.events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fake))
    fake.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield fake
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    choices = (
        []
        if delta is None and finish is None
        else [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    )
    event: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake-model",
        "choices": choices,
    }
    if usage is not None:
        event["usage"] = {**usage, "total_tokens": sum(usage.values())}
    return event


def usage(prompt: int, completion: int) -> dict[str, Any]:
    return chunk(usage={"prompt_tokens": prompt, "completion_tokens": completion})


class Sleeps:
    """An injected sleep that records delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
async def make_model(server: FakeServer) -> AsyncIterator[Any]:
    models: list[OpenAICompatModel] = []

    def make(**kwargs: Any) -> OpenAICompatModel:
        options: dict[str, Any] = {
            "base_url": server.base_url,
            "api_key": "sk-test",
            "model": "fake-model",
            "label": "Fake",
            "retry_base_delay": 1.0,
            "sleep": Sleeps(),
        }
        options.update(kwargs)
        model = OpenAICompatModel(**options)
        models.append(model)
        return model

    yield make
    for model in models:
        await model.aclose()


USER: list[ChatMessage] = [{"role": "user", "content": "hi"}]
BASH_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
}


async def collect(
    model: OpenAICompatModel, messages: Sequence[ChatMessage] = USER, tools: Any = ()
) -> list[ModelDelta]:
    deltas = [delta async for delta in model.stream(messages, list(tools), cwd="/ws")]
    assert sum(isinstance(delta, Finish) for delta in deltas) == 1
    assert isinstance(deltas[-1], Finish)
    return deltas


async def test_text_streams_and_request_is_well_formed(server: FakeServer, make_model: Any) -> None:
    server.responses.append(
        Sse(
            [
                chunk({"role": "assistant", "content": ""}),
                chunk({"content": "Hel"}),
                chunk({"content": "lo!"}),
                chunk({}, finish="stop"),
                usage(11, 2),
            ]
        )
    )
    deltas = await collect(make_model())
    assert deltas == [TextDelta("Hel"), TextDelta("lo!"), UsageDelta(11, 2), Finish("stop")]
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "fake-model" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == USER
    assert "tools" not in body


async def test_reasoning_content_becomes_reasoning_deltas(
    server: FakeServer, make_model: Any
) -> None:
    server.responses.append(
        Sse(
            [
                chunk({"role": "assistant", "reasoning_content": "Think"}),
                chunk({"reasoning_content": "ing..."}),
                chunk({"content": "Answer."}),
                chunk({}, finish="stop"),
            ]
        )
    )
    deltas = await collect(make_model())
    assert deltas == [
        ReasoningDelta("Think"),
        ReasoningDelta("ing..."),
        TextDelta("Answer."),
        Finish("stop"),
    ]


async def test_tool_calls_split_across_chunks_over_two_steps(
    server: FakeServer, make_model: Any
) -> None:
    server.responses.append(
        Sse(
            [
                chunk({"role": "assistant", "reasoning_content": "Need to look."}),
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_abc",
                                "type": "function",
                                "function": {"name": "bash", "arguments": ""},
                            }
                        ]
                    }
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"comm'}}]}),
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 1,
                                "id": "call_def",
                                "type": "function",
                                "function": {"name": "bash", "arguments": '{"command":'},
                            }
                        ]
                    }
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'and": "ls"}'}}]}),
                chunk({"tool_calls": [{"index": 1, "function": {"arguments": ' "pwd"}'}}]}),
                chunk({}, finish="tool_calls"),
                usage(50, 20),
            ]
        )
    )
    server.responses.append(
        Sse([chunk({"content": "Two files."}), chunk({}, finish="stop"), usage(80, 3)])
    )
    model = make_model()
    first = await collect(model, USER, [BASH_TOOL])
    assert first == [
        ReasoningDelta("Need to look."),
        ToolCallDelta("call_abc", "bash", '{"command": "ls"}'),
        ToolCallDelta("call_def", "bash", '{"command": "pwd"}'),
        UsageDelta(50, 20),
        Finish("tool_calls"),
    ]
    step_two: list[ChatMessage] = [
        *USER,
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "Need to look.",
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in first
                if isinstance(call, ToolCallDelta)
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "a.py\nb.py"},
        {"role": "tool", "tool_call_id": "call_def", "content": "/ws"},
    ]
    second = await collect(model, step_two, [BASH_TOOL])
    assert second == [TextDelta("Two files."), UsageDelta(80, 3), Finish("stop")]
    first_body, second_body = (request["body"] for request in server.requests)
    assert first_body["tools"] == [BASH_TOOL]
    sent = second_body["messages"]
    assert [message["role"] for message in sent] == ["user", "assistant", "tool", "tool"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == '{"command": "ls"}'
    assert sent[2] == {"role": "tool", "tool_call_id": "call_abc", "content": "a.py\nb.py"}
    # A generic server gets no reasoning_content back; DeepSeek's thinking mode needs it.
    assert "reasoning_content" not in sent[1]


async def test_reasoning_content_is_passed_back_when_asked(
    server: FakeServer, make_model: Any
) -> None:
    server.responses.append(Sse([chunk({"content": "ok"}), chunk({}, finish="stop")]))
    messages: list[ChatMessage] = [
        *USER,
        {"role": "assistant", "content": "x", "reasoning_content": "why"},
        {"role": "user", "content": "more"},
    ]
    await collect(make_model(keep_reasoning_content=True), messages)
    assert server.requests[0]["body"]["messages"][1]["reasoning_content"] == "why"


async def test_missing_ids_get_deterministic_ones_and_stop_with_calls_means_tool_calls(
    server: FakeServer, make_model: Any
) -> None:
    # Ollama-style: no id, and finish_reason "stop" even though it called a tool.
    server.responses.append(
        Sse(
            [
                chunk(
                    {"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": "{}"}}]}
                ),
                chunk({}, finish="stop"),
            ]
        )
    )
    history: list[ChatMessage] = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "bash"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "ok"},
    ]
    deltas = await collect(make_model(), history)
    assert deltas == [ToolCallDelta("call_2", "read", "{}"), Finish("tool_calls")]


async def test_429_is_retried_with_a_notice_then_succeeds(
    server: FakeServer, make_model: Any
) -> None:
    server.responses.append(Status(429, {"error": {"message": "Rate limit reached"}}))
    server.responses.append(Sse([chunk({"content": "Finally."}), chunk({}, finish="stop")]))
    sleeps = Sleeps()
    deltas = await collect(make_model(sleep=sleeps))
    assert len(deltas) == 3
    notice = deltas[0]
    assert isinstance(notice, NoticeDelta)
    assert "Rate limited" in notice.text and "429" in notice.text
    assert "retrying in 1 s" in notice.text and "attempt 2 of 4" in notice.text
    assert deltas[1:] == [TextDelta("Finally."), Finish("stop")]
    assert sleeps.delays == [1.0]
    assert len(server.requests) == 2


async def test_500_fails_after_retries_with_backoff(server: FakeServer, make_model: Any) -> None:
    for _ in range(3):
        server.responses.append(Status(500, {"error": {"message": "upstream exploded"}}))
    sleeps = Sleeps()
    deltas = await collect(make_model(max_attempts=3, sleep=sleeps))
    notices = [delta for delta in deltas if isinstance(delta, NoticeDelta)]
    assert len(notices) == 2 and all("HTTP 500" in notice.text for notice in notices)
    assert sleeps.delays == [1.0, 2.0]
    finish = deltas[-1]
    assert isinstance(finish, Finish) and finish.reason == "error"
    assert finish.message is not None
    assert "HTTP 500" in finish.message and "upstream exploded" in finish.message
    assert "3 attempts" in finish.message
    assert len(server.requests) == 3


async def test_401_ends_with_a_clear_error_and_no_retry(
    server: FakeServer, make_model: Any
) -> None:
    server.responses.append(Status(401, {"error": {"message": "Authentication Fails"}}))
    deltas = await collect(make_model(api_key_hint="set DEEPSEEK_API_KEY"))
    assert len(deltas) == 1
    finish = deltas[0]
    assert isinstance(finish, Finish) and finish.reason == "error" and finish.message
    assert "HTTP 401" in finish.message and "Authentication Fails" in finish.message
    assert "DEEPSEEK_API_KEY" in finish.message
    assert len(server.requests) == 1


async def test_400_ends_with_the_servers_message(server: FakeServer, make_model: Any) -> None:
    server.responses.append(Status(400, {"error": {"message": "messages[1] is invalid"}}))
    deltas = await collect(make_model())
    assert deltas == [Finish("error", "Fake answered HTTP 400: messages[1] is invalid.")]


async def test_error_event_mid_stream_ends_with_error(server: FakeServer, make_model: Any) -> None:
    server.responses.append(
        Sse([chunk({"content": "Par"}), {"error": {"message": "overloaded mid-stream"}}])
    )
    deltas = await collect(make_model())
    assert deltas[0] == TextDelta("Par")
    finish = deltas[-1]
    assert isinstance(finish, Finish) and finish.reason == "error"
    assert finish.message is not None and "overloaded mid-stream" in finish.message


async def test_connection_refused_ends_with_error(make_model: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    deltas = await collect(make_model(base_url=f"http://127.0.0.1:{port}/v1"))
    assert len(deltas) == 1
    finish = deltas[0]
    assert isinstance(finish, Finish) and finish.reason == "error" and finish.message
    assert finish.message.startswith(f"Cannot reach Fake at http://127.0.0.1:{port}/v1")


async def test_missing_required_key_fails_before_any_request(
    server: FakeServer, make_model: Any
) -> None:
    model = make_model(api_key=None, require_api_key=True, api_key_hint="set DEEPSEEK_API_KEY")
    deltas = await collect(model)
    assert deltas == [Finish("error", "Fake: no API key; set DEEPSEEK_API_KEY.")]
    assert server.requests == []


async def test_length_and_content_filter_finishes(server: FakeServer, make_model: Any) -> None:
    server.responses.append(Sse([chunk({"content": "abc"}), chunk({}, finish="length")]))
    server.responses.append(Sse([chunk({}, finish="content_filter")]))
    model = make_model()
    assert (await collect(model))[-1] == Finish("length")
    filtered = (await collect(model))[-1]
    assert isinstance(filtered, Finish) and filtered.reason == "error"


def test_defaults_are_deepseek() -> None:
    model = OpenAICompatModel()
    assert model.name == "deepseek-chat"
    assert model.base_url == "https://api.deepseek.com"
