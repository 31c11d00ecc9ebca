"""One flask-smorest blueprint per resource, all under /api/v1."""

from __future__ import annotations

from flask_smorest import Api

from casino.api.resources import (
    currencies,
    free_play,
    game_sessions,
    health,
    ledger,
    operators,
    players,
    protection,
    reconciliation,
    reports,
    rounds,
    seeds,
    shared_tables,
    tables,
    wallets,
)

BLUEPRINTS = (
    health.blp,
    players.blp,
    wallets.blp,
    seeds.blp,
    tables.blp,
    shared_tables.blp,
    rounds.blp,
    free_play.blp,
    ledger.blp,
    reports.blp,
    game_sessions.blp,
    protection.blp,
    currencies.blp,
    operators.blp,
    reconciliation.blp,
)


def register(api: Api) -> None:
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
