"""Liveness and readiness probes (no authentication)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from casino.api.database import ping
from casino.api.json_body import ApiBlueprint
from casino.api.schemas import HealthSchema

blp = ApiBlueprint(
    "health", __name__, url_prefix="/api/v1", description="Process and database health"
)


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(operationId="getHealth")
    def get(self) -> dict[str, Any]:
        """The process is alive (no database access)."""
        return {"status": "ok"}


@blp.route("/ready")
class Ready(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(operationId="getReadiness")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self) -> dict[str, Any]:
        """The database answers SELECT 1; 503 service_unavailable otherwise."""
        ping()
        return {"status": "ready"}
