"""Every `x-deserialize-default-on-error` / `x-deserialize-skip-invalid-items` marker in the pinned
schema, checked against our models: the schema is walked, not hand-copied, so a marker added to a
modelled definition (or a field we forgot) shows up here."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, TypeAdapter

from acp_tui.protocol import models
from tests.schema_check import schema_defs

DOE = "x-deserialize-default-on-error"
SKIP = "x-deserialize-skip-invalid-items"

# Definitions with markers that acp-tui does not model (it never receives or sends them).
NOT_MODELLED = {
    "BooleanConfigOptionCapabilities", "BooleanPropertySchema", "CancelRequestNotification",
    "CloseSessionRequest", "CloseSessionResponse", "CompleteElicitationNotification",
    "CreateElicitationRequest", "CreateElicitationResponse", "DeleteSessionRequest",
    "DeleteSessionResponse", "ElicitationFormCapabilities", "ElicitationSchema",
    "ElicitationSessionScope", "ElicitationUrlCapabilities", "EnumOption",
    "Error",  # acp_tui.protocol.errors
    "IntegerPropertySchema", "ListSessionsRequest",  "LogoutCapabilities",
    "LogoutRequest", "LogoutResponse", "MultiSelectPropertySchema", "NumberPropertySchema",
    "ResumeSessionRequest", "SessionAdditionalDirectoriesCapabilities",
    "SessionCloseCapabilities", "SessionDeleteCapabilities",
    "SessionListCapabilities", "SessionResumeCapabilities", "StringMultiSelectItems",
    "StringPropertySchema", "TitledMultiSelectItems",
}  # fmt: skip
# Definitions whose model adds the `sessionUpdate` tag or merges a parent's fields.
UNSTABLE_MODELLED = [
    "PlanItems", "PlanFile", "PlanMarkdown", "PlanRemoved", "PlanUpdate",
    "SubagentUpdate", "SubagentSessionCapabilities", "SessionMessage", "SessionMessageChunk",
    "Usage", "AuthAccount", "AuthStatusUpdateNotification", "AuthStatusResponse",
    "MessageMcpRequest", "ClientCapabilities",
]  # fmt: skip

# Candidate values that break most types; the first one the schema rejects is used.
INVALID_CANDIDATES: list[Any] = [{"bad": "object"}, "bad-string", 1.5, [{"bad": 1}]]


@cache
def _defs(unstable: bool) -> dict[str, Any]:
    return schema_defs(unstable=unstable)  # type: ignore[no-any-return]


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _minimal(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The smallest value valid under `schema` (required fields only, first union branch)."""
    schema = _resolve(schema, defs)
    if "const" in schema:
        return schema["const"]
    result: Any = None
    for sub in schema.get("allOf", []):
        value = _minimal(sub, defs)
        result = {**(result or {}), **value} if isinstance(value, dict) else value
    branches = schema.get("oneOf") or schema.get("anyOf")
    if branches:
        branch = next(b for b in branches if b.get("type") != "null")
        value = _minimal(branch, defs)
        if not isinstance(value, dict):
            return value
        result = {**(result or {}), **value}
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        obj = dict(result or {})
        for name in schema.get("required", []):
            if name not in obj:
                obj[name] = _minimal(schema["properties"][name], defs)
        return obj
    if result is not None:
        return result
    simple: dict[Any, Any] = {"string": "x", "integer": 0, "number": 0, "boolean": False}
    return [] if kind == "array" else simple.get(kind)


def _invalid(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    validator = Draft202012Validator({**schema, "$defs": defs})
    for candidate in INVALID_CANDIDATES:
        if not validator.is_valid(candidate):
            return candidate
    return pytest.skip("no value is invalid for this property")


def _field_value(obj: Any, wire_name: str) -> Any:
    assert isinstance(obj, BaseModel)
    for name, info in type(obj).model_fields.items():
        if wire_name in (info.alias, name):
            return getattr(obj, name)
    raise AssertionError(f"{type(obj).__name__} has no field for {wire_name!r}")


def _marked(unstable: bool, names: list[str] | None = None) -> list[tuple[str, str, str, bool]]:
    """(definition, property, marker, unstable) for every marked property of modelled defs."""
    cases = []
    for def_name, schema in _defs(unstable).items():
        if names is not None and def_name not in names:
            continue
        for prop, sub in schema.get("properties", {}).items():
            for marker in (DOE, SKIP):
                if sub.get(marker) and def_name not in NOT_MODELLED:
                    cases.append((def_name, prop, marker, unstable))
    return cases


CASES = _marked(False) + _marked(True, UNSTABLE_MODELLED)


def _adapter(def_name: str) -> TypeAdapter[Any]:
    target = getattr(models, def_name, None)
    assert target is not None, f"schema definition {def_name} has no model (or add to NOT_MODELLED)"
    return TypeAdapter(target)


@pytest.mark.parametrize(
    ("def_name", "prop", "marker", "unstable"),
    CASES,
    ids=[f"{d}.{p}:{'default' if m == DOE else 'skip'}" for d, p, m, _ in CASES],
)
def test_marker_is_honoured(def_name: str, prop: str, marker: str, unstable: bool) -> None:
    defs = _defs(unstable)
    schema = defs[def_name]
    adapter = _adapter(def_name)
    base = _minimal(schema, defs)
    base.pop(prop, None)
    without = adapter.validate_python(base)
    prop_schema = schema["properties"][prop]
    if marker == DOE:
        bad = _invalid(prop_schema, defs)
        parsed = adapter.validate_python({**base, prop: bad})
        assert _field_value(parsed, prop) == _field_value(without, prop)
    else:
        items = prop_schema["items"]
        good = _minimal(items, defs)
        bad = _invalid(items, defs)
        parsed = adapter.validate_python({**base, prop: [bad, good, bad]})
        expected = adapter.validate_python({**base, prop: [good]})
        assert _field_value(parsed, prop) == _field_value(expected, prop)
        assert len(_field_value(parsed, prop)) == 1


def test_every_marked_definition_is_modelled_or_listed() -> None:
    marked = {d for d, *_ in _marked(False)}
    missing = sorted(d for d in marked if getattr(models, d, None) is None)
    assert missing == []
    assert [d for d in sorted(NOT_MODELLED) if getattr(models, d, None) is not None] == []
    assert len(CASES) > 150


def test_minimal_values_are_valid_examples() -> None:
    """The generator above produces schema-valid values (else the marker tests prove little)."""
    defs = _defs(False)
    for def_name in sorted({d for d, *_ in _marked(False)}):
        value = _minimal(defs[def_name], defs)
        Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": defs}).validate(value)
