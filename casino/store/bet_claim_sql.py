"""The bet's claim (casino.store.rounds) as SQL, and its variant sent with the
authentication (casino.store.idempotency): what a bet needs, read and locked in the request's
first round trip.

The variant finds the player by its token's hash instead of its id, and claims only when
this request holds the idempotency key's lock and no response is stored under the key:
otherwise (a replay, or a duplicate still in flight) it locks nothing and returns no row,
exactly as if it had not been sent, and the bet answers as it always did.
"""

from __future__ import annotations

from casino.store.operators import OPERATOR_COLUMNS

#: Where the prefetched claim waits, in the session's ``info``, for ``RoundStore.claim_bet``:
#: ((player id, operator id, table id), rows).
PREFETCHED_BET_CLAIM = "casino.rounds.prefetched_bet_claim"

#: The idempotency lock's id: a 64-bit hash of caller and key, computed by the database
#: wherever the lock is taken, so every path agrees on it.
LOCK_ID = "hashtextextended({caller} || chr(31) || %(key)s, 0)"

# The nonce claim locks the seed row first; then the player's protection row (if any), then
# the wallet (its CTE waits for both: one-time filters evaluated before its scan), then the
# wallet's loss / wager limits (after the wallet). Always that order, so requests of one
# player cannot deadlock over them. A player without protection rows pays two index probes
# that find nothing, in the same round trip. The same statement says whether the table is
# shared (a private bet there is refused) and reads the operator (its wallet mode chooses
# the wallet adapter): two primary key probes that would each cost a round trip of their
# own.
CLAIM_BET = (
    """
WITH claim AS (
    UPDATE server_seeds SET next_nonce = next_nonce + 1
    WHERE player_id = %(player_id)s AND active /*gate*/ AND EXISTS (
        SELECT 1 FROM players AS p
        WHERE p.id = %(player_id)s AND p.operator_id = %(operator_id)s)
    RETURNING id, seed, seed_hash, client_seed, next_nonce - 1 AS nonce
), prot AS MATERIALIZED (
    SELECT p.* FROM player_protection AS p
    WHERE p.player_id = %(player_id)s AND EXISTS (SELECT 1 FROM claim)
    FOR UPDATE
), tbl AS (
    SELECT id, currency, rules, active, created_at, updated_at
    FROM casino_tables WHERE operator_id = %(operator_id)s AND id = %(table_id)s
), wallet AS MATERIALIZED (
    SELECT a.id, a.key, a.balance, a.chain_length, a.chain_hash FROM accounts AS a
    WHERE a.player_id = %(player_id)s AND a.kind = 'wallet' AND a.operator_id = %(operator_id)s
        AND a.currency = (SELECT currency FROM tbl) AND EXISTS (SELECT 1 FROM claim)
        AND (SELECT count(*) FROM prot) >= 0
    FOR UPDATE
), lim AS MATERIALIZED (
    SELECT l.* FROM player_limits AS l
    WHERE l.player_id = %(player_id)s AND l.currency = (SELECT currency FROM tbl)
        AND l.kind IN ('loss', 'wager') AND EXISTS (SELECT 1 FROM wallet)
    FOR UPDATE
)
SELECT claim.id, claim.seed, claim.seed_hash, claim.client_seed, claim.nonce,
    (SELECT r.id FROM rounds AS r
        WHERE r.player_id = %(player_id)s AND r.status = 'awaiting_decision'),
    tbl.id, tbl.currency, tbl.rules, tbl.active, tbl.created_at, tbl.updated_at,
    wallet.id, wallet.key, wallet.balance, wallet.chain_length, wallet.chain_hash,
    nextval('ledger_transaction_id_seq'),
    (SELECT row_to_json(prot) FROM prot), (SELECT json_agg(lim) FROM lim),
    EXISTS (SELECT 1 FROM shared_tables AS st
        WHERE st.operator_id = %(operator_id)s AND st.table_id = %(table_id)s),
    """
    + ", ".join(f"o.{name}" for name in OPERATOR_COLUMNS)
    + """
FROM claim LEFT JOIN tbl ON true LEFT JOIN wallet ON true
    LEFT JOIN operators AS o ON o.id = %(operator_id)s
"""
)

# The token's player, found once (the ``who`` CTE of ``with_bet_claim``).
_WHO = "who AS MATERIALIZED (SELECT id, operator_id FROM players WHERE token_hash = %(digest)s)"
_PLAYER_OF_TOKEN = "(SELECT who.id FROM who)"
_OPERATOR_OF_TOKEN = "(SELECT who.operator_id FROM who)"
# The advisory lock is re-entrant: taken by the authentication just before in this
# transaction, it is granted again; held by another request, it is refused, and the seed row
# (the claim's first lock) is never taken.
_GATE = (
    "AND NOT EXISTS (SELECT 1 FROM idempotency_records AS r "
    "WHERE r.caller = %(prefix)s || server_seeds.player_id AND r.key = %(key)s) "
    "AND pg_try_advisory_xact_lock("
    + LOCK_ID.format(caller="%(prefix)s || server_seeds.player_id")
    + ")"
)
_CLAIM_BY_TOKEN = (
    CLAIM_BET.replace("%(player_id)s", _PLAYER_OF_TOKEN)
    .replace("%(operator_id)s", _OPERATOR_OF_TOKEN)
    .replace("/*gate*/", _GATE)
)
_CLAIM_CTES, _, _CLAIM_SELECT = (
    _CLAIM_BY_TOKEN.strip().removeprefix("WITH ").rpartition("\nSELECT ")
)


def with_bet_claim(authentication: str) -> str:
    """``authentication`` (a query of the token's player, its operator and the idempotency
    lock and lookup, with parameters ``digest``, ``prefix`` and ``key``) and the claim of a
    bet at ``%(table_id)s``, in one statement: the authentication's columns, then the
    claim's (NULL when nothing was claimed). One snapshot: the claim's view of the stored
    record is the lookup's."""
    return (
        f"WITH auth AS MATERIALIZED ({authentication}), {_WHO}, {_CLAIM_CTES}, "
        f"claimed AS (SELECT {_CLAIM_SELECT}) "
        "SELECT auth.*, claimed.* FROM auth LEFT JOIN claimed ON true"
    )
