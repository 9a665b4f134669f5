"""Elicitation (ACP v1, stable): the agent asks the user for structured input or to visit a URL.

`ElicitationBroker.request` answers `elicitation/create`: it turns the params into a
`PendingElicitation` (a form of `FormField`s, or a URL), hands it to the presenters (the UI) and
awaits the user's answer: `{"action": "accept", "content": {...}}`, `{"action": "decline"}` or
`{"action": "cancel"}`. `cancel_all()` (a cancelled turn, a crash) answers every open one with
cancel. `complete(params)` handles `elicitation/complete` for URL mode.

Form fields follow the restricted JSON Schema of the spec: string (minLength, maxLength, pattern,
format email/uri/date/date-time), number and integer (minimum, maximum), boolean, single-select
enum (`enum`, or titled `oneOf`), multi-select (`array` of `enum` or titled `anyOf`, minItems,
maxItems). `validate_form` checks the user's raw values and returns the content or the errors.

Every string of an elicitation is agent text, made safe for the terminal here, where it enters
(`acp_tui.safe_text`): the message, the schema's title, field titles, descriptions, text
defaults, formats, choice titles and the URL as shown. What goes back to the agent stays exact:
property names, choice values (and enum defaults, which select one) and the URL opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp_tui.protocol.errors import INVALID_PARAMS, RpcError
from acp_tui.safe_text import safe_line, safe_text
from acp_tui.signal import Signal

CANCEL: dict[str, Any] = {"action": "cancel"}
DECLINE: dict[str, Any] = {"action": "decline"}
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")

Value = str | int | float | bool | list[str]


@dataclass(frozen=True)
class Choice:
    value: str
    """The agent's exact value (sent back)."""
    title: str
    """What the user sees (made safe)."""


@dataclass(frozen=True)
class FormField:
    name: str
    kind: str  # string | number | integer | boolean | enum | multi
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    choices: tuple[Choice, ...] = ()
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None


def _choices(options: Any) -> tuple[Choice, ...]:
    found = []
    for option in options if isinstance(options, list) else []:
        if isinstance(option, str):
            found.append(Choice(option, safe_line(option)))
        elif isinstance(option, dict) and isinstance(option.get("const"), str):
            title = option.get("title")
            shown = title if isinstance(title, str) else option["const"]
            found.append(Choice(option["const"], safe_line(shown)))
    return tuple(found)


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_fields(schema: Any) -> list[FormField]:
    """The form's fields; properties of an unknown type are skipped."""
    if not isinstance(schema, dict):
        return []
    properties = schema.get("properties")
    listed = schema.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    fields = []
    for name, spec in (properties or {}).items() if isinstance(properties, dict) else []:
        if not isinstance(spec, dict):
            continue
        kind = spec.get("type")
        given_title, given_description = spec.get("title"), spec.get("description")
        title = given_title if isinstance(given_title, str) else str(name)
        description = given_description if isinstance(given_description, str) else ""
        default = spec.get("default")
        common: dict[str, Any] = {
            "name": name,  # the key of the answer: exact
            "title": safe_line(title),
            "description": safe_text(description),
            "required": name in required,
            # a choice's default selects one of the agent's exact values; a text default is
            # shown in its input (and sent back as the user leaves it)
            "default": default,
        }
        shown_default = safe_line(default) if isinstance(default, str) else default
        if kind == "string":
            choices = _choices(spec.get("oneOf")) or _choices(spec.get("enum"))
            if choices:
                fields.append(FormField(kind="enum", choices=choices, **common))
                continue
            pattern = spec.get("pattern") if isinstance(spec.get("pattern"), str) else None
            fmt = spec.get("format") if isinstance(spec.get("format"), str) else None
            common["default"] = shown_default
            fields.append(
                FormField(
                    kind="string",
                    min_length=_int(spec.get("minLength")),
                    max_length=_int(spec.get("maxLength")),
                    pattern=pattern,  # matched exactly, shown made safe (`_check`)
                    format=safe_line(fmt) if fmt is not None else None,
                    **common,
                )
            )
        elif kind in ("number", "integer"):
            common["default"] = shown_default
            fields.append(
                FormField(
                    kind=kind,
                    minimum=_num(spec.get("minimum")),
                    maximum=_num(spec.get("maximum")),
                    **common,
                )
            )
        elif kind == "boolean":
            fields.append(FormField(kind="boolean", **common))
        elif kind == "array":
            given = spec.get("items")
            items: dict[str, Any] = given if isinstance(given, dict) else {}
            choices = _choices(items.get("anyOf")) or _choices(items.get("enum"))
            if choices:
                fields.append(
                    FormField(
                        kind="multi",
                        choices=choices,
                        min_items=_int(spec.get("minItems")),
                        max_items=_int(spec.get("maxItems")),
                        **common,
                    )
                )
    return fields


def validate_form(
    fields: list[FormField], raw: dict[str, Any]
) -> tuple[dict[str, Value], dict[str, str]]:
    """Raw widget values (strings for text inputs, bool, a choice value or None, a list of
    choice values) → (content for the agent, errors by field name)."""
    content: dict[str, Value] = {}
    errors: dict[str, str] = {}
    for spec in fields:
        value = raw.get(spec.name)
        empty = value is None or value == "" or value == []
        if empty and spec.kind != "boolean":
            if spec.required:
                errors[spec.name] = "required"
            continue
        try:
            checked = _check(spec, value)
        except ValueError as error:
            errors[spec.name] = str(error)
            continue
        content[spec.name] = checked
    return content, errors


def _check(spec: FormField, value: Any) -> Value:
    if spec.kind == "boolean":
        return bool(value)
    if spec.kind == "enum":
        if value not in {c.value for c in spec.choices}:
            raise ValueError("choose one of the options")
        return str(value)
    if spec.kind == "multi":
        chosen = [v for v in value if v in {c.value for c in spec.choices}]
        if spec.min_items is not None and len(chosen) < spec.min_items:
            raise ValueError(f"choose at least {spec.min_items}")
        if spec.max_items is not None and len(chosen) > spec.max_items:
            raise ValueError(f"choose at most {spec.max_items}")
        return chosen
    text = str(value)
    if spec.kind in ("number", "integer"):
        number: int | float
        try:
            number = int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            raise ValueError(
                f"not {'an integer' if spec.kind == 'integer' else 'a number'}"
            ) from None
        if spec.minimum is not None and number < spec.minimum:
            raise ValueError(f"at least {spec.minimum:g}")
        if spec.maximum is not None and number > spec.maximum:
            raise ValueError(f"at most {spec.maximum:g}")
        return number
    if spec.min_length is not None and len(text) < spec.min_length:
        raise ValueError(f"at least {spec.min_length} characters")
    if spec.max_length is not None and len(text) > spec.max_length:
        raise ValueError(f"at most {spec.max_length} characters")
    if spec.pattern is not None:
        try:
            if re.search(spec.pattern, text) is None:
                raise ValueError(f"must match {safe_line(spec.pattern)}")
        except re.error:
            pass  # a pattern Python cannot compile is not held against the user
    _check_format(spec.format, text)
    return text


def _check_format(fmt: str | None, text: str) -> None:
    if fmt == "email" and not _EMAIL.match(text):
        raise ValueError("not an e-mail address")
    if fmt == "uri" and not _URI.match(text):
        raise ValueError("not a URI")
    if fmt == "date":
        try:
            dt.date.fromisoformat(text)
        except ValueError:
            raise ValueError("not a date (YYYY-MM-DD)") from None
    if fmt == "date-time":
        try:
            dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError("not a date-time (ISO 8601)") from None


@dataclass(eq=False)
class PendingElicitation:
    id: int
    mode: str  # form | url
    message: str
    fields: list[FormField] = field(default_factory=list)
    title: str = ""
    url: str = ""
    """The URL as the agent sent it (opened as is)."""
    url_shown: str = ""
    """The URL made safe to show."""
    elicitation_id: str = ""
    tool_call_id: str | None = None
    future: asyncio.Future[dict[str, Any]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    completed: bool = False
    """URL mode: the agent said the out-of-band interaction is over (`elicitation/complete`)."""
    on_complete: list[Callable[[], None]] = field(default_factory=list)

    def answer(self, result: dict[str, Any]) -> None:
        """Answer the agent with `result` (a copy: `CANCEL`/`DECLINE` are shared by every session).

        Args:
            result: the `elicitation/create` result (`action`, and `content` when accepted).
        """
        if not self.future.done():
            self.future.set_result(dict(result))

    @property
    def done(self) -> bool:
        """Whether the request has its answer (given here, cancelled or withdrawn by the agent)."""
        return self.future.done()


class ElicitationBroker:
    """Turns the agent's elicitation requests into questions for the UI and their answers back
    into responses; each answer belongs to exactly one request.
    """

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.presented: Signal[PendingElicitation] = Signal("elicitation to ask")
        self.open: list[PendingElicitation] = []
        self._by_url_id: dict[str, PendingElicitation] = {}

    async def request(self, params: Any) -> dict[str, Any]:
        """Present one elicitation and wait for its answer; with no UI listening it is
        cancelled at once.
        """
        pending = self._pending(params)
        if not self.presented.listener_count:
            return dict(CANCEL)  # nobody can answer (no UI)
        self.open.append(pending)
        self.presented.emit(pending)
        try:
            return await pending.future
        finally:
            with contextlib.suppress(ValueError):
                self.open.remove(pending)

    def _pending(self, params: Any) -> PendingElicitation:
        if not isinstance(params, dict) or not isinstance(params.get("message"), str):
            raise RpcError(INVALID_PARAMS, "elicitation/create needs a message")
        mode = params.get("mode")
        tool_call = params.get("toolCallId")
        common: dict[str, Any] = {
            "id": next(self._ids),
            "message": safe_text(params["message"]),
            "tool_call_id": tool_call if isinstance(tool_call, str) else None,
        }
        if mode == "form":
            schema = params.get("requestedSchema")
            if not isinstance(schema, dict):
                raise RpcError(INVALID_PARAMS, "form elicitation needs a requestedSchema")
            given = schema.get("title")
            title = safe_line(given) if isinstance(given, str) else ""
            return PendingElicitation(
                mode="form", fields=parse_fields(schema), title=title, **common
            )
        if mode == "url":
            url, eid = params.get("url"), params.get("elicitationId")
            if not isinstance(url, str) or not isinstance(eid, str):
                raise RpcError(INVALID_PARAMS, "url elicitation needs url and elicitationId")
            pending = PendingElicitation(
                mode="url", url=url, url_shown=safe_line(url), elicitation_id=eid, **common
            )
            self._by_url_id[eid] = pending
            return pending
        raise RpcError(INVALID_PARAMS, f"unsupported elicitation mode: {mode!r}")

    def complete(self, params: Any) -> None:
        """`elicitation/complete`: the URL interaction finished (unknown ids are ignored)."""
        eid = params.get("elicitationId") if isinstance(params, dict) else None
        pending = self._by_url_id.pop(eid, None) if isinstance(eid, str) else None
        if pending is None:
            return
        pending.completed = True
        for callback in list(pending.on_complete):
            callback()

    def cancel_all(self) -> None:
        """Answer every open elicitation with "cancel" (the session is ending)."""
        for pending in list(self.open):
            pending.answer(CANCEL)
