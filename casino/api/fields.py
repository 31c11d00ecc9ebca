"""Strict JSON field types: a money amount is a JSON integer, never 1.0, "1" or true."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import marshmallow as ma
from marshmallow import validate

MAX_AMOUNT = 10**12


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
        validate=validate.Regexp(r"^[A-Z]{3}\Z", error="Must be 3 uppercase letters (ISO 4217)."),
        metadata={"description": "ISO 4217 code, e.g. EUR", "example": "EUR"},
        **kwargs,
    )


def Text(max_length: int, **kwargs: Any) -> ma.fields.String:
    """Non-empty printable text; control characters would only hurt logs and reports."""
    return ma.fields.String(
        validate=[
            validate.Length(min=1, max=max_length),
            validate.Regexp(r"^[^\x00-\x1f\x7f]*\Z", error="Must not contain control characters."),
        ],
        **kwargs,
    )


TABLE_ID_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\Z"


def TableId(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=validate.Regexp(
            TABLE_ID_PATTERN, error="Must be a slug: lowercase letters, digits and '-'."
        ),
        metadata={"example": "classic"},
        **kwargs,
    )


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
