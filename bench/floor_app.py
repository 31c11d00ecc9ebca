"""The least a Flask JSON endpoint can cost under gunicorn: the floor ``bench_floor`` measures.

No database, no schema, no authentication: parse a small JSON body, answer 201 with a small
JSON document, as a bet does at its simplest.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, request

app = Flask(__name__)


@app.get("/ready")
def ready() -> dict[str, str]:
    return {"status": "ready"}


@app.post("/bet")
def bet() -> tuple[dict[str, Any], int]:
    body = request.get_json()
    return {"id": "0", "ante": body["ante"], "status": "settled"}, 201
