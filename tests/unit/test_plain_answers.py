"""The plain reading of `initialize` and `session/new` answers agrees with the models: on plain
answers it builds what validation builds (fields, fields set, extras, safe text), and it never
takes an answer the model rejects or repairs; fed hostile and malformed answers, the two agree."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from acp_tui.protocol.models import AgentCapabilities, InitializeResponse, NewSessionResponse
from acp_tui.protocol.models._base import recording_repairs
from acp_tui.protocol.plain_answers import (
    READERS,
    no_capabilities,
    plain_initialize,
    plain_new_session,
)

PIPE_AGENT = {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}, "authMethods": []}
FULL = {
    "protocolVersion": 1,
    "agentCapabilities": {
        "loadSession": True,
        "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": False, "_meta": {"x": 1}},
        "sessionCapabilities": {"list": {}, "resume": {}, "fork": {}, "close": None},
        "auth": {"logout": {}},
        "providers": None,
        "_meta": {"claudeCode": {"promptQueueing": True}},
        "unstableThing": [1, 2],
    },
    "authMethods": [
        {"id": "login", "name": "Log in \x1b[31mnow\u202e", "description": "Run `x /login`"},
        {"id": "key", "name": "API key", "description": None, "_meta": {"env": "KEY"}},
    ],
    "agentInfo": {"name": "agent\x07", "version": "1.0", "title": "Agent"},
    "_meta": None,
}
NEW_SESSIONS: list[Any] = [
    {"sessionId": "s"},
    {"sessionId": "s-\x1b", "_meta": {"a": 1}, "models": {"currentModelId": "m"}},
    {"sessionId": "s", "modes": None, "configOptions": None},
]
ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, 2, -1, 1.0, 1.5, "", "x", "1", "true", "\x1b[2J", [], [1], {},
    {"a": 1}, {"id": "i", "name": "n"}, {1: 2},
]  # fmt: skip


def paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value: object keys and list indexes, depth first."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*at, index))


def changed(value: Any, at: tuple[Any, ...], how: str, new: Any = None) -> Any:
    """A copy of `value` with the place `at` replaced by `new`, dropped, or given a new key."""
    if not at:
        return new if how == "set" else value
    result = copy.deepcopy(value)
    parent = result
    for part in at[:-1]:
        parent = parent[part]
    last = at[-1]
    if how == "set":
        parent[last] = new
    elif how == "drop":
        del parent[last]
    elif how == "add" and isinstance(parent[last], dict):
        parent[last]["load_session" if "loadSession" in parent[last] else "unknownField"] = 1
    return result


def hostile(base: Any) -> Iterator[Any]:
    """`base` with every value replaced by every odd value, every key dropped, and fields
    added (unknown ones and snake_case names of known ones)."""
    for at in paths(base):
        for odd in ODD_VALUES:
            yield changed(base, at, "set", odd)
        if at:
            yield changed(base, at, "drop")
        yield changed(base, at, "add")


def same(plain: Any, validated: Any, where: str = "answer") -> None:
    """Equal as the session sees it: types, values, fields set and extras, all the way down."""
    assert type(plain) is type(validated), where
    if isinstance(plain, BaseModel):
        assert plain.model_fields_set == validated.model_fields_set, where
        assert plain.model_extra == validated.model_extra, where
        for name in type(plain).model_fields:
            same(getattr(plain, name), getattr(validated, name), f"{where}.{name}")
        assert plain == validated, where
    elif isinstance(plain, list):
        assert len(plain) == len(validated), where
        for index, (one, other) in enumerate(zip(plain, validated, strict=True)):
            same(one, other, f"{where}[{index}]")
    else:
        assert plain == validated, where


def agree(model: type[BaseModel], plain: BaseModel | None, raw: Any) -> bool:
    """Whether the plain reading took `raw`; fails if it took what the model rejects or
    repairs, or built anything else than the model."""
    with recording_repairs() as repairs:
        try:
            validated = model.model_validate(raw)
        except ValidationError:
            validated = None
    if plain is None:
        return False
    assert validated is not None, f"the plain reading took what the model rejects: {raw!r}"
    assert not repairs, f"the plain reading took what the model repairs: {raw!r}"
    same(plain, validated)
    return True


@pytest.mark.parametrize("base", [PIPE_AGENT, FULL], ids=["pipe-agent", "full"])
def test_initialize_answers_read_plainly_are_what_the_model_reads(base: dict[str, Any]) -> None:
    assert agree(InitializeResponse, plain_initialize(base), base)
    taken = sum(agree(InitializeResponse, plain_initialize(raw), raw) for raw in hostile(base))
    assert taken > 10  # (the plain variants: an unknown field, a dropped optional one, ...)


def test_a_plain_initialize_answer_has_its_text_made_safe_and_unknown_fields_kept() -> None:
    response = plain_initialize(FULL)
    assert response is not None
    assert (
        response.auth_methods[0].name
        == InitializeResponse.model_validate(FULL).auth_methods[0].name
    )
    assert "\x1b" not in response.auth_methods[0].name and "\u202e" not in (
        response.auth_methods[0].name
    )
    assert response.agent_capabilities.model_extra == {"unstableThing": [1, 2]}
    assert response.agent_capabilities.session_capabilities.model_extra == {"fork": {}}


@pytest.mark.parametrize("base", NEW_SESSIONS)
def test_new_session_answers_read_plainly_are_what_the_model_reads(base: dict[str, Any]) -> None:
    assert agree(NewSessionResponse, plain_new_session(base), base)
    for raw in hostile(base):
        agree(NewSessionResponse, plain_new_session(raw), raw)


def test_answers_with_modes_or_config_options_are_left_to_the_model() -> None:
    modes = {"currentModeId": "a", "availableModes": [{"id": "a", "name": "A"}]}
    assert plain_new_session({"sessionId": "s", "modes": modes}) is None
    assert plain_new_session({"sessionId": "s", "configOptions": []}) is None
    terminal = {"id": "t", "name": "T", "type": "terminal", "args": ["login"]}
    assert plain_initialize({"protocolVersion": 1, "authMethods": [terminal]}) is None


def test_no_capabilities_are_the_models_defaults() -> None:
    same(no_capabilities(), AgentCapabilities())


def test_every_field_of_the_models_read_plainly_has_a_reader() -> None:
    for model, readers in READERS.items():
        wire_names = {field.alias or name for name, field in model.model_fields.items()}
        assert set(readers) == wire_names, model.__name__


PROBE = """
import json, sys
from acp_tui.client.handshake import read_initialize_result
from acp_tui.protocol.models import AgentCapabilities, InitializeResponse, NewSessionResponse
from acp_tui.protocol.plain_answers import plain_new_session
hello = read_initialize_result(json.loads(sys.argv[1]))
assert plain_new_session({"sessionId": "s"}) is not None
print(hello.capabilities.load_session, InitializeResponse.__pydantic_complete__,
      NewSessionResponse.__pydantic_complete__)
"""


def test_a_plain_handshake_builds_no_validator() -> None:
    import json

    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(PIPE_AGENT)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "False"]
