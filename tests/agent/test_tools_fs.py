"""The file tools against a real temporary directory: read, write and edit."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent.tools.base import ToolContext, ToolResult
from agent.tools.fs import (
    MAX_LINE_CHARS,
    MAX_READ_BYTES,
    READ_LIMIT,
    EditTool,
    ReadTool,
    WriteTool,
)
from agent.views import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
)

read, write, edit = ReadTool(), WriteTool(), EditTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(tmp_path)


def lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


# --- read: presentation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "title", "line"),
    [
        ({"file_path": "big.txt"}, "Read big.txt", 1),
        ({"file_path": "big.txt", "offset": 5, "limit": 4}, "Read big.txt (5 - 8)", 5),
        ({"file_path": "big.txt", "limit": 10}, "Read big.txt (1 - 10)", 1),
        ({"file_path": "src/a.ts", "offset": 12}, "Read src/a.ts (from line 12)", 12),
    ],
)
def test_read_card(args: dict[str, object], title: str, line: int) -> None:
    path = str(args["file_path"])
    assert read.present_call(args) == GenericCallView(
        card="generic", title=title, kind="read", locations=(FileLocation(path, line),)
    )
    assert read.present_result(args, ToolResult("text")) is None  # the raw text shows


# --- read: execution -------------------------------------------------------------------------


async def test_read_whole_file(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    result = await read.execute({"file_path": "a.txt"}, ctx)
    assert not result.is_error
    assert result.output == (
        f"<path>{tmp_path}/a.txt</path>\n<type>file</type>\n<content>\n"
        "1: alpha\n2: beta\n\n(End of file - total 2 lines)\n</content>"
    )


async def test_read_window_has_a_continuation_hint(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "big.txt").write_text(lines(10))
    result = await read.execute({"file_path": "big.txt", "offset": 5, "limit": 4}, ctx)
    assert "5: line 5\n6: line 6\n7: line 7\n8: line 8\n" in result.output
    assert "4: line 4" not in result.output
    assert "(Showing lines 5-8 of 10. Use offset=9 to continue.)" in result.output


async def test_read_caps_lines_by_default(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "huge.txt").write_text(lines(READ_LIMIT + 500))
    result = await read.execute({"file_path": "huge.txt", "limit": 99_999}, ctx)
    assert f"{READ_LIMIT}: line {READ_LIMIT}\n" in result.output
    assert f"{READ_LIMIT + 1}: " not in result.output
    assert f"Use offset={READ_LIMIT + 1} to continue." in result.output


async def test_read_cuts_long_lines(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "wide.txt").write_text("x" * (MAX_LINE_CHARS + 10) + "\nshort\n")
    result = await read.execute({"file_path": "wide.txt"}, ctx)
    expected = f"1: {'x' * MAX_LINE_CHARS}... (line truncated to {MAX_LINE_CHARS} characters)\n"
    assert expected in result.output
    assert "2: short" in result.output


async def test_read_caps_bytes(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "dense.txt").write_text("".join(f"{'y' * 1000}\n" for _ in range(200)))
    result = await read.execute({"file_path": "dense.txt"}, ctx)
    body = result.output.split("<content>\n", 1)[1]
    assert len(body.encode()) < MAX_READ_BYTES + 500
    assert "(Output capped at 50 KiB. Showing lines 1-" in result.output
    shown = sum(1 for line in body.split("\n") if line.split(":")[0].isdigit())
    assert shown == MAX_READ_BYTES // 1005  # each numbered line is ~1005 bytes
    assert f"Use offset={shown + 1} to continue.)" in result.output


async def test_read_binary_file(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    result = await read.execute({"file_path": "img.png"}, ctx)
    assert result.is_error
    assert (
        result.output == f"Error: {tmp_path}/img.png is a binary file; read shows text files only"
    )


async def test_read_non_utf8_file(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "latin.txt").write_bytes("ok\ncaf\xe9\n".encode("latin-1"))
    result = await read.execute({"file_path": "latin.txt"}, ctx)
    assert result.is_error
    assert result.output == (
        f"Error: {tmp_path}/latin.txt is not valid UTF-8 text (line 2); "
        "read shows UTF-8 text files only"
    )


async def test_read_errors(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "three.txt").write_text(lines(3))
    missing = await read.execute({"file_path": "nope.txt"}, ctx)
    assert missing.output == f"Error: file not found: {tmp_path}/nope.txt"
    folder = await read.execute({"file_path": "d"}, ctx)
    assert folder.output == f"Error: {tmp_path}/d is a directory, not a file"
    past = await read.execute({"file_path": "three.txt", "offset": 9}, ctx)
    assert past.output == f"Error: offset 9 is past the end of {tmp_path}/three.txt (3 lines)"
    bad = await read.execute({"file_path": "three.txt", "offset": 0}, ctx)
    assert bad.is_error and "at least 1" in bad.output
    assert all(r.is_error for r in (missing, folder, past))


async def test_read_empty_file_and_crlf(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "empty.txt").write_text("")
    empty = await read.execute({"file_path": "empty.txt"}, ctx)
    assert "(End of file - total 0 lines)" in empty.output
    (tmp_path / "dos.txt").write_bytes(b"a\r\nb\r\n")
    dos = await read.execute({"file_path": str(tmp_path / "dos.txt")}, ctx)
    assert "1: a\n2: b\n" in dos.output


# --- write -----------------------------------------------------------------------------------


def test_write_card_is_a_new_file_diff() -> None:
    args = {"file_path": "a.txt", "content": "hello\n"}
    assert write.present_call(args) == DiffCallView(
        card="diff",
        title="Write a.txt",
        diffs=(FileDiff("a.txt", None, "hello\n"),),
        locations=(FileLocation("a.txt"),),
    )


async def test_write_creates_parents_and_reports_a_whole_file_diff(
    tmp_path: Path, ctx: ToolContext
) -> None:
    args = {"file_path": "deep/er/new.txt", "content": "hello\n"}
    result = await write.execute(args, ctx)
    assert result == ToolResult(f"Created file {tmp_path}/deep/er/new.txt", meta={"diffs": []})
    assert (tmp_path / "deep/er/new.txt").read_text() == "hello\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "deep/er/new.txt").stat().st_mode) == 0o666 & ~umask
    # A create has no hunks: the result falls back to the whole-file diff from the args.
    assert write.present_result(args, result) == DiffResultView(
        card="diff",
        title="Write deep/er/new.txt",
        diffs=(FileDiff("deep/er/new.txt", None, "hello\n"),),
    )


async def test_overwrite_keeps_mode_and_records_hunks(tmp_path: Path, ctx: ToolContext) -> None:
    target = tmp_path / "run.sh"
    target.write_text("original contents\n")
    target.chmod(0o754)
    args = {"file_path": "run.sh", "content": "new contents\n"}
    result = await write.execute(args, ctx)
    assert result.output == f"Updated file {target}"
    assert stat.S_IMODE(target.stat().st_mode) == 0o754
    assert target.read_text() == "new contents\n"
    assert result.meta == {
        "diffs": [
            {
                "path": "run.sh",
                "oldText": "original contents",
                "newText": "new contents",
                "oldLine": 1,
                "newLine": 1,
                "line": 1,
            }
        ]
    }
    assert write.present_result(args, result) == DiffResultView(
        card="diff",
        title="Write run.sh",
        diffs=(FileDiff("run.sh", "original contents", "new contents", 1, 1),),
        locations=(FileLocation("run.sh", 1),),
    )
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]  # no temporary file left


async def test_identical_overwrite_falls_back_to_the_whole_file(
    tmp_path: Path, ctx: ToolContext
) -> None:
    (tmp_path / "same.txt").write_text("x\n")
    args = {"file_path": "same.txt", "content": "x\n"}
    result = await write.execute(args, ctx)
    assert result.meta == {"diffs": []}
    view = write.present_result(args, result)
    assert view == DiffResultView(
        card="diff", title="Write same.txt", diffs=(FileDiff("same.txt", None, "x\n"),)
    )


async def test_write_follows_a_symlink(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "real.txt").write_text("old\n")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    await write.execute({"file_path": "link.txt", "content": "new\n"}, ctx)
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new\n"


async def test_write_over_binary_has_no_hunks(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "blob").write_bytes(b"\xff\xfe\x00")
    result = await write.execute({"file_path": "blob", "content": "text\n"}, ctx)
    assert result.meta == {"diffs": []}


async def test_write_errors(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "d").mkdir()
    result = await write.execute({"file_path": "d", "content": "x"}, ctx)
    assert result == ToolResult(f"Error: {tmp_path}/d is a directory, not a file", True)
    missing = await write.execute({"file_path": "x"}, ctx)
    assert missing.output == "Error: missing required argument 'content'"
    assert write.present_result({"file_path": "d", "content": "x"}, result) is None


def test_write_malformed_meta_falls_back_to_the_whole_file_never_the_text() -> None:
    args = {"file_path": "a.txt", "content": "c"}
    for meta in (None, {"diffs": "x"}, {"diffs": [{"path": 1}]}, [1, 2]):
        view = write.present_result(args, ToolResult("Updated file a.txt", meta=meta))
        assert view == DiffResultView(
            card="diff", title="Write a.txt", diffs=(FileDiff("a.txt", None, "c"),)
        )


# --- edit ------------------------------------------------------------------------------------


def test_edit_card() -> None:
    args = {"file_path": "a.txt", "old_string": "x", "new_string": "y"}
    assert edit.present_call(args) == DiffCallView(
        card="diff",
        title="Edit a.txt",
        diffs=(FileDiff("a.txt", "x", "y"),),
        locations=(FileLocation("a.txt"),),
    )
    empty = edit.present_call({"file_path": "a.txt", "old_string": "", "new_string": "y"})
    assert isinstance(empty, DiffCallView)
    assert empty.diffs == (FileDiff("a.txt", None, "y"),)


def test_edit_card_with_the_logged_start_line() -> None:
    """The line read when the call was received (`ToolCall.meta`) numbers the snippet."""
    args = {"file_path": "a.txt", "old_string": "x", "new_string": "y"}
    view = edit.present_call(args, {"line": 17})
    assert isinstance(view, DiffCallView)
    assert view.diffs == (FileDiff("a.txt", "x", "y", 17, 17),)
    assert view.locations == (FileLocation("a.txt"),)  # the call's location is unchanged
    for junk in (None, {}, {"line": 0}, {"line": True}, {"line": "17"}, [17]):
        again = edit.present_call(args, junk)
        assert isinstance(again, DiffCallView) and again.diffs == (FileDiff("a.txt", "x", "y"),)


@pytest.mark.parametrize(
    ("body", "old_string", "expected"),
    [
        ("alpha\nbeta\ngamma\n", "beta", {"line": 2}),
        ("beta\nbeta\n", "beta", None),  # matches twice: no line
        ("alpha\n", "omega", None),
        (b"one\r\ntwo\r\nthree\r\n", "two\nthree", {"line": 2}),  # CRLF file, LF snippet
        (b"caf\xe9\n", "caf", None),  # not UTF-8: the edit would fail too
    ],
)
def test_edit_inspects_the_file_when_the_call_arrives(
    tmp_path: Path, ctx: ToolContext, body: str | bytes, old_string: str, expected: object
) -> None:
    target = tmp_path / "f.txt"
    if isinstance(body, bytes):
        target.write_bytes(body)
    else:
        target.write_text(body)
    args = {"file_path": "f.txt", "old_string": old_string, "new_string": "X"}
    assert edit.inspect_call(args, ctx) == expected


def test_edit_inspection_of_a_missing_file_or_bad_args_gives_nothing(ctx: ToolContext) -> None:
    missing = {"file_path": "nope.txt", "old_string": "a", "new_string": "b"}
    assert edit.inspect_call(missing, ctx) is None
    assert edit.inspect_call({"file_path": 3}, ctx) is None


async def test_edit_once(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "config.txt").write_text("mode=DEBUG\nlevel=info\n")
    args = {"file_path": "config.txt", "old_string": "DEBUG", "new_string": "RELEASE"}
    result = await edit.execute(args, ctx)
    assert result == ToolResult(
        f"The file {tmp_path}/config.txt has been updated successfully.",
        meta={
            "diffs": [
                {
                    "path": "config.txt",
                    "oldText": "mode=DEBUG\nlevel=info",
                    "newText": "mode=RELEASE\nlevel=info",
                    "oldLine": 1,
                    "newLine": 1,
                    "line": 1,
                }
            ]
        },
    )
    assert (tmp_path / "config.txt").read_text() == "mode=RELEASE\nlevel=info\n"
    assert edit.present_result(args, result) == DiffResultView(
        card="diff",
        title="Edit config.txt",
        diffs=(FileDiff("config.txt", "mode=DEBUG\nlevel=info", "mode=RELEASE\nlevel=info", 1, 1),),
        locations=(FileLocation("config.txt", 1),),
    )


async def test_edit_replace_all_gives_one_diff_per_site(tmp_path: Path, ctx: ToolContext) -> None:
    body = "".join(f"{'old' if i in (5, 40) else 'keep'} {i}\n" for i in range(60))
    (tmp_path / "f.txt").write_text(body)
    args = {"file_path": "f.txt", "old_string": "old", "new_string": "new", "replace_all": True}
    result = await edit.execute(args, ctx)
    assert result.output == (
        f"The file {tmp_path}/f.txt has been updated. All 2 occurrences were successfully replaced."
    )
    view = edit.present_result(args, result)
    assert isinstance(view, DiffResultView)
    assert len(view.diffs) == 2
    assert [(d.old_line, d.new_line) for d in view.diffs] == [(3, 3), (38, 38)]
    assert view.locations == (FileLocation("f.txt", 6), FileLocation("f.txt", 41))
    assert (tmp_path / "f.txt").read_text() == body.replace("old", "new")


async def test_edit_errors(tmp_path: Path, ctx: ToolContext) -> None:
    target = tmp_path / "f.txt"
    target.write_text("a b a\n")
    path = str(target)

    async def run(old: str, new: str) -> str:
        result = await edit.execute(
            {"file_path": "f.txt", "old_string": old, "new_string": new}, ctx
        )
        assert result.is_error
        return result.output

    assert await run("zzz", "y") == (
        f"Error: old_string was not found in {path}. It must match the file exactly, including "
        "whitespace and indentation; read the file again if unsure."
    )
    assert await run("a", "c") == (
        f"Error: old_string matches 2 places in {path}. Add surrounding lines to make it "
        "unique, or set replace_all to true to replace every occurrence."
    )
    assert await run("", "c") == (
        "Error: old_string must not be empty; use write to create or replace a whole file"
    )
    assert (
        await run("b", "b") == "Error: old_string and new_string are identical; nothing to change"
    )
    missing = await edit.execute({"file_path": "no.txt", "old_string": "a", "new_string": "b"}, ctx)
    assert missing.output == f"Error: file not found: {tmp_path}/no.txt"
    assert target.read_text() == "a b a\n"  # nothing was written


async def test_edit_refuses_a_file_changed_since_it_was_read(
    tmp_path: Path, ctx: ToolContext
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("value = 1\n")
    await read.execute({"file_path": "f.txt"}, ctx)
    target.write_text("value = 2\n")  # someone else edits it, same size, same instant
    args = {"file_path": "f.txt", "old_string": "value", "new_string": "v"}
    stale = await edit.execute(args, ctx)
    assert stale == ToolResult(
        f"Error: {target} has changed on disk since you last read it. "
        "Read it again before editing, so that change is not lost.",
        True,
    )
    assert target.read_text() == "value = 2\n"
    await read.execute({"file_path": "f.txt"}, ctx)
    assert not (await edit.execute(args, ctx)).is_error
    # The agent's own edits and writes refresh the stamp: no re-read needed in between.
    again = await edit.execute(
        {"file_path": "f.txt", "old_string": "v =", "new_string": "w ="}, ctx
    )
    assert not again.is_error
    await write.execute({"file_path": "f.txt", "content": "w = 3\n"}, ctx)
    third = await edit.execute({"file_path": "f.txt", "old_string": "3", "new_string": "4"}, ctx)
    assert not third.is_error
    assert target.read_text() == "w = 4\n"


async def test_stamps_are_per_session(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("x\n")
    first, second = ToolContext(tmp_path), ToolContext(tmp_path)
    await read.execute({"file_path": "f.txt"}, first)
    target.write_text("y\n")
    args = {"file_path": "f.txt", "old_string": "y", "new_string": "z"}
    assert (await edit.execute(args, first)).is_error
    assert not (await edit.execute(args, second)).is_error  # never read there


async def test_edit_keeps_crlf_and_mode(tmp_path: Path, ctx: ToolContext) -> None:
    target = tmp_path / "dos.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    target.chmod(0o640)
    args = {"file_path": "dos.txt", "old_string": "one\ntwo", "new_string": "1\n2"}
    result = await edit.execute(args, ctx)
    assert not result.is_error
    assert target.read_bytes() == b"1\r\n2\r\nthree\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert result.meta == {
        "diffs": [
            {
                "path": "dos.txt",
                "oldText": "one\ntwo\nthree",
                "newText": "1\n2\nthree",
                "oldLine": 1,
                "newLine": 1,
                "line": 1,
            }
        ]
    }


async def test_edit_non_utf8(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "l1.txt").write_bytes(b"caf\xe9\n")
    result = await edit.execute(
        {"file_path": "l1.txt", "old_string": "caf", "new_string": "x"}, ctx
    )
    assert (
        result.output
        == f"Error: {tmp_path}/l1.txt is not valid UTF-8 text; edit works on UTF-8 text only"
    )


def test_edit_result_without_valid_meta_is_generic() -> None:
    args = {"file_path": "a.txt", "old_string": "x", "new_string": "y"}
    for meta in (None, {"diffs": []}, {"diffs": [{"bad": 1}]}):
        assert edit.present_result(args, ToolResult("updated", meta=meta)) is None
    assert edit.present_result(args, ToolResult.error("nope")) is None


async def test_absolute_paths_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "abs.txt"
    target.write_text("a\n")
    elsewhere = ToolContext(Path("/"))
    result = await read.execute({"file_path": str(target)}, elsewhere)
    assert f"<path>{target}</path>" in result.output


def test_a_replace_all_over_several_places_is_inspected_as_its_hunks(
    tmp_path: Path, ctx: ToolContext
) -> None:
    """The call card of a multi-site replace_all is the hunks it would apply now; replayed
    from the logged meta, the same card comes back without reading the file."""
    (tmp_path / "f.txt").write_bytes(b"v1\r\n" + b"x\r\n" * 10 + b"v1 end\r\n")
    args = {"file_path": "f.txt", "old_string": "v1", "new_string": "v2", "replace_all": True}
    meta = edit.inspect_call(args, ctx)
    assert meta == {
        "diffs": [
            {
                "path": "f.txt",
                "oldText": "v1\nx\nx\nx",
                "newText": "v2\nx\nx\nx",
                "oldLine": 1,
                "newLine": 1,
                "line": 1,
            },
            {
                "path": "f.txt",
                "oldText": "x\nx\nx\nv1 end",
                "newText": "x\nx\nx\nv2 end",
                "oldLine": 9,
                "newLine": 9,
                "line": 12,
            },
        ]
    }
    view = edit.present_call(args, meta)
    assert isinstance(view, DiffCallView)
    assert [(d.old_line, d.new_line) for d in view.diffs] == [(1, 1), (9, 9)]
    assert view.locations == (FileLocation("f.txt", 1), FileLocation("f.txt", 12))
    # Without replace_all, several matches stay unnumbered (the edit would fail).
    assert edit.inspect_call({**args, "replace_all": False}, ctx) is None
    assert edit.inspect_call({**args, "old_string": "nowhere"}, ctx) is None
