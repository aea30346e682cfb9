"""The notes about what the client did not show read as one sentence each."""

from __future__ import annotations

from tui.connection.wire import unsupported_parts
from tui.session.controller import SessionController
from tui.state import NoticeEntry


def test_an_update_with_no_kind_is_called_malformed_not_kind_none() -> None:
    for update in ({"content": {"type": "text", "text": "x"}}, {"sessionUpdate": None}):
        message = {"method": "session/update", "params": {"sessionId": "s", "update": update}}
        assert unsupported_parts(message) == ["malformed session/update (it names no kind)"]


def test_the_connections_own_note_is_shown_as_it_is_said() -> None:
    controller = SessionController()
    controller.on_unsupported("", "malformed message from the agent (not shown): not JSON")
    controller.on_unsupported("s1", "update kind 'hologram'")
    texts = [e.text for e in controller.conversation.entries if isinstance(e, NoticeEntry)]
    assert texts == [
        "malformed message from the agent (not shown): not JSON",
        "unsupported update kind 'hologram' (not shown)",
    ]


def test_a_current_model_missing_from_the_agents_list_is_still_named() -> None:
    from tui.state import Conversation, OfferedModels

    conversation = Conversation()
    conversation.start_session(None, [], OfferedModels("gpt-x\x1b[31m", (("a", "Model A"),)))
    assert conversation.model_name == "gpt-x"  # cleaned: no escape sequence
    conversation.model_chosen("a")
    assert conversation.model_name == "Model A"


def test_two_chunks_out_of_turn_are_two_messages_not_one_line() -> None:
    from acp.schema import AgentMessageChunk, TextContentBlock

    from tui.state import Conversation, MessageEntry

    def chunk(text: str) -> AgentMessageChunk:
        block = TextContentBlock(type="text", text=text)
        return AgentMessageChunk(session_update="agent_message_chunk", content=block)

    conversation = Conversation()
    conversation.apply(chunk("replayed "))  # a load's replay still merges its chunks
    conversation.apply(chunk("history"))
    conversation.end_turn()
    conversation.apply(chunk("[MODE_UPDATE] autoEdit"))
    conversation.apply(chunk("[MODE_UPDATE] yolo"))
    conversation.add_prompt("go")
    conversation.apply(chunk("in "))
    conversation.apply(chunk("turn"))
    texts = [e.text for e in conversation.entries if isinstance(e, MessageEntry)]
    assert texts == [
        "replayed history",
        "[MODE_UPDATE] autoEdit",
        "[MODE_UPDATE] yolo",
        "go",
        "in turn",
    ]


def test_image_link_and_text_chunks_of_one_message_stand_apart() -> None:
    """`[image]see this[link]` used to be one line: each non-text block is a paragraph."""
    from acp.schema import (
        AgentMessageChunk,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
    )

    from tui.state import Conversation, MessageEntry

    def chunk(block: object) -> AgentMessageChunk:
        return AgentMessageChunk(session_update="agent_message_chunk", content=block)  # type: ignore[arg-type]

    image = ImageContentBlock(type="image", mime_type="image/png", data="AAAA")
    link = ResourceContentBlock(type="resource_link", name="spec.md", uri="file:///w/spec.md")
    conversation = Conversation()
    conversation.add_prompt("go")
    for block in [
        image,
        TextContentBlock(type="text", text="see "),
        TextContentBlock(type="text", text="this"),
        link,
        link,
        TextContentBlock(type="text", text="line\n"),
        image,
    ]:
        conversation.apply(chunk(block))
    reply = conversation.entries[-1]
    assert isinstance(reply, MessageEntry)
    assert reply.text == (
        "[image image/png, 3 bytes]\n\nsee this\n\n[spec.md](file:///w/spec.md)\n\n"
        "[spec.md](file:///w/spec.md)\n\nline\n\n[image image/png, 3 bytes]"
    )
