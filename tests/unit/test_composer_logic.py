"""The composer's pure parts: slash parsing/filtering, mentions, .gitignore, the file index,
prompt blocks, export fences, clipboard and notification sequences."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from acp_tui.composer.file_index import FileIndex
from acp_tui.composer.mentions import find_mentions, mention_at, mention_text
from acp_tui.composer.prompt_content import PromptCapabilities, ReadConsent, build_prompt
from acp_tui.composer.slash import (
    SlashCommand,
    SlashInput,
    completing_name,
    filter_commands,
    hint_for,
    local_command,
    merged,
    parse_slash,
)
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import ALLOW_ONCE, DENY, OUTSIDE_CWD, PathPolicy
from acp_tui.host.gitignore import GitignoreRules
from acp_tui.output.clipboard import OSC52, PYPERCLIP, copy_text, osc52
from acp_tui.output.export import fence
from acp_tui.output.terminal_sequences import desktop_notification, wrap_for_tmux


def test_slash_parsing_filtering_merging_and_hints() -> None:
    assert parse_slash("/export out.md") is not None
    assert parse_slash("/export out.md").args == "out.md"  # type: ignore[union-attr]
    assert parse_slash("/") is None and parse_slash("hi /x") is None
    assert completing_name("/ex", 3) == "ex" and completing_name("/a\n/b", 5) is None
    commands = [SlashCommand("init", ""), SlashCommand("review", "", "what"),
                SlashCommand("preview", "")]  # fmt: skip
    assert [c.name for c in filter_commands(commands, "rev")] == ["review", "preview"]
    assert [c.name for c in filter_commands(commands, "rw")] == ["review", "preview"]
    local = [SlashCommand("review", "local one", local=True)]
    assert [c.typed for c in merged(commands, local)] == [
        "/init",
        "/review",
        "/preview",
        "//review",
    ], "the agent's first; a shared name keeps both: the agent's /review and acp-tui's //review"
    assert filter_commands(commands, "review x") == []
    edits = [SlashCommand("editor", "", local=True), SlashCommand("edit", "")]
    assert [c.name for c in filter_commands(edits, "edit")] == ["edit", "editor"]
    words = [SlashCommand("mcp list", ""), SlashCommand("mcp add", ""), SlashCommand("mcp", "")]
    assert [c.name for c in filter_commands(words, "mcp ")] == ["mcp list", "mcp add"]
    assert filter_commands(words, "mcp list ") == [], "typed out: the list closes"
    assert hint_for("/review ", commands) == "what"
    assert hint_for("/review x", commands) is None


AGENT = [SlashCommand("clear", "agent's"), SlashCommand("model", "agent's", "name"),
         SlashCommand("mcp list", "")]  # fmt: skip
LOCAL = [SlashCommand("export", "", "[path]", local=True),
         SlashCommand("model", "", local=True), SlashCommand("clear", "", local=True),
         SlashCommand("mcp", "", local=True)]  # fmt: skip


def test_an_agent_command_keeps_its_name_and_acp_tuis_own_have_a_form_of_their_own() -> None:
    assert local_command("/model x", LOCAL, AGENT) is None, "/model is the agent's"
    assert local_command("/clear", LOCAL, AGENT) is None
    assert local_command("/mcp add", LOCAL, AGENT) is None, "the agent has /mcp list"
    assert local_command("//model", LOCAL, AGENT) == SlashInput("model", "")
    assert local_command("//clear now", LOCAL, AGENT) == SlashInput("clear", "now")
    assert local_command("/export out.md", LOCAL, AGENT) == SlashInput("export", "out.md")
    assert local_command("//export out.md", LOCAL, AGENT) == SlashInput("export", "out.md")
    assert local_command("//review", LOCAL, AGENT) is None, "not one of acp-tui's: sent"
    assert local_command("hello", LOCAL, AGENT) is None
    both = merged(AGENT, LOCAL)
    assert [c.typed for c in filter_commands(both, "model")] == ["/model", "//model"]
    assert [c.typed for c in filter_commands(both, "/")] == [c.typed for c in LOCAL]
    assert [c.typed for c in filter_commands(both, "/mo")] == ["//model"]
    assert hint_for("/model ", both) == "name"
    assert hint_for("//export ", both) == "[path]"
    assert hint_for("/export ", both) == "[path]", "no agent export: /export is acp-tui's"


def test_mentions_with_lines_quotes_and_not_emails() -> None:
    found = find_mentions('see @src/a.py:10-4, a@b.com and (@"my file.txt").')
    assert [(m.path, m.start_line, m.end_line) for m in found] == [
        ("src/a.py", 4, 10),
        ("my file.txt", None, None),
    ]
    assert mention_at("x @sr", 5) == (2, "sr") and mention_at("a@b", 3) is None
    assert mention_text("a b.txt") == '@"a b.txt"'


def test_gitignore_basics() -> None:
    rules = GitignoreRules("# c\nbuild/\n*.log\n!keep.log\n/top.txt\ndocs/**/*.tmp\n")
    assert rules.verdict("build", True) is True and rules.verdict("build", False) is None
    assert rules.verdict("a/b/x.log", False) is True
    assert rules.verdict("keep.log", False) is False
    assert rules.verdict("top.txt", False) is True and rules.verdict("a/top.txt", False) is None
    assert rules.verdict("docs/a/b/c.tmp", False) is True


def make_tree(root: Path) -> None:
    (root / "a" / "deep").mkdir(parents=True)
    (root / "a" / "deep" / "Parser.py").write_text("x")
    (root / "a" / "deep" / "x.pyc").write_text("x")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "parser.js").write_text("x")
    (root / "a" / ".gitignore").write_text("*.pyc\n")
    (root / ".gitignore").write_text("node_modules/\n")
    (root / "parse.md").write_text("x")


@pytest.mark.parametrize("git", [False, True])
def test_file_index_walk_and_git_agree_and_rank(tmp_path: Path, git: bool) -> None:
    make_tree(tmp_path)
    if git:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    index = FileIndex(tmp_path)
    index.build()
    assert index.git is git
    assert index.query("parse") == ["parse.md", "a/deep/Parser.py"]
    assert "a/" in index.query("a") and "a/deep/" in index.query("deep")
    assert index.query("pyc") == []
    (tmp_path / "a" / "parser2.py").write_text("x")
    (tmp_path / "a" / "ignored.pyc").write_text("x")
    (tmp_path / "parse.md").unlink()
    index.apply_changes(
        [str(tmp_path / "a" / "parser2.py"), str(tmp_path / "a" / "ignored.pyc")],
        [str(tmp_path / "parse.md")],
    )
    assert index.query("parse") == ["a/parser2.py", "a/deep/Parser.py"]


def read_consent(policy: PathPolicy) -> ReadConsent:
    """The session's consent for mentions (as `PromptTurns` wires it)."""
    return lambda requested, real, links: policy.check_resolved(
        requested, real, "read", links=links
    )


async def test_outside_mentions_ask_and_a_refusal_is_reported(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("s")
    denying = FixedAnswer(DENY)
    consent = read_consent(PathPolicy(cwd, denying))
    caps = PromptCapabilities(embedded_context=True)
    built = await build_prompt(f"@{outside} @../secret.txt @nothere.txt", cwd, caps, consent)
    assert built.blocks == [{"type": "text", "text": f"@{outside} @../secret.txt @nothere.txt"}]
    assert [q.data["resolved"] for q in denying.asked] == [str(outside), str(outside)]
    assert {q.kind for q in denying.asked} == {OUTSIDE_CWD}
    assert "not attached" in built.problems[0]
    assert "denied permission to read it" in built.problems[0]
    assert built.problems[2] == "@nothere.txt: no such file, sent as plain text"

    allowing = FixedAnswer(ALLOW_ONCE)
    built = await build_prompt(f"@{outside}", cwd, caps, read_consent(PathPolicy(cwd, allowing)))
    assert built.blocks[1]["resource"]["text"] == "s"
    assert len(allowing.asked) == 1


async def test_large_files_become_links(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 100)
    never = FixedAnswer(DENY)
    caps = PromptCapabilities(embedded_context=True)
    consent = read_consent(PathPolicy(tmp_path, never))
    built = await build_prompt("@big.txt", tmp_path, caps, consent, max_embed_bytes=50)
    assert built.blocks[1]["type"] == "resource_link" and built.blocks[1]["size"] == 100
    assert "larger than 50 bytes" in built.problems[0]
    assert never.asked == [], "inside paths are not asked about"


async def test_line_ranges_and_directory_listings_are_read_bounded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\nthree\n" + b"x" * 200 + b"\nlast\n")
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "z.txt").write_text("z")
    (tmp_path / "d" / "sub" / "b.txt").write_text("b")
    (tmp_path / "d" / ".git").mkdir()
    (tmp_path / "d" / ".git" / "HEAD").write_text("h")
    consent = read_consent(PathPolicy(tmp_path, FixedAnswer(DENY)))
    caps = PromptCapabilities(embedded_context=True)
    text = "@a.txt:2-3 @a.txt:4 @a.txt:5 @a.txt:9 @d/"
    built = await build_prompt(text, tmp_path, caps, consent, max_embed_bytes=100)
    resources = [b["resource"]["text"] for b in built.blocks[1:] if b["type"] == "resource"]
    assert resources == ["two\nthree\n", "last\n", "", "z.txt\nsub/b.txt"]
    assert built.blocks[2]["type"] == "resource_link", "line 4 is over the cap: a link"


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fence("a ```` b").startswith("`````\n")


def test_clipboard_pyperclip_then_osc52() -> None:
    written: list[str] = []
    copied: list[str] = []
    assert copy_text("hi", written.append, environ={}, pyperclip_copy=copied.append) == PYPERCLIP
    assert copied == ["hi"] and written == []

    def broken(text: str) -> None:
        raise RuntimeError("no clipboard mechanism")

    assert copy_text("hi", written.append, environ={"TMUX": "x"}, pyperclip_copy=broken) == OSC52
    assert written == [wrap_for_tmux(osc52("hi"))]
    assert osc52("hi") == "\x1b]52;c;aGk=\x07"
    ssh = {"SSH_CONNECTION": "1 2 3 4"}
    assert copy_text("x", written.append, environ=ssh, pyperclip_copy=copied.append) == OSC52


def test_notification_text_cannot_escape_its_sequence() -> None:
    sequence = desktop_notification("agent;x", "done\x07\x1b]0;evil\x07")
    assert sequence.count("\x07") == 2 and sequence.count("\x1b") == 2
    assert sequence.startswith("\x1b]777;notify;agent,x;done")
    assert "\x1b]9;agent;x: done" in sequence


def test_elicitation_schema_fields_and_validation() -> None:
    from acp_tui.client.elicitation import parse_fields, validate_form

    fields = parse_fields({
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date"},
            "tags": {"type": "array", "maxItems": 1,
                     "items": {"anyOf": [{"const": "a", "title": "A"},
                                         {"const": "b", "title": "B"}]}},
            "ratio": {"type": "number", "minimum": 0.5},
            "odd": {"type": "object"},
        },
        "required": ["when"],
    })  # fmt: skip
    assert [(f.name, f.kind) for f in fields] == [("when", "string"), ("tags", "multi"),
                                                  ("ratio", "number")]  # fmt: skip
    assert [c.title for c in fields[1].choices] == ["A", "B"]
    content, errors = validate_form(fields, {"when": "2026-13-01", "tags": ["a", "b"],
                                             "ratio": "0.25"})  # fmt: skip
    assert errors == {"when": "not a date (YYYY-MM-DD)", "tags": "choose at most 1",
                      "ratio": "at least 0.5"}  # fmt: skip
    content, errors = validate_form(fields, {"when": "2026-12-01", "tags": [], "ratio": "1.5"})
    assert errors == {} and content == {"when": "2026-12-01", "ratio": 1.5}
