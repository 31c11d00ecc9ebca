"""Casino War tables: everyone reads them; operators create and change them."""

from __future__ import annotations

import re
from typing import Any

from flask.views import MethodView
from marshmallow import RAISE

from casino.api.auth import OPERATOR, PLAYER, requires
from casino.api.fields import TABLE_ID_PATTERN
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses
from casino.api.resources._uow import read, write
from casino.api.schemas import PageQuerySchema
from casino.api.schemas_tables import (
    TableCreateSchema,
    TablePageSchema,
    TableSchema,
    TableUpdateSchema,
)
from casino.engine.casino_war import TableRules
from casino.service import tables as table_service
from casino.service.errors import Invalid
from casino.service.shared.tables import shared_rules_input
from casino.service.views import Page, TableView

TABLE_ID = re.compile(TABLE_ID_PATTERN)


# Rules between fields of a table's rules, which a JSON Schema cannot compare; each field's
# own range, enum and multiple are in the schema.
TABLE_RULES_ACROSS_FIELDS = (
    "The rules must make a playable table (each refused with its own 422 code): "
    "`min_ante` a positive multiple of `bet_increment` (`min_ante_invalid`), `max_ante` a "
    "multiple of it and at least `min_ante` (`max_ante_invalid`), `max_tie_bet` 0 or a "
    "multiple of it (`max_tie_bet_invalid`), `tie_pays` 10, 11 or 12 "
    "(`tie_pays_not_allowed`), `bet_increment` even (`bet_increment_invalid`), and `decks` "
    "enough for the hands and wars the rules allow (`invalid_rules`)."
)
blp = ApiBlueprint("tables", __name__, url_prefix="/api/v1/tables", description="Tables")


@blp.route("")
class Tables(MethodView):
    @requires(OPERATOR, PLAYER)
    @blp.arguments(PageQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, TablePageSchema)
    @blp.doc(operationId="listTables", responses=error_responses(422))
    def get(self, query: dict[str, Any]) -> Page[TableView]:
        """Tables in id order with their rules and exact theoretical RTP."""
        return _page(read(table_service.list_tables), query.get("cursor"), query["limit"])

    @requires(OPERATOR)
    @blp.arguments(TableCreateSchema())
    @blp.response(201, TableSchema)
    @blp.doc(
        operationId="createTable",
        description=TABLE_RULES_ACROSS_FIELDS,
        responses=error_responses(409, 422),
    )
    def post(self, data: dict[str, Any]) -> TableView:
        """Open a table; omitted rules take the defaults (6 decks, ante 100-500000 ...)."""
        mode = data["mode"]
        given = data["rules"]
        rules = TableRules.from_dict(shared_rules_input(given) if mode == "shared" else given)
        return write(
            lambda uow: table_service.create_table(
                uow,
                data["id"],
                data["currency"],
                rules,
                active=data["active"],
                mode=mode,
                clock=data.get("shared"),
            )
        )


@blp.route("/<table_id>")
class Table(MethodView):
    @requires(OPERATOR, PLAYER)
    @blp.response(200, TableSchema)
    @blp.doc(operationId="getTable", responses=error_responses(404))
    def get(self, table_id: str) -> TableView:
        """One table."""
        return read(lambda uow: table_service.get_table(uow, table_id))

    @requires(OPERATOR)
    @blp.arguments(TableUpdateSchema())
    @blp.response(200, TableSchema)
    @blp.doc(
        operationId="updateTable",
        description="Rounds already started keep the rules they started under.\n\n"
        + TABLE_RULES_ACROSS_FIELDS,
        responses=error_responses(404, 422),
    )
    def patch(self, data: dict[str, Any], table_id: str) -> TableView:
        """Change rules (merged into the current ones) or open/close the table."""
        changes = {**data.get("rules", {})}
        if "active" in data:
            changes["active"] = data["active"]
        return write(lambda uow: table_service.update_table(uow, table_id, changes))


def _page(tables: list[TableView], cursor: str | None, limit: int) -> Page[TableView]:
    """Tables are few: page over the full list, the cursor being the last id seen."""
    ordered = sorted(tables, key=lambda table: table.id)
    if cursor is not None:
        if not TABLE_ID.fullmatch(cursor):
            raise Invalid("The cursor is not valid.", code="invalid_cursor")
        ordered = [table for table in ordered if table.id > cursor]
    items = ordered[:limit]
    next_cursor = items[-1].id if len(ordered) > limit else None
    return Page(items=items, next_cursor=next_cursor)
