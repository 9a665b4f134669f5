"""The agent's `initialize` and `session/new` answers read without building their validators,
when they are plain; anything else is left to the models.

Validating an answer with its model first builds the model's validator (its schema): about
7 ms of CPU for `InitializeResponse` (its capabilities are a dozen nested models with lenient
fields), 2 ms for `NewSessionResponse`, on the way to "ready", for answers that are almost
always plain. `plain_initialize` and `plain_new_session` take an answer only when every value in
it has exactly the type its field wants (a `bool` where a flag is, a `str` where a name is, an
object or null where a capability is; snake_case names, repairs, terminal logins, modes and
config options are not plain) and build the very models validation would build
(`model_construct`: agent text made safe by `safe_text` as `DisplayStr` does, unknown fields
kept as extra, the same fields set, defaults for the rest); for any other answer they return
None and the caller validates it with the model as before. They never accept what the model
would reject: `tests/unit/test_plain_answers.py` feeds both hostile and malformed answers and
checks they agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from acp_tui.protocol.models import (
    AgentAuthCapabilities,
    AgentCapabilities,
    AuthMethodAgent,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    SessionCapabilities,
)
from acp_tui.safe_text import safe_text

M = TypeVar("M", bound=BaseModel)
Reader = Callable[[Any], Any]


class NotPlain(Exception):
    """A value the plain reading does not take: the model reads the answer."""


def plain_initialize(result: Any) -> InitializeResponse | None:
    """The `initialize` answer as `InitializeResponse.model_validate` would read it, or None
    when it is not plain (validate it with the model)."""
    try:
        return build(InitializeResponse, result)
    except NotPlain:
        return None


def plain_new_session(result: Any) -> NewSessionResponse | None:
    """The `session/new` answer as `NewSessionResponse.model_validate` would read it, or None
    when it is not plain (modes or config options, say: validate it with the model)."""
    try:
        return build(NewSessionResponse, result)
    except NotPlain:
        return None


def no_capabilities() -> AgentCapabilities:
    """`AgentCapabilities()`, what a session knows before the agent answers, built without
    its validator."""
    return build(AgentCapabilities, {})


def build(model: type[M], raw: Any) -> M:
    """`raw` as the `model` validation makes of it; raises `NotPlain`."""
    if type(raw) is not dict:
        raise NotPlain
    readers = READERS[model]
    fields = model.model_fields
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        known = readers.get(key)
        if known is not None:
            name, read = known
            values[name] = read(value)
        elif type(key) is not str or key in fields:  # (a field's own name: populate_by_name)
            raise NotPlain
        else:
            extra[key] = value
    given = {*values, *extra}  # (as validation's: the extra fields count as set)
    for name, field in fields.items():
        if name not in values:
            values[name] = _default(field)
    built = model.model_construct(given, **values)
    if extra:
        assert built.model_extra is not None  # (extra="allow": the models keep unknown fields)
        built.model_extra.update(extra)
    return built


def _default(field: FieldInfo) -> Any:
    """A field's default, as validation fills it in (a model default built plainly too)."""
    if field.is_required():
        raise NotPlain  # (the model says what is missing)
    factory = field.default_factory
    if factory is None:
        return field.default
    if factory is list or factory is dict:
        return factory()
    if isinstance(factory, type) and factory in READERS:
        return build(factory, {})
    raise NotPlain


def _flag(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise NotPlain


def _integer(value: Any) -> int:
    if type(value) is int:
        return value
    raise NotPlain


def _exact(value: Any) -> str:
    """A string kept byte-exact (an id)."""
    if type(value) is str:
        return value
    raise NotPlain


def _display(value: Any) -> str:
    """A `DisplayStr`: made safe for the terminal."""
    if type(value) is str:
        return safe_text(value)
    raise NotPlain


def _optional_display(value: Any) -> str | None:
    return None if value is None else _display(value)


def _object(value: Any) -> dict[str, Any] | None:
    """An object kept as sent (a capability, `_meta`), or null."""
    if value is None:
        return None
    if type(value) is dict and all(type(key) is str for key in value):
        return dict(value)
    raise NotPlain


def _null(value: Any) -> None:
    if value is None:
        return None
    raise NotPlain


def _model(model: type[BaseModel]) -> Reader:
    return lambda value: build(model, value)


def _optional_model(model: type[BaseModel]) -> Reader:
    return lambda value: None if value is None else build(model, value)


def _auth_methods(value: Any) -> list[AuthMethodAgent]:
    """Auth methods the agent runs itself (with a `type`: a terminal login, or another kind of
    method: not plain)."""
    if type(value) is not list:
        raise NotPlain
    methods = []
    for item in value:
        if type(item) is not dict or "type" in item:
            raise NotPlain
        methods.append(build(AuthMethodAgent, item))
    return methods


def _readers(model: type[BaseModel], **by_name: Reader) -> dict[str, tuple[str, Reader]]:
    """Each field's reader by its wire name (every model has `_meta`: an object or null)."""
    by_name.setdefault("meta", _object)
    return {model.model_fields[name].alias or name: (name, read) for name, read in by_name.items()}


READERS: Mapping[type[BaseModel], Mapping[str, tuple[str, Reader]]] = {
    PromptCapabilities: _readers(
        PromptCapabilities, image=_flag, audio=_flag, embedded_context=_flag
    ),
    McpCapabilities: _readers(McpCapabilities, http=_flag, sse=_flag),
    SessionCapabilities: _readers(
        SessionCapabilities,
        **{name: _object for name in SessionCapabilities.model_fields if name != "meta"},
    ),
    AgentAuthCapabilities: _readers(AgentAuthCapabilities, logout=_object, status=_object),
    AgentCapabilities: _readers(
        AgentCapabilities,
        load_session=_flag,
        prompt_capabilities=_model(PromptCapabilities),
        mcp_capabilities=_model(McpCapabilities),
        session_capabilities=_model(SessionCapabilities),
        auth=_model(AgentAuthCapabilities),
        providers=_object,
    ),
    Implementation: _readers(
        Implementation, name=_display, version=_display, title=_optional_display
    ),
    AuthMethodAgent: _readers(
        AuthMethodAgent, id=_exact, name=_display, description=_optional_display
    ),
    InitializeResponse: _readers(
        InitializeResponse,
        protocol_version=_integer,
        agent_capabilities=_model(AgentCapabilities),
        auth_methods=_auth_methods,
        agent_info=_optional_model(Implementation),
    ),
    NewSessionResponse: _readers(
        NewSessionResponse, session_id=_exact, modes=_null, config_options=_null
    ),
}
"""How each field of the models read plainly is read, by its wire name (a test checks every
field of each has one)."""
