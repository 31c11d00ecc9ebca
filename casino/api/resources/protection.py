"""Player protection: limits, exclusions, account status, reality checks, statements."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import RAISE

from casino.api.auth import (
    OPERATOR,
    PLAYER,
    WITH_SUPPORT,
    current_principal,
    ensure_visible_player,
    requires,
)
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas import NoFieldsSchema, PageQuerySchema
from casino.api.schemas_protection import (
    AccountEventPageSchema,
    ExclusionInputSchema,
    LimitChangePageSchema,
    LimitsInputSchema,
    LimitsSchema,
    LimitsUpdateSchema,
    ProtectionSchema,
    ReasonSchema,
    StatementQuerySchema,
    StatementSchema,
)
from casino.service import accounts, limits, statements
from casino.service.protection import LIMIT_KINDS, TIME_LIMITS, Actor
from casino.service.views import Page

blp = ApiBlueprint(
    "protection",
    __name__,
    url_prefix="/api/v1/players",
    description="Player protection: limits, exclusions, account status, statements",
)


def _actor() -> Actor:
    principal = current_principal()
    return Actor(principal.role, principal.subject, principal.session_id)


@blp.route("/<uuid_str:player_id>/limits")
class Limits(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.response(200, LimitsSchema)
    @blp.doc(operationId="getLimits", responses=error_responses(404))
    def get(self, player_id: str) -> limits.LimitsView:
        """The player's limits in force, what it used of each this period (with
        ``resets_at``) and the changes pending."""
        ensure_visible_player(player_id)
        return read(lambda uow: limits.get_limits(uow, player_id))

    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.arguments(LimitsInputSchema())
    @blp.response(200, LimitsUpdateSchema)
    @blp.doc(
        operationId="setLimits",
        responses=error_responses(403, 404, 422),
        **problem_codes(
            "validation_failed", "player_not_found", "unsupported_currency", "forbidden"
        ),
    )
    def put(self, data: dict[str, Any], player_id: str) -> limits.LimitsUpdateView:
        """Set limits: each one given is set, null removes it, the others stay as they are.

        A lower limit (or a first one) applies at once; a higher one or a removal 24 hours
        later (its ``effective_at``; until then the one in force stays). Asking for the
        limit in force cancels a pending change. Money limits are per ``currency``, per
        calendar day, week (from Monday) and month in UTC. Every change goes to the history.
        A game session's token may lower limits but not raise or remove one (403
        ``forbidden``, nothing changed): that is asked with the player's own token.
        """
        ensure_visible_player(player_id)
        actor = _actor()
        money = {kind: data[kind] for kind in LIMIT_KINDS if kind in data}
        times = {name: data[name] for name in TIME_LIMITS if name in data}
        return write(
            lambda uow: limits.set_limits(
                uow, player_id, actor, currency=data.get("currency"), money=money, times=times
            )
        )


@blp.route("/<uuid_str:player_id>/limits/history")
class LimitHistory(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.arguments(PageQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, LimitChangePageSchema)
    @blp.doc(operationId="listLimitChanges", responses=error_responses(404, 422))
    def get(self, query: dict[str, Any], player_id: str) -> Page[limits.LimitChangeView]:
        """Every limit change asked for, newest first: who, when, old, new, effective."""
        ensure_visible_player(player_id)
        return read(
            lambda uow: limits.list_limit_changes(
                uow, player_id, query.get("cursor"), query["limit"]
            )
        )


@blp.route("/<uuid_str:player_id>/protection")
class Protection(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.response(200, ProtectionSchema)
    @blp.doc(operationId="getProtection", responses=error_responses(404))
    def get(self, player_id: str) -> accounts.ProtectionView:
        """The account's status, exclusion in force, play session and reality check due."""
        ensure_visible_player(player_id)
        return read(lambda uow: accounts.get_protection(uow, player_id))


@blp.route("/<uuid_str:player_id>/protection/history")
class ProtectionHistory(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.arguments(PageQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, AccountEventPageSchema)
    @blp.doc(operationId="listAccountEvents", responses=error_responses(404, 422))
    def get(self, query: dict[str, Any], player_id: str) -> Page[accounts.AccountEventView]:
        """Exclusions and status changes, newest first: who, when, why."""
        ensure_visible_player(player_id)
        return read(
            lambda uow: accounts.list_account_events(
                uow, player_id, query.get("cursor"), query["limit"]
            )
        )


@blp.route("/<uuid_str:player_id>/exclusions")
class Exclusions(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.arguments(ExclusionInputSchema())
    @blp.response(201, ProtectionSchema)
    @blp.doc(
        operationId="excludePlayer",
        responses=error_responses(404, 409, 422),
        **problem_codes("validation_failed", "player_not_found", "exclusion_in_force"),
    )
    def post(self, data: dict[str, Any], player_id: str) -> accounts.ProtectionView:
        """Start a cool-off (``days``: 1 to 42) or a self-exclusion (``months``: 6 to 60).

        From now on no round and no deposit (403 ``cooling_off`` / ``self_excluded``);
        withdrawals, recall, statements and finishing a round awaiting a decision stay
        allowed. An exclusion cannot be shortened or lifted: a new one must end later than
        the one in force (409 ``exclusion_in_force``); a self-exclusion extended by a
        cool-off stays a self-exclusion.
        """
        ensure_visible_player(player_id)
        actor = _actor()
        return write(
            lambda uow: accounts.exclude(
                uow,
                player_id,
                actor,
                data["kind"],
                days=data.get("days"),
                months=data.get("months"),
            )
        )


def _status_change(action: str, player_id: str, reason: str) -> accounts.ProtectionView:
    actor = _actor()
    return write(lambda uow: accounts.change_status(uow, player_id, actor, action, reason))


@blp.route("/<uuid_str:player_id>/suspend")
class Suspend(MethodView):
    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.arguments(ReasonSchema())
    @blp.response(200, ProtectionSchema)
    @blp.doc(operationId="suspendPlayer", responses=error_responses(404, 409, 422))
    def post(self, data: dict[str, Any], player_id: str) -> accounts.ProtectionView:
        """Suspend the account (403 ``account_suspended`` on rounds and deposits)."""
        return _status_change("suspend", player_id, data["reason"])


@blp.route("/<uuid_str:player_id>/reactivate")
class Reactivate(MethodView):
    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.arguments(ReasonSchema())
    @blp.response(200, ProtectionSchema)
    @blp.doc(operationId="reactivatePlayer", responses=error_responses(404, 409, 422))
    def post(self, data: dict[str, Any], player_id: str) -> accounts.ProtectionView:
        """Reactivate a suspended or closed account (an exclusion in force stays)."""
        return _status_change("reactivate", player_id, data["reason"])


@blp.route("/<uuid_str:player_id>/close")
class Close(MethodView):
    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.arguments(ReasonSchema())
    @blp.response(200, ProtectionSchema)
    @blp.doc(operationId="closePlayer", responses=error_responses(404, 409, 422))
    def post(self, data: dict[str, Any], player_id: str) -> accounts.ProtectionView:
        """Close the account (403 ``account_closed`` on rounds and deposits; withdrawals,
        recall and statements stay allowed)."""
        return _status_change("close", player_id, data["reason"])


@blp.route("/<uuid_str:player_id>/reality-check")
class RealityCheck(MethodView):
    @requires(PLAYER)
    @blp.arguments(NoFieldsSchema(), required=False)
    @blp.response(200, ProtectionSchema)
    @blp.doc(operationId="acknowledgeRealityCheck", responses=error_responses(404, 422))
    def post(self, _: dict[str, Any], player_id: str) -> accounts.ProtectionView:
        """The player saw the reality check: round answers stop reporting it until the next
        one is due, an interval from now."""
        ensure_visible_player(player_id)
        return write(lambda uow: accounts.acknowledge_reality_check(uow, player_id))


@blp.route("/<uuid_str:player_id>/statement")
class Statement(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.arguments(StatementQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, StatementSchema)
    @blp.doc(operationId="getStatement", responses=error_responses(404, 422))
    def get(self, query: dict[str, Any], player_id: str) -> statements.StatementView:
        """Per currency over ``from`` <= time < ``to``: opening and closing balance,
        deposits, withdrawals, wagered, won, net (won - wagered) and rounds started, from
        the ledger (closing = opening + deposits - withdrawals + net).

        ``from`` must be before ``to`` (422 ``invalid_period``), a rule between two
        parameters that OpenAPI cannot state in their schemas."""
        ensure_visible_player(player_id)
        return read(lambda uow: statements.statement(uow, player_id, query["start"], query["end"]))
