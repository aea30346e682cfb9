"""`@` mentions without the UI: the path index, the fuzzy ranking, parsing, content blocks."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp.schema import (
    EmbeddedResourceContentBlock,
    InitializeResponse,
    ResourceContentBlock,
    TextContentBlock,
)

from bench.bench_mentions import make_tree
from dsh_common.attachments import AttachedFile
from tui.fs import ConfinedFs
from tui.prompt.mentions.blocks import build_prompt, embeds_context
from tui.prompt.mentions.fuzzy import FuzzyMatcher
from tui.prompt.mentions.index import PathIndex, build_index
from tui.prompt.mentions.parse import complete, find_mentions, mention_at, mention_text


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# --- index -----------------------------------------------------------------------------------


def test_index_leaves_out_what_git_would_and_lists_directories_first(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n!keep.log\n",
            "app.py": "",
            "keep.log": "",
            "debug.log": "",
            "build/out.js": "",
            "src/.gitignore": "/generated.py\n",
            "src/generated.py": "",
            "src/lib/generated.py": "",
            "src/main.py": "",
            ".git/config": "",
            ".git/info/exclude": "secret.txt\n",
            "secret.txt": "",
            ".venv/lib/site.py": "",
            "venv/x.py": "",
            "env2/pyvenv.cfg": "",
            "env2/lib/y.py": "",
            "web/node_modules/pkg/index.js": "",
            "web/index.ts": "",
        },
    )
    index = build_index(tmp_path)
    assert index.paths == (
        "src/",
        "web/",
        "src/lib/",
        ".gitignore",
        "app.py",
        "keep.log",
        "src/.gitignore",
        "src/main.py",
        "web/index.ts",
        "src/lib/generated.py",
    )


def test_index_does_not_follow_directory_symlinks(tmp_path: Path) -> None:
    tree(tmp_path / "work", {"a.py": ""})
    tree(tmp_path / "outside", {"secret.py": ""})
    (tmp_path / "work" / "out").symlink_to(tmp_path / "outside")
    (tmp_path / "work" / "loop").symlink_to(tmp_path / "work")
    assert build_index(tmp_path / "work").paths == ("a.py", "loop", "out")


def test_index_stops_at_its_limit(tmp_path: Path) -> None:
    tree(tmp_path, {f"f{n}.txt": "" for n in range(10)})
    index = build_index(tmp_path, limit=4)
    assert len(index) == 4 and index.truncated


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one: 55,000 file creates on a journalled disk take
    several times longer, and the test is about the index, not the disk."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path
    with tempfile.TemporaryDirectory(dir=base, prefix="mentions-") as directory:
        yield Path(directory)


def test_a_generated_50000_file_tree_is_indexed_whole_and_searched(scratch: Path) -> None:
    """The tree the benchmark measures: every mentionable file indexed, none of the ignored
    ones, and queries find what a user types for (timings: bench/bench_mentions.py)."""
    tmp_path = scratch
    make_tree(tmp_path, 50_000)
    index = build_index(tmp_path)
    files = [path for path in index.paths if not path.endswith("/")]
    assert len(files) == 50_001  # with the .gitignore itself
    assert not any(
        path.startswith(("build/", "node_modules/", ".venv/", ".git/")) or path.endswith(".log")
        for path in index.paths
    )
    on_disk = {
        os.path.relpath(os.path.join(top, name), tmp_path)
        for top, _, names in os.walk(tmp_path)
        for name in names
    }
    assert set(files) <= on_disk
    matcher = FuzzyMatcher(index)
    wanted = next(path for path in files if path.endswith(".tsx") and "widget_" in path)
    base = wanted.rsplit("/", 1)[1]
    typed = ""
    for char in base:
        typed += char
        found = matcher.search(typed)
    assert found[0].path.endswith("/" + base) or found[0].path == base
    assert matcher.search("zzqx") == []


# --- fuzzy -----------------------------------------------------------------------------------


def ranked(paths: list[str], query: str) -> list[str]:
    index = PathIndex.from_paths(Path("/w"), paths)
    return [match.path for match in FuzzyMatcher(index).search(query)]


def test_an_exact_basename_beats_a_prefix_beats_a_substring_beats_a_scattered_match() -> None:
    paths = ["lib/apiprep.py", "x/app_test.py", "src/app.py", "a/p/p.py", "deep/xappx.txt"]
    assert ranked(paths, "app") == [
        "src/app.py",
        "x/app_test.py",
        "deep/xappx.txt",
        "lib/apiprep.py",
        "a/p/p.py",
    ]


def test_directories_come_first_within_a_tier() -> None:
    assert ranked(["src/util.py", "src/", "lib/src.py"], "src") == [
        "src/",
        "lib/src.py",
        "src/util.py",
    ]


def test_a_directory_matched_only_across_its_path_does_not_lead() -> None:
    assert ranked(["xa/ya/za/", "x/y/z.py"], "xyz") == ["x/y/z.py", "xa/ya/za/"]


def test_segment_starts_and_runs_win_among_scattered_matches() -> None:
    assert ranked(["tests/xmxpx.py", "tui/prompt/mentions/parse.py"], "tmp")[0] == (
        "tui/prompt/mentions/parse.py"
    )
    assert ranked(["aXbXc.txt", "a_b_c.txt"], "abc") == ["a_b_c.txt", "aXbXc.txt"]


def test_matching_is_case_insensitive_and_positions_point_at_the_matched_characters() -> None:
    index = PathIndex.from_paths(Path("/w"), ["docs/README.md"])
    (match,) = FuzzyMatcher(index).search("RdMe")
    assert match.path == "docs/README.md"
    assert "".join(match.path[i] for i in match.positions).lower() == "rdme"


def test_an_empty_query_lists_the_index_in_order_and_no_match_gives_nothing() -> None:
    index = PathIndex.from_paths(Path("/w"), ["b.py", "a/", "a/c.py"])
    matcher = FuzzyMatcher(index)
    assert [m.path for m in matcher.search("")] == ["a/", "b.py", "a/c.py"]
    assert matcher.search("q") == []


def test_narrowing_and_widening_the_query_give_the_same_answers_as_fresh_searches() -> None:
    paths = [
        f"{d}/{w}{n}.py"
        for d in ("src", "lib", "tests")
        for w in ("app", "pp", "ap")
        for n in range(3)
    ]
    index = PathIndex.from_paths(Path("/w"), paths)
    typing = FuzzyMatcher(index)
    for query in ("a", "ap", "app", "ap", "s", "sa", "srcapp", "x", "xa"):
        assert typing.search(query, 5) == FuzzyMatcher(index).search(query, 5), query


def test_the_limit_keeps_the_best(tmp_path: Path) -> None:
    paths = [f"dir{n}/file{n}.py" for n in range(200)] + ["file.py"]
    assert ranked(paths, "file")[0] == "file.py"
    index = PathIndex.from_paths(Path("/w"), paths)
    assert len(FuzzyMatcher(index).search("file", limit=7)) == 7


# --- parse -----------------------------------------------------------------------------------


def test_mentions_are_found_with_quotes_and_without_trailing_punctuation() -> None:
    text = 'look at @src/app.py, then @"my file.txt" (and @docs/). mail a@b.c @ done @x.'
    assert [(m.path, text[m.start : m.end]) for m in find_mentions(text)] == [
        ("src/app.py", "@src/app.py"),
        ("my file.txt", '@"my file.txt"'),
        ("docs/", "@docs/"),
        ("x", "@x"),
    ]


def test_the_word_under_the_cursor_is_a_mention_only_when_it_starts_with_at() -> None:
    assert mention_at("see @sr", 7) is not None
    found = mention_at("see @src/ap now", 9)
    assert found is not None and (found.query, found.start, found.end) == ("src/", 4, 11)
    assert mention_at("see @src now", 12) is None
    assert mention_at("mail a@b", 8) is None
    quoted = mention_at('fix @"my fi and', 12)
    assert quoted is not None and quoted.query == "my fi "


def test_completing_inserts_the_path_and_one_space() -> None:
    text = "explain @ap please"
    at = mention_at(text, 11)
    assert at is not None
    assert complete(text, at, "src/app.py") == ("explain @src/app.py please", 20)
    at = mention_at("@my", 3)
    assert at is not None
    assert complete("@my", at, "my file.txt") == ('@"my file.txt" ', 15)
    assert mention_text("notes.") == '@"notes."'
    assert find_mentions(complete("@my", at, "my file.txt")[0])[0].path == "my file.txt"


# --- blocks ----------------------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tree(
        tmp_path / "work",
        {"src/app.py": "one\ntwo\nthree\n", "notes.md": "# notes", "my file.txt": "x\n"},
    )


def test_embedded_context_sends_each_file_once_with_its_text(workspace: Path) -> None:
    fs = ConfinedFs([workspace])
    text = 'see @src/app.py and @"my file.txt", again @src/app.py and @src/'
    prepared = build_prompt(text, workspace, fs, embedded=True)
    first, app, mine, folder = prepared.blocks
    assert isinstance(first, TextContentBlock) and first.text == text
    assert isinstance(app, EmbeddedResourceContentBlock)
    assert app.resource.uri == (workspace / "src/app.py").as_uri()
    assert app.resource.model_dump(exclude_none=True)["text"] == "one\ntwo\nthree\n"
    assert app.resource.mime_type == "text/x-python"
    assert isinstance(mine, EmbeddedResourceContentBlock)
    assert mine.resource.uri.endswith("/my%20file.txt")
    assert isinstance(folder, ResourceContentBlock) and folder.name == "src/"
    assert prepared.notices == []
    assert prepared.attached == [
        AttachedFile("src/app.py", 3),
        AttachedFile("my file.txt", 1),
        AttachedFile("src/", None),
    ]
    assert prepared.shown == (
        f"{text}\n\nattached: src/app.py (3 lines), my file.txt (1 line), src/ (link)"
    )


def test_without_embedded_context_every_mention_is_a_link_with_its_size(
    workspace: Path,
) -> None:
    prepared = build_prompt(
        "@src/app.py @notes.md", workspace, ConfinedFs([workspace]), embedded=False
    )
    links = prepared.blocks[1:]
    assert [(b.type, b.name, b.size) for b in links if isinstance(b, ResourceContentBlock)] == [
        ("resource_link", "src/app.py", 14),
        ("resource_link", "notes.md", 7),
    ]
    assert prepared.notices == []


def test_a_large_or_binary_file_is_a_link_with_a_notice(workspace: Path) -> None:
    (workspace / "big.log").write_text("x" * 300_000, encoding="utf-8")
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (workspace / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    prepared = build_prompt(
        "@big.log @image.png @latin1.txt", workspace, ConfinedFs([workspace]), embedded=True
    )
    assert [b.type for b in prepared.blocks] == [
        "text",
        "resource_link",
        "resource_link",
        "resource_link",
    ]
    assert prepared.notices == [
        "big.log is 293 KB, over the 256 KB cap: sent as a link",
        "image.png is not UTF-8 text: sent as a link",
        "latin1.txt is not UTF-8 text: sent as a link",
    ]


def test_paths_outside_the_workspace_and_missing_files_attach_nothing(
    workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("no", encoding="utf-8")
    (tmp_path / "other.txt").write_text("no", encoding="utf-8")
    (workspace / "sneaky.txt").symlink_to(tmp_path / "secret.txt")
    text = f"@../secret.txt @sneaky.txt @{tmp_path / 'other.txt'} @gone.py"
    prepared = build_prompt(text, workspace, ConfinedFs([workspace]), embedded=True)
    assert [b.type for b in prepared.blocks] == ["text"]
    assert prepared.notices == [
        "@../secret.txt is outside the workspace: not attached",
        "@sneaky.txt is outside the workspace: not attached",
        f"@{tmp_path / 'other.txt'} is outside the workspace: not attached",
        "@gone.py: no such file: not attached",
    ]
    assert prepared.shown == text


def test_embedded_context_is_used_only_when_the_agent_advertised_it() -> None:
    def init(caps: dict[str, object] | None) -> InitializeResponse:
        return InitializeResponse.model_validate({"protocolVersion": 1, "agentCapabilities": caps})

    assert embeds_context(init({"promptCapabilities": {"embeddedContext": True}}))
    assert not embeds_context(init({"promptCapabilities": {"embeddedContext": False}}))
    assert not embeds_context(init({}))
    assert not embeds_context(init(None))
    assert not embeds_context(None)


def test_a_file_name_that_is_not_utf8_is_not_attached_and_never_sent(workspace: Path) -> None:
    """`os.listdir` gives such a name with a surrogate escape, which JSON cannot carry: the
    mention gets a clear notice, the prompt's text says U+FFFD, and every block encodes."""
    name = os.fsdecode(b"bad\xff.txt")
    (workspace / name).write_text("x\n")
    prepared = build_prompt(
        f"look at @{name} and @notes.md", workspace, ConfinedFs([workspace]), embedded=True
    )
    assert prepared.notices == ["@bad\\xff.txt: the file name is not UTF-8: not attached"]
    assert [b.type for b in prepared.blocks] == ["text", "resource"]
    first = prepared.blocks[0]
    assert (
        isinstance(first, TextContentBlock) and first.text == "look at @bad\ufffd.txt and @notes.md"
    )
    for block in prepared.blocks:
        block.model_dump_json().encode("utf-8")
    prepared.shown.encode("utf-8")
