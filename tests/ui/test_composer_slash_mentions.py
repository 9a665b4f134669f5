"""The composer against the scripted agent: slash commands (live list, filter, Tab, hint, local
commands not sent) and @-mentions (picker over the index, chips, blocks sent per capability)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.widgets.completion_list import CompletionList
from acp_tui.ui.widgets.composer import Composer, MentionChips
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, write_scenario
from tests.ui.app_harness import (
    AppHarness,
    fixed_cwd,
    gate,
    plain,
    run_app,
    session_with_modes,
    upd,
)

COMMANDS = [
    {"name": "review", "description": "Review the [bold]diff[/bold]",
     "input": {"hint": "what to review"}},
    {"name": "init", "description": "Write AGENTS.md"},
]  # fmt: skip
MORE = [*COMMANDS, {"name": "compact", "description": "Summarise the conversation"}]


def listed(h: AppHarness) -> list[str]:
    completion = h.one(CompletionList)
    return [item.value for item in completion.items] if completion.is_open else []


def prompts(h: AppHarness) -> list[list[dict[str, Any]]]:
    return [f["params"]["prompt"] for f in h.sent_methods("session/prompt")]


async def test_slash_lists_agent_and_local_commands_live_filters_completes_and_hints(
    tmp_path: Path,
) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        upd("available_commands_update", availableCommands=COMMANDS),
        gate(),
        upd("available_commands_update", availableCommands=MORE),
        expect_prompt(),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: h.session.thread.commands, "the agent's commands")
        await h.type_prompt("/", send=False)
        await h.until(lambda: "review" in listed(h), "the slash list")
        local = ["/export", "/copy", "/editor", "/sessions", "/model", "/clear", "/rewind", "/all"]
        assert listed(h)[:2] == ["review", "init"], "the agent's own commands come first"
        assert listed(h)[2:] == local, "then acp-tui's (`//name`)"
        labels = [plain_option(h, i) for i in range(len(listed(h)))]
        assert labels[2].startswith("//export") and "acp-tui" in labels[2]
        assert labels[0].startswith("/review") and "agent" in labels[0]
        assert "Review the [bold]diff[/bold]" in labels[0], "descriptions are not markup"

        # live: a new update while the list is open
        assert await h.session.set_mode("ask") is None
        await h.until(lambda: "compact" in listed(h), "the updated command list")

        await h.pilot.press("r", "e")
        assert listed(h) == ["review", "/rewind"], "the agent's /review first, as all its own"
        await h.pilot.press("v")
        assert listed(h) == ["review"]
        await h.pilot.press("tab")
        prompt = h.one(PromptInput)
        assert prompt.text == "/review "
        assert not h.one(CompletionList).is_open
        assert prompt.suggestion == "what to review", "the input hint shows as placeholder"
        await h.pilot.press("right")
        assert prompt.text == "/review ", "the hint is never inserted"
        await h.type_prompt("the parser")
        await h.until(lambda: prompts(h), "the prompt to be sent")
        await h.settle()
        assert prompts(h) == [[{"type": "text", "text": "/review the parser"}]]


def plain_option(h: AppHarness, index: int) -> str:
    return str(h.one(CompletionList).get_option_at_index(index).prompt)


async def test_a_local_command_is_run_not_sent_and_escape_closes_the_list(tmp_path: Path) -> None:
    steps = [initialize_ok(), session_with_modes(), expect_prompt(), end_turn()]
    agent = write_scenario(tmp_path, steps)
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("/exp", send=False)
        await h.until(lambda: listed(h) == ["/export"], "the filtered list")
        await h.pilot.press("escape")
        assert not h.one(CompletionList).is_open
        await h.type_prompt("ort out.md")
        await h.until(lambda: (cwd / "out.md").exists(), "the export file")
        assert h.sent_methods("session/prompt") == []
        assert any("exported to" in n for n in h.notified)


CLASHING = [
    {"name": "clear", "description": "Clear the agent's context"},
    {"name": "export", "description": "Export the agent's transcript"},
    {"name": "model", "description": "Switch the agent's model", "input": {"hint": "name"}},
]


async def test_agent_commands_named_like_acp_tuis_reach_the_agent(tmp_path: Path) -> None:
    """The agent's `/model`, `/clear`, `/export` are sent to it as typed; acp-tui's own are
    `//model`, `//clear`, `//export`, and the list shows both, labelled."""
    steps = [
        initialize_ok(),
        session_with_modes(),
        upd("available_commands_update", availableCommands=CLASHING),
        expect_prompt(),
        end_turn(),
        expect_prompt(),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        await h.until(lambda: h.session.thread.commands, "the agent's commands")
        await h.type_prompt("/model", send=False)
        await h.until(lambda: listed(h) == ["model", "/model"], "both /model commands")
        labels = [plain_option(h, 0), plain_option(h, 1)]
        assert labels[0].startswith("/model ") and "agent" in labels[0]
        assert "Switch the agent's model" in labels[0]
        assert labels[1].startswith("//model ") and "acp-tui" in labels[1]
        await h.pilot.press("escape")
        await h.type_prompt(" x")
        await h.until(lambda: prompts(h), "/model x sent to the agent")
        await h.settle()
        assert prompts(h) == [[{"type": "text", "text": "/model x"}]]
        assert not any("choice of models" in n for n in h.notified), "acp-tui's /model ran"

        await h.type_prompt("/export")
        await h.until(lambda: len(prompts(h)) == 2, "/export sent to the agent")
        await h.settle()
        assert prompts(h)[1] == [{"type": "text", "text": "/export"}]
        assert not list(cwd.glob("**/*.md")), "acp-tui exported nothing"

        await h.type_prompt("//exp", send=False)
        await h.until(lambda: listed(h) == ["/export"], "acp-tui's own only after //")
        await h.pilot.press("tab")
        assert h.one(PromptInput).text == "//export "
        await h.type_prompt("out.md")
        await h.until(lambda: (cwd / "out.md").exists(), "acp-tui's export")
        assert len(prompts(h)) == 2, "//export is not sent"

        await h.type_prompt("//model")  # (this agent offers no models: acp-tui says so)
        await h.until(lambda: any("choice of models" in n for n in h.notified), "//model")
        assert len(prompts(h)) == 2


def project(tmp_path: Path) -> Path:
    cwd = fixed_cwd(tmp_path)
    (cwd / "notes.txt").write_text("first\nold line\nlast\n")
    (cwd / "src").mkdir()
    (cwd / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    (cwd / ".gitignore").write_text("build/\n*.log\n")
    (cwd / "build").mkdir()
    (cwd / "build" / "notes-copy.txt").write_text("ignored\n")
    (cwd / "debug.log").write_text("ignored\n")
    (cwd / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 8)
    return cwd


def mention_steps(**prompt_caps: bool) -> list[dict[str, Any]]:
    return [
        initialize_ok(promptCapabilities=prompt_caps),
        session_with_modes(),
        expect_prompt(),
        end_turn(),
    ]


async def test_mention_picker_is_gitignore_aware_completes_and_sends_embedded_resources(
    tmp_path: Path,
) -> None:
    cwd = project(tmp_path)
    agent = write_scenario(tmp_path, mention_steps(embeddedContext=True, image=True))
    async with run_app(agent.argv, cwd) as h:
        composer = h.one(Composer)
        await h.until(lambda: composer.index.built, "the file index")
        await h.type_prompt("look at @not", send=False)
        await h.until(lambda: listed(h), "the mention picker")
        assert listed(h) == ["notes.txt"], "build/ and *.log are ignored"
        await h.pilot.press("tab")
        prompt = h.one(PromptInput)
        assert prompt.text == "look at @notes.txt "
        await h.type_prompt("and @src/app.py:2-3 and @logo.png", send=False)
        await h.until(lambda: "logo.png" in plain(h.one(MentionChips)), "the chips")
        chips = plain(h.one(MentionChips))
        assert "notes.txt" in chips and "src/app.py:2-3" in chips
        await h.pilot.press("escape")  # close the picker the last mention opened
        await h.pilot.press("enter")
        await h.until(lambda: prompts(h), "the prompt to be sent")
        await h.settle()
        [sent] = prompts(h)
        assert sent[0] == {
            "type": "text",
            "text": "look at @notes.txt and @src/app.py:2-3 and @logo.png",
        }
        assert sent[1] == {
            "type": "resource",
            "resource": {"uri": (cwd / "notes.txt").as_uri(), "text": "first\nold line\nlast\n",
                         "mimeType": "text/plain"},
        }  # fmt: skip
        assert sent[2]["resource"]["text"] == "line 2\nline 3\n"
        assert sent[2]["resource"]["uri"].endswith("/src/app.py#L2-3")
        assert sent[3]["type"] == "image" and sent[3]["mimeType"] == "image/png"


async def test_without_embedded_context_mentions_are_links_and_images_are_refused(
    tmp_path: Path,
) -> None:
    cwd = project(tmp_path)
    agent = write_scenario(tmp_path, mention_steps())
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("@notes.txt @src/ @logo.png ok")
        await h.until(lambda: prompts(h), "the prompt to be sent")
        await h.settle()
        [sent] = prompts(h)
        assert sent[1] == {"type": "resource_link", "name": "notes.txt",
                           "uri": (cwd / "notes.txt").as_uri(), "size": 20,
                           "mimeType": "text/plain"}  # fmt: skip
        assert sent[2]["name"] == "src/" and sent[2]["type"] == "resource_link"
        assert sent[3]["type"] == "resource_link"
        assert any("cannot take images" in n for n in h.notified)


async def test_files_created_after_start_appear_in_the_picker(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    agent = write_scenario(tmp_path, mention_steps())
    async with run_app(agent.argv, cwd) as h:
        composer = h.one(Composer)
        await h.until(lambda: composer.index.built, "the file index")
        await h.type_prompt("@fresh", send=False)
        assert listed(h) == []
        (cwd / "fresh-file.md").write_text("new\n")
        await h.until(lambda: listed(h) == ["fresh-file.md"], "the new file in the picker")


async def test_a_pasted_image_path_becomes_an_image_block(tmp_path: Path) -> None:
    from textual import events

    cwd = project(tmp_path)
    agent = write_scenario(tmp_path, mention_steps(image=True))
    async with run_app(agent.argv, cwd) as h:
        prompt = h.one(PromptInput)
        prompt.focus()
        prompt.post_message(events.Paste(f"'{cwd / 'logo.png'}'"))
        await h.until(lambda: prompt.text, "the paste")
        assert prompt.text == "@logo.png "
        prompt.post_message(events.Paste(str(cwd / "notes.txt")))  # not media: pasted as is
        await h.until(lambda: "notes.txt" in prompt.text, "the second paste")
        assert prompt.text == f"@logo.png {cwd / 'notes.txt'}"
        await h.pilot.press("enter")
        await h.until(lambda: prompts(h), "the prompt to be sent")
        await h.settle()
        [sent] = prompts(h)
        assert [b["type"] for b in sent] == ["text", "image"]
        assert sent[1]["data"] == "iVBORw0KGgoAAAAAAAAAAA=="


async def test_a_slow_search_fills_the_picker_over_several_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A query with few matches in a big tree is read a slice per frame: the picker shows what
    it has at once and grows, at the end only, to the whole answer."""
    from acp_tui.composer import path_search
    from acp_tui.ui.widgets import composer as composer_module

    monkeypatch.setattr(path_search, "CHUNK_LINES", 1)  # one line per slice ...
    monkeypatch.setattr(composer_module, "SLICE", 0.0)  # ... and one slice per frame
    shown: list[list[str]] = []
    show_paths = CompletionList.show_paths

    def recording(self: CompletionList, paths: list[str], start: int) -> None:
        shown.append(list(paths))
        show_paths(self, paths, start)

    monkeypatch.setattr(CompletionList, "show_paths", recording)
    cwd = project(tmp_path)
    for n in range(12):
        (cwd / "zz" / f"k{n}").mkdir(parents=True)
        (cwd / "zz" / f"k{n}" / "leaf.txt").write_text("x")
    agent = write_scenario(tmp_path, mention_steps())
    async with run_app(agent.argv, cwd) as h:
        composer = h.one(Composer)
        await h.until(lambda: composer.index.built, "the file index")
        answer = path_search.PathSearch(composer.index.snapshot.lines).query("zkl")
        assert len(answer) == 12, "only scattered matches: z, k, l in order"
        prompt = h.one(PromptInput)
        prompt.focus()
        prompt.insert("@zkl")  # at once, as a paste: typed, "@zk" would have narrowed it
        await h.until(lambda: listed(h) == answer, "the whole answer")
        growth = [rows for rows in shown if rows and set(rows) <= set(answer)]  # "@zkl"
        assert len(growth) > 2, "shown in several steps"
        for before, after in itertools.pairwise(growth):
            assert after[: len(before)] == before, "rows only added at the end"


async def test_escape_stops_a_search_going_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_tui.composer import path_search
    from acp_tui.ui.widgets import composer as composer_module

    monkeypatch.setattr(path_search, "CHUNK_LINES", 1)
    monkeypatch.setattr(composer_module, "SLICE", 0.0)
    cwd = project(tmp_path)
    (cwd / "zz" / "k").mkdir(parents=True)
    (cwd / "zz" / "k" / "leaf.txt").write_text("x")
    (cwd / "filler").mkdir()
    for n in range(300):  # longer paths, read after the match: hundreds of frames to go
        (cwd / "filler" / f"{'n' * 30}{n}.txt").write_text("x")
    agent = write_scenario(tmp_path, mention_steps())
    async with run_app(agent.argv, cwd) as h:
        composer = h.one(Composer)
        await h.until(lambda: composer.index.built, "the file index")
        prompt = h.one(PromptInput)
        prompt.focus()
        prompt.insert("@zkl")
        await h.until(lambda: listed(h) == ["zz/k/leaf.txt"], "the first match")
        search = composer._search
        assert search is not None and not search.done
        await h.pilot.press("escape")
        for _ in range(5):
            await h.pilot.pause()
        assert not h.one(CompletionList).is_open, "the list stays closed"
        assert not search.done, "and the search stopped"
