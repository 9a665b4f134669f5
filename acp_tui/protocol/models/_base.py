"""The base every ACP model shares, and the schema's leniency markers as pydantic validators.

The ACP schema marks fields with `x-deserialize-default-on-error` (an invalid value falls back to
the field's default instead of failing the message) and lists with
`x-deserialize-skip-invalid-items` (a bad item is dropped, not the message). `DefaultOnError` and
`SkipInvalidItems` implement those markers; use them as `Annotated` metadata, skip-items first:

    content: Annotated[list[Foo], SkipInvalidItems, DefaultOnError] = Field(default_factory=list)

Fields meant for display (names, titles, descriptions, message text, paths shown to the user) are
`DisplayStr`: made safe for the terminal when the model is validated (`acp_tui.safe_text`), so
every layer above sees only safe text. Values that must stay byte-exact (ids echoed back to the
agent, file contents to write, terminal commands) stay plain `str`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticUseDefault

from acp_tui.safe_text import safe_text


@dataclass(frozen=True, slots=True)
class Repair:
    """Something a lenient model tolerated: `kind` is "defaulted", "dropped", "unknown" or
    "invalid"; `where` names the field or variant; `why` is the validation message."""

    kind: str
    where: str
    why: str = ""


_repairs: ContextVar[list[Repair] | None] = ContextVar("acp_repairs", default=None)


@contextmanager
def recording_repairs() -> Iterator[list[Repair]]:
    """Collect what the models repair while validating inside this block (for conformance)."""
    found: list[Repair] = []
    token = _repairs.set(found)
    try:
        yield found
    finally:
        _repairs.reset(token)


def note_repair(kind: str, where: str, why: str = "") -> None:
    """Record a repair if someone is recording (costs one context lookup otherwise)."""
    found = _repairs.get()
    if found is not None:
        found.append(Repair(kind, where, why))


def _first_error(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    return f"{first['msg']} (got {type(first.get('input')).__name__})"


def _default_on_error(
    value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
) -> Any:
    try:
        return handler(value)
    except ValidationError as error:
        note_repair("defaulted", info.field_name or "?", _first_error(error))
        raise PydanticUseDefault() from None


def _skip_invalid_items(
    value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
) -> Any:
    try:
        return handler(value)
    except ValidationError:
        if not isinstance(value, list):
            raise
        kept: list[Any] = []
        for item in value:
            try:
                kept.extend(handler([item]))
            except ValidationError as error:
                note_repair("dropped", f"an item of {info.field_name or '?'}", _first_error(error))
                continue
        return kept


DefaultOnError = WrapValidator(_default_on_error)
"""`x-deserialize-default-on-error`: an invalid value becomes the field's default."""

SkipInvalidItems = WrapValidator(_skip_invalid_items)
"""`x-deserialize-skip-invalid-items`: invalid list items are dropped, valid ones kept."""

Meta = Annotated[dict[str, Any] | None, DefaultOnError]
"""The `_meta` extension object (kept verbatim; an invalid one is dropped)."""

DisplayStr = Annotated[str, AfterValidator(safe_text)]
"""Text for display: controls, C1 and bidi overrides shown as visible symbols (`safe_text`)."""

OptStr = Annotated[str | None, DefaultOnError]
OptDisplayStr = Annotated[DisplayStr | None, DefaultOnError]
OptUInt = Annotated[NonNegativeInt | None, DefaultOnError]
OptFloat = Annotated[float | None, DefaultOnError]
LenientBool = Annotated[bool, DefaultOnError]
StrList = Annotated[list[str], SkipInvalidItems, DefaultOnError]


class AcpModel(BaseModel):
    """Base of every ACP model: camelCase aliases, extra fields kept, `_meta` preserved."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        serialize_by_alias=True,
        defer_build=True,  # schemas are built at first use: launching does not wait for all
    )

    meta: Meta = Field(default=None, alias="_meta")


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The model as a JSON-ready dict: camelCase aliases, `None` fields left out."""
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def parse_with(parser: Callable[[Any], Any]) -> WrapValidator:
    """Validate a union field with a hand-written dispatcher instead of pydantic's union logic.

    (A `WrapValidator` that never calls the handler: unlike `PlainValidator`, it keeps the
    union's own serializer, so dumping the field works without warnings.)
    """

    def _validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return parser(value)

    return WrapValidator(_validate)
