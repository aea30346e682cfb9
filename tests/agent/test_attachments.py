"""Attached files on the agent side: read from prompt blocks, put into the model's context,
logged and replayed, and acknowledged by the offline model."""

from __future__ import annotations

import pytest
from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)
from hypothesis import given
from hypothesis import strategies as st

from agent.attachments import (
    Attachment,
    UnsupportedContent,
    attachments_from_json,
    attachments_to_json,
    prompt_parts,
    split_context,
    user_content,
)
from agent.events import TurnStart, UserMessage, event_from_json, event_to_json
from agent.history import History
from agent.models.offline import acknowledgement
from agent.presenter import SessionPresenter
from agent.translate import translate

CWD = "/work"


def embedded(path: str, text: str) -> EmbeddedResourceContentBlock:
    resource = TextResourceContents(uri=f"file://{path}", mime_type="text/plain", text=text)
    return EmbeddedResourceContentBlock(type="resource", resource=resource)


def test_prompt_blocks_become_text_and_attachments_in_order() -> None:
    blob = BlobResourceContents(uri="file:///work/logo.png", blob="AAAA", mime_type="image/png")
    text, attached = prompt_parts(
        [
            TextContentBlock(type="text", text="look at "),
            embedded("/work/src/app.py", "a\nb\n"),
            TextContentBlock(type="text", text="please"),
            ResourceContentBlock(
                type="resource_link", uri="file:///work/big.log", name="big.log", size=9
            ),
            EmbeddedResourceContentBlock(type="resource", resource=blob),
            embedded("/elsewhere/x.py", "x"),
        ],
        CWD,
    )
    assert text == "look at please"
    assert attached == [
        Attachment("file:///work/src/app.py", "src/app.py", "a\nb\n", "text/plain"),
        Attachment("file:///work/big.log", "big.log", size=9),
        Attachment("file:///work/logo.png", "logo.png", mime="image/png"),
        Attachment("file:///elsewhere/x.py", "/elsewhere/x.py", "x", "text/plain"),
    ]


def test_images_are_refused_not_dropped() -> None:
    image = ImageContentBlock(type="image", data="AAAA", mime_type="image/png")
    with pytest.raises(UnsupportedContent, match="image"):
        prompt_parts([TextContentBlock(type="text", text="see"), image], CWD)


def test_the_model_reads_file_sections_and_link_lines_after_the_prompt() -> None:
    attached = [
        Attachment("file:///work/src/app.py", "src/app.py", "a\nb"),
        Attachment("file:///work/big.log", "big.log"),
    ]
    assert user_content("explain", attached) == (
        'explain\n\n<file path="src/app.py" lines="2">\na\nb\n</file>\n\n'
        "[linked file: file:///work/big.log]"
    )
    assert user_content("explain", []) == "explain"


labels = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=12)
texts = st.text(st.characters(blacklist_categories=["Cs"]), max_size=60)


@given(
    prompt=texts,
    files=st.lists(st.tuples(labels, st.one_of(st.none(), texts)), max_size=4),
)
def test_split_context_finds_the_prompt_whatever_the_files_hold(
    prompt: str, files: list[tuple[str, str | None]]
) -> None:
    attached = [Attachment(f"file:///w/{n}", label, text) for n, (label, text) in enumerate(files)]
    shown, found = split_context(user_content(prompt, attached))
    assert shown == prompt or not attached
    assert [lines is None for _, lines in found] == [text is None for _, text in files]


def test_a_logged_user_message_keeps_its_attachments_and_rebuilds_the_same_context() -> None:
    attached = [Attachment("file:///work/a.py", "a.py", "x = 1\n", "text/x-python")]
    event = UserMessage("fix @a.py", attachments_to_json(attached))
    record = event_to_json(event)
    again = event_from_json(record)
    assert again == event
    assert attachments_from_json(again.attachments) == attached
    live, loaded = History(), History()
    for history, message in ((live, event), (loaded, again)):
        history.feed(TurnStart(1))
        history.feed(message)
    assert live.messages == loaded.messages
    assert live.messages[-1]["content"] == user_content("fix @a.py", attached)
    # An old log line without the field still reads.
    assert event_from_json({"type": "user/message", "text": "hi"}) == UserMessage("hi")


def test_replay_shows_the_prompt_with_its_attachments_line() -> None:
    attached = [
        Attachment("file:///work/src/app.py", "src/app.py", "1\n2\n"),
        Attachment("file:///work/big.log", "big.log"),
    ]
    event = UserMessage("explain @src/app.py", attachments_to_json(attached))
    (update,) = translate(event, SessionPresenter(CWD, True))
    assert update.content.model_dump()["text"] == (
        "explain @src/app.py\n\nattached: src/app.py (2 lines), big.log (link)"
    )
    assert translate(event, SessionPresenter(CWD, True), include_user=False) == []


def test_the_offline_model_acknowledges_by_name_and_size() -> None:
    assert acknowledgement([("src/app.py", 120), ("file:///work/big.log", None)], CWD) == (
        "attached: `src/app.py`, 120 lines; `big.log`, linked (not read).\n\n"
    )
    assert acknowledgement([], CWD) == ""
