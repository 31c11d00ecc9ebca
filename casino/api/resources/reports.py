"""Operators' reports: per table and day, handle, wins, GGR, hold and RTP against its band."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import RAISE

from casino.api.auth import OPERATOR, WITH_AUDITOR, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses
from casino.api.resources._uow import read
from casino.api.schemas_reports import TableReportQuerySchema, TablesReportSchema
from casino.service.reports import report_json, table_report

blp = ApiBlueprint(
    "reports", __name__, url_prefix="/api/v1/reports", description="Operators' reports"
)


@blp.route("/tables")
class TableReports(MethodView):
    @requires(OPERATOR, scopes=WITH_AUDITOR)
    @blp.arguments(TableReportQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, TablesReportSchema)
    @blp.doc(operationId="getTableReport", responses=error_responses(422))
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Per table and UTC day of settlement: rounds, handle, wins, GGR, hold, observed
        RTP and the theoretical RTP of the rules played with its 95 % band (flagged when
        outside), for all bets, the ante game and the tie bet; the war / surrender shares.

        422 invalid_period when since is not before until.
        """
        return read(
            lambda uow: report_json(
                table_report(
                    uow,
                    since=query.get("since"),
                    until=query.get("until"),
                    currency=query.get("currency"),
                )
            )
        )
