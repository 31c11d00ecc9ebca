"""Strict JSON field types: a money amount is a JSON integer, never 1.0, "1" or true."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

import marshmallow as ma
from marshmallow import validate

MAX_AMOUNT = 10**12


class Pattern(validate.Regexp):
    """A pattern the whole value must match, written ``^...$``.

    The pattern goes into the OpenAPI spec, where it is an ECMA-262 regex (JSON Schema; the
    JS, Go and Java generators): there ``\\Z`` is a literal Z, while ``^...$`` means the
    whole string. Python's ``$`` also matches before a final newline, so the server matches
    the whole value instead (``fullmatch``): "EUR\\n" stays refused, as strict as ``\\Z``.
    """

    def __init__(self, regex: str, *, error: str | None = None) -> None:
        if not (regex.startswith("^") and regex.endswith("$")) or "\\Z" in regex:
            raise ValueError(f"a pattern is spelled ^...$ for both regex flavours: {regex!r}")
        self.whole: re.Pattern[str] = re.compile(regex)
        super().__init__(self.whole, error=error)

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or self.whole.fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


class StrictInteger(ma.fields.Integer):
    """A JSON integer: floats (even 1.0), strings and booleans are refused."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("strict", True)
        super().__init__(**kwargs)

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> int:
        # bool is an int subclass in Python; in JSON it is not a number.
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class StrictBoolean(ma.fields.Boolean):
    """JSON true/false only (marshmallow's Boolean would also take "yes", 1, "on"...)."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def Amount(**kwargs: Any) -> StrictInteger:
    """A positive amount of minor units, 1 to 10^12."""
    kwargs.setdefault("validate", validate.Range(min=1, max=MAX_AMOUNT))
    metadata = {"description": "Integer minor units, 1 to 10^12", **kwargs.pop("metadata", {})}
    return StrictInteger(metadata=metadata, **kwargs)


def Currency(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=Pattern(r"^[A-Z]{3}$", error="Must be 3 uppercase letters (ISO 4217)."),
        metadata={"description": "ISO 4217 code, e.g. EUR", "example": "EUR"},
        **kwargs,
    )


def Text(max_length: int, **kwargs: Any) -> ma.fields.String:
    """Non-empty printable text; control characters would only hurt logs and reports."""
    return ma.fields.String(
        validate=[
            validate.Length(min=1, max=max_length),
            Pattern(r"^[^\x00-\x1f\x7f]*$", error="Must not contain control characters."),
        ],
        **kwargs,
    )


# No control character (C0, DEL, C1) anywhere, no white space at either end ("abc " and
# "abc" would be two players). \s is spelled out with \ufeff, which ECMA-262's \s holds
# and Python's does not; the other characters the two read differently are controls.
_NOT_CONTROL = r"\x00-\x1f\x7f-\x9f"
_EDGE = r"[^\s\ufeff" + _NOT_CONTROL + "]"
EXTERNAL_REF_PATTERN = rf"^{_EDGE}(?:[^{_NOT_CONTROL}]*{_EDGE})?$"


def ExternalRef(max_length: int, **kwargs: Any) -> ma.fields.String:
    """An operator's id for a player: printable, no white space at either end."""
    return ma.fields.String(
        validate=[
            validate.Length(min=1, max=max_length),
            Pattern(
                EXTERNAL_REF_PATTERN,
                error="Must not contain control characters nor start or end with white space.",
            ),
        ],
        **kwargs,
    )


TABLE_ID_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"


def TableId(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=Pattern(
            TABLE_ID_PATTERN, error="Must be a slug: lowercase letters, digits and '-'."
        ),
        metadata={"example": "classic"},
        **kwargs,
    )


def Uuid(**kwargs: Any) -> ma.fields.String:
    """An id in a response: a UUID string (``format: uuid`` in the spec), dumped as it is."""
    metadata = {"format": "uuid", **kwargs.pop("metadata", {})}
    return ma.fields.String(metadata=metadata, **kwargs)


class UUIDString(ma.fields.String):
    """A UUID given as a string, returned in canonical lowercase form."""

    default_error_messages = {"invalid_uuid": "Not a valid UUID."}

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return str(uuid.UUID(text))
        except ValueError:
            raise self.make_error("invalid_uuid") from None
