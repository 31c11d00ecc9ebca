"""A bet's claim sent with its authentication (casino.store.bet_claim_sql): it claims only
for the request that holds the idempotency key, and locks nothing otherwise."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from casino.service import players, wallets
from casino.service.auth import PLAYER_SUBJECT_PREFIX, hash_token
from casino.store.bet_claim_sql import PREFETCHED_BET_CLAIM
from casino.store.uow import UnitOfWork

from .conftest import Svc
from .test_locks import postgres_only


def _player(svc: Svc) -> tuple[str, str]:
    view, token = svc.run(players.create_player, "claim-with-auth")  # type: ignore[misc]
    svc.run(wallets.deposit, view.id, "EUR", 10_000, "funding")
    return str(view.id), str(token)


def _nonce(svc: Svc, player_id: str) -> int:
    return svc.active_seed(player_id)[1]


@postgres_only
def test_the_claim_comes_with_the_authentication(
    svc: Svc, demo_tables: list[str], db_url: str
) -> None:
    player_id, token = _player(svc)
    before = _nonce(svc, player_id)
    with UnitOfWork(svc.factory) as uow:
        owner = uow.idempotency.player_and_key(
            hash_token(token), PLAYER_SUBJECT_PREFIX, "key-1", "classic"
        )
        assert owner is not None and owner.player_id == player_id
        (key, rows) = uow.session.info[PREFETCHED_BET_CLAIM]
        assert key == (player_id, owner.operator_id, "classic")
        assert rows[0][4] == before  # the nonce claimed
        uow.act_for(owner.operator_id)
        claim = uow.rounds.claim_bet(player_id, "classic")
        assert claim is not None and claim.nonce == before and claim.table is not None
        assert PREFETCHED_BET_CLAIM not in uow.session.info  # used once
    assert _nonce(svc, player_id) == before  # not committed: nothing claimed


@postgres_only
def test_a_duplicate_in_flight_claims_and_locks_nothing(
    svc: Svc, demo_tables: list[str], db_url: str
) -> None:
    player_id, token = _player(svc)
    engine = create_engine(db_url, isolation_level="AUTOCOMMIT")
    caller = PLAYER_SUBJECT_PREFIX + player_id
    try:
        with engine.connect() as holder, engine.connect() as prober:
            holder.execute(text("BEGIN"))
            holder.execute(
                text("SELECT pg_advisory_xact_lock(hashtextextended(:c || chr(31) || :k, 0))"),
                {"c": caller, "k": "key-2"},
            )
            with UnitOfWork(svc.factory) as uow:
                owner = uow.idempotency.player_and_key(
                    hash_token(token), PLAYER_SUBJECT_PREFIX, "key-2", "classic"
                )
                assert owner is not None
                assert not uow.idempotency.lock_and_lookup(caller, "key-2").acquired
                assert PREFETCHED_BET_CLAIM not in uow.session.info
                # The seed and wallet rows are free: another transaction locks them at once.
                prober.execute(text("BEGIN"))
                for table in ("server_seeds", "accounts"):
                    locked = prober.execute(
                        text(f"SELECT 1 FROM {table} WHERE player_id = :p FOR UPDATE NOWAIT"),
                        {"p": player_id},
                    )
                    assert locked.all()
                prober.execute(text("ROLLBACK"))
            holder.execute(text("ROLLBACK"))
    finally:
        engine.dispose()
