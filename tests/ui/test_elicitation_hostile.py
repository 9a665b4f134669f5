"""A hostile elicitation: escape sequences, C1 bytes, bidi overrides and markup in every string
of the form (message, titles, descriptions, defaults, formats, choice titles) and of the URL mode
(message, URL). The exact bytes Textual writes carry none of it raw, and what goes back to the
agent stays exact: property names, choice values, the URL opened."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Any

import pytest

from acp_tui.safe_text import safe_line
from tests.agents.hostile import hostile, shown_tag
from tests.agents.scenarios import client_request, write_scenario
from tests.ui.app_harness import SID, fixed_cwd, run_app
from tests.ui.test_app_hostile import assert_clean_everywhere
from tests.ui.test_elicitation import answers, open_form, steps_with

ODD_NAME = "pick\x1b]0;T\x07 me"
"""A property name that is no widget id and carries an escape: sent back exactly."""
REGION = "eu\x1b]52;c;cHduZWQ=\x07"
"""A choice value with an escape: shown made safe, sent back exactly."""
URL = "https://example.invalid/login\x1b]0;PWNED\x07\u202e"

SCHEMA = {
    "type": "object",
    "title": hostile("schema-title"),
    "properties": {
        "name": {"type": "string", "title": hostile("name-title"),
                 "description": hostile("name-help"), "default": hostile("name-default"),
                 "format": hostile("name-format")},
        "count": {"type": "integer", "title": hostile("count-title"), "default": 2},
        ODD_NAME: {"type": "boolean", "default": True},
        "flag": {"type": "boolean", "title": hostile("flag-title"),
                 "description": hostile("flag-help")},
        "region": {"type": "string", "title": hostile("region-title"), "default": REGION,
                   "oneOf": [{"const": REGION, "title": hostile("region-eu")},
                             {"const": "us", "title": hostile("region-us")}]},
        "plain": {"type": "string", "enum": [hostile("plain-value")]},
        "features": {"type": "array", "title": hostile("features-title"),
                     "items": {"anyOf": [{"const": "logs", "title": hostile("logs-title")}]}},
    },
    "required": ["region"],
}  # fmt: skip


async def test_hostile_form_reaches_the_terminal_safe_and_answers_exact_values(
    tmp_path: Path,
) -> None:
    params = {"sessionId": SID, "mode": "form", "message": hostile("message"),
              "requestedSchema": SCHEMA}  # fmt: skip
    agent = write_scenario(tmp_path, steps_with(client_request("elicitation/create", params)))
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(140, 80)) as h:
        await open_form(h)
        seen = await assert_clean_everywhere(h, "elicitation form")
        tags = "message schema-title name-title name-help count-title flag-title flag-help"
        for tag in (*tags.split(), "region-title", "features-title", "logs-title"):
            assert shown_tag(tag) in seen, tag
        assert "pick␛]0;T␇ me" in seen, "a property without a title shows its name, made safe"
        # enter in the first text field goes to the next; from the last one it accepts
        await h.pilot.press("enter", "enter")
        await h.until(lambda: answers(agent), "the answer")
        assert h.app._exception is None
    content: dict[str, Any] = answers(agent)[0]["content"]
    assert content == {
        "name": safe_line(hostile("name-default")),  # what the user saw and left there
        "count": 2,
        ODD_NAME: True,
        "flag": False,
        "region": REGION,  # the agent's exact value
    }


async def test_hostile_url_elicitation_reaches_the_terminal_safe_and_opens_the_exact_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    def fake_open(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    params = {"sessionId": SID, "mode": "url", "message": hostile("url-message"), "url": URL,
              "elicitationId": "e-1"}  # fmt: skip
    agent = write_scenario(tmp_path, steps_with(client_request("elicitation/create", params)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await open_form(h)
        seen = await assert_clean_everywhere(h, "URL elicitation")
        assert shown_tag("url-message") in seen
        assert "https://example.invalid/login␛]0;PWNED␇" in seen
        await h.pilot.press("enter")  # "Open in browser" has the focus
        await h.until(lambda: answers(agent), "the answer")
    assert opened == [URL]
    assert answers(agent) == [{"action": "accept"}]
