"""A `replace_all` edit over several places is asked about with every site it will change,
read from the file when the call arrives: the question shows what the edit then applies."""

from __future__ import annotations

from typing import Any

from runtime_support import Connect, wire

BODY = "".join(
    ['"""greeter, version 1."""\n', *[f"line {n}\n" for n in range(2, 17)], "print('version 1')\n"]
)
EDIT = "edit --all hello.py: version 1 => version 2"


def diffs(content: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(item["oldText"], item["newText"], item.get("_meta")) for item in content]


async def test_the_question_shows_every_site_the_edit_applies(connect: Connect) -> None:
    async with connect(mode="ask") as h:
        (h.workspace / "hello.py").write_text(BODY)
        sid = await h.new()
        assert await h.prompt(sid, EDIT) == "end_turn"
        [(asked, _options)] = h.client.permissions()
        question = wire(asked)["content"]
        results = h.client.results(sid)
        [applied] = [u["content"] for u in results.values() if u.get("content")]
    assert (h.workspace / "hello.py").read_text() == BODY.replace("version 1", "version 2")
    assert len(question) == 2, question
    assert [meta["dsh.line"] for _, _, meta in diffs(question)] == [
        {"old": 1, "new": 1},
        {"old": 14, "new": 14},
    ]
    assert diffs(question) == diffs(applied)  # approved is what happened
    assert "+1 −1" not in str(question)


async def test_a_replace_all_that_matches_once_is_numbered_as_before(connect: Connect) -> None:
    async with connect(mode="ask") as h:
        (h.workspace / "hello.py").write_text("a\nb\nversion 1\n")
        sid = await h.new()
        assert await h.prompt(sid, EDIT) == "end_turn"
        [(asked, _options)] = h.client.permissions()
    [item] = wire(asked)["content"]
    assert (item["oldText"], item["newText"]) == ("version 1", "version 2")
    assert item["_meta"] == {"dsh.line": {"old": 3, "new": 3}}
