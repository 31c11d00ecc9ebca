"""The flask-smorest ``Api`` with problem+json error responses and the bearer security scheme."""

from __future__ import annotations

import http
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, TypeVar

import marshmallow as ma
from flask_smorest import Api
from flask_smorest.utils import deepupdate, prepare_response

from casino.api.errors import PROBLEM_MIMETYPE

F = TypeVar("F", bound=Callable[..., Any])

SECURITY_SCHEME = "bearerAuth"


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details (documentation only; errors.problem() builds the body)."""

    class Meta:
        unknown = ma.INCLUDE

    type = ma.fields.String(metadata={"description": "URI identifying the problem type"})
    title = ma.fields.String(metadata={"description": "Short summary of the HTTP status"})
    status = ma.fields.Integer()
    detail = ma.fields.String(metadata={"description": "Explanation for this occurrence"})
    code = ma.fields.String(metadata={"description": "Stable machine-readable error code"})
    errors = ma.fields.Dict(
        metadata={"description": "Per-field validation messages (422 validation_failed)"}
    )


class CasinoApi(Api):
    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        # Same lazy components as flask-smorest, but typed application/problem+json.
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_MIMETYPE)
            self.spec.components.response(status.name, response, lazy=True)
        default: dict[str, Any] = {
            "description": "Error (application/problem+json)",
            "schema": self.ERROR_SCHEMA,
        }
        prepare_response(default, self.spec, PROBLEM_MIMETYPE)
        self.spec.components.response("DEFAULT_ERROR", default, lazy=True)


def register_security(api: Api) -> None:
    api.spec.components.security_scheme(
        SECURITY_SCHEME,
        {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "Operator tokens (CASINO_OPERATOR_TOKENS or `casino create-operator-token`) "
                "or the player token returned once by POST /players, "
                "or a game session's token (POST /players/{id}/sessions: the player's own "
                "routes only, until it expires)."
            ),
        },
    )


def add_doc(func: F, **doc: Any) -> F:
    """Merge ``doc`` into a view's OpenAPI operation, as ``Blueprint.doc`` does."""
    apidoc = deepcopy(getattr(func, "_apidoc", {}))
    apidoc["manual_doc"] = deepupdate(deepcopy(apidoc.get("manual_doc", {})), doc)
    func._apidoc = apidoc  # type: ignore[attr-defined]
    return func


def error_responses(*statuses: int) -> dict[str, str]:
    """Response references for ``add_doc(responses=...)``."""
    return {str(status): http.HTTPStatus(status).name for status in statuses}


def document_errors(func: F, statuses: Iterable[int]) -> F:
    return add_doc(func, responses=error_responses(*statuses))
