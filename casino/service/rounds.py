"""Casino War rounds: bet, decision, recall, listing, resolving abandoned rounds.

A round row stores only what rebuilds it: the rules snapshot, the seeds and nonce, the bets
and the decision. The cards are re-dealt from the seeds whenever the round is played on (the
decision) and by the audit, so the stored cards and payouts are a record, not an input.

Money (see ``casino.ledger``): at the bet, ``stake`` moves ante + tie bet from the wallet to
in-play; a ``settlement`` then returns what is settled: the tie bet at once on the first two
cards, the ante when the round ends. Going to war first posts a ``raise`` (wallet -> in-play).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, Literal, cast

from sqlalchemy import Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from casino.engine.casino_war import (
    CasinoWarRound,
    Decision,
    RoundStatus,
    TableRules,
    bet_outcomes,
    deal_casino_war,
)
from casino.engine.errors import IllegalAction
from casino.ledger.accounts import SystemAccounts, wallet_key
from casino.ledger.errors import InsufficientFunds
from casino.ledger.posting import Ledger, Leg, ledger_for, transfer
from casino.service.common import (
    clamp_limit,
    decode_cursor,
    encode_cursor,
    insufficient_funds,
    player_exists,
)
from casino.service.errors import Conflict, Invalid, NotFound
from casino.service.seeds import open_round_id
from casino.service.uow import UnitOfWork
from casino.service.views import ROUND_STATUSES, Page, RoundView
from casino.store import direct
from casino.store.models import (
    AWAITING_DECISION,
    SETTLED,
    CasinoTable,
    LedgerTransaction,
    Round,
    ServerSeed,
    as_utc,
    utcnow,
)

DecidedBy = Literal["player", "system"]
#: A round's values: an ORM row, or a plain namespace on the PostgreSQL hot path.
RoundRow = Round | SimpleNamespace


# --- money ----------------------------------------------------------------------------------


def settlement_legs(
    accounts: SystemAccounts, wallet: str, stakes: list[tuple[int, int]]
) -> list[Leg]:
    """Legs settling (stake, payout) pairs: returned stakes in-play -> wallet, lost stakes
    in-play -> house, winnings house -> wallet. Transfers between the same two accounts are
    added up, so a settlement has at most three of them."""
    returned = lost = won = 0
    for stake, payout in stakes:
        returned += min(stake, payout)
        lost += max(stake - payout, 0)
        won += max(payout - stake, 0)
    return (
        transfer(accounts.in_play, wallet, returned)
        + transfer(accounts.in_play, accounts.house, lost)
        + transfer(accounts.house, wallet, won)
    )


def _post_settlement(
    ledger: Ledger, accounts: SystemAccounts, row: RoundRow, stakes: list[tuple[int, int]]
) -> None:
    legs = settlement_legs(accounts, wallet_key(row.player_id, row.currency), stakes)
    if legs:
        ledger.post("settlement", row.currency, legs, player_id=row.player_id, round_id=row.id)


def _apply(ledger: Ledger, needed: int, currency: str) -> None:
    try:
        ledger.apply_wallets()
    except InsufficientFunds:  # also when the player has no wallet in this currency
        raise insufficient_funds(needed, currency) from None


# --- engine ---------------------------------------------------------------------------------


def rebuild(row: RoundRow, server_seed: bytes) -> CasinoWarRound:
    """The engine's round for a stored round, re-dealt from its seeds."""
    rules = TableRules.from_dict(row.rules)
    deal = deal_casino_war(server_seed, row.client_seed, int(row.nonce), rules.decks)
    return CasinoWarRound.start(rules, deal, int(row.ante), int(row.tie_bet))


@dataclass(frozen=True)
class _Claim:
    seed_id: int
    server_seed: bytes
    seed_hash: str
    client_seed: str
    nonce: int
    open_round_id: str | None
    table_rules: dict[str, Any] | None  # None: no such table
    table_currency: str | None
    table_active: bool | None
    # PostgreSQL: the stake already left the wallet in the claim's statement (None: it did
    # not, for want of funds or of a wallet), and transaction ids reserved with it.
    wallet_balance: int | None = None
    tx_ids: tuple[int, ...] = ()


_SEEDS = cast(Table, ServerSeed.__table__)
_ROUNDS = cast(Table, Round.__table__)
_TABLES = cast(Table, CasinoTable.__table__)


def _claim_nonce(uow: UnitOfWork, player_id: str, table_id: str, stake: int) -> _Claim:
    """Take the next nonce of the player's active seed; in the same round trip, read the
    table and whether the player has a round open.

    The row lock the UPDATE takes serialises the player's bets. The open-round answer comes
    from the statement's snapshot, so a bet racing another can miss it; the partial unique
    index on rounds then refuses the second insert (see ``place_bet``). Any refusal after
    this rolls the claim back with everything else.

    On PostgreSQL the same statement also takes the stake from the wallet (``stake`` > 0),
    guarded in SQL, and reserves the bet's transaction ids (see ``_CLAIM_AND_STAKE``).
    """
    if uow.dialect == "postgresql":
        return _claim_and_stake(uow, player_id, table_id, stake)
    open_round = (
        select(_ROUNDS.c.id)
        .where(_ROUNDS.c.player_id == player_id, _ROUNDS.c.status == AWAITING_DECISION)
        .scalar_subquery()
    )

    def table_column(column: Any) -> Any:
        return select(column).where(_TABLES.c.id == table_id).scalar_subquery()

    for _ in range(3):
        row = uow.session.execute(
            update(_SEEDS)
            .where(_SEEDS.c.player_id == player_id, _SEEDS.c.active.is_(True))
            .values(next_nonce=_SEEDS.c.next_nonce + 1)
            .returning(
                _SEEDS.c.id,
                _SEEDS.c.seed,
                _SEEDS.c.seed_hash,
                _SEEDS.c.client_seed,
                _SEEDS.c.next_nonce,
                open_round,
                table_column(_TABLES.c.rules),
                table_column(_TABLES.c.currency),
                table_column(_TABLES.c.active),
            )
        ).one_or_none()
        if row is not None:
            return _Claim(
                seed_id=int(row[0]),
                server_seed=bytes(row[1]),
                seed_hash=str(row[2]),
                client_seed=str(row[3]),
                nonce=int(row[4]) - 1,
                open_round_id=row[5],
                table_rules=row[6],
                table_currency=row[7],
                table_active=None if row[8] is None else bool(row[8]),
            )
        # No player, or a rotation committed between our snapshot and the update: in the
        # latter case the next statement sees the new active seed.
        player_exists(uow.session, player_id)
    raise Conflict("the player's seeds are being rotated; retry", code="seed_rotation_in_progress")


# One round trip for everything a bet needs before dealing. The nonce claim locks the seed
# row first (it serialises a player's bets); the stake's guarded UPDATE of the wallet runs only
# once the claim succeeded, so the two rows are always locked in that order. Two ids: a bet
# posts its stake and at most one settlement (an unused id is a harmless gap).
_CLAIM_AND_STAKE = """
WITH claim AS (
    UPDATE server_seeds SET next_nonce = next_nonce + 1
    WHERE player_id = %(player_id)s AND active
    RETURNING id, seed, seed_hash, client_seed, next_nonce - 1 AS nonce
), tbl AS (
    SELECT currency, rules, active FROM casino_tables WHERE id = %(table_id)s
), stake AS (
    UPDATE accounts SET balance = balance - %(stake)s
    WHERE key = 'wallet:' || %(player_id)s || ':' || (SELECT currency FROM tbl)
        AND %(stake)s > 0 AND balance >= %(stake)s AND EXISTS (SELECT 1 FROM claim)
    RETURNING balance
)
SELECT claim.id, claim.seed, claim.seed_hash, claim.client_seed, claim.nonce,
    (SELECT r.id FROM rounds AS r
        WHERE r.player_id = %(player_id)s AND r.status = 'awaiting_decision'),
    tbl.rules, tbl.currency, tbl.active,
    (SELECT balance FROM stake),
    ARRAY(SELECT nextval('ledger_transaction_id_seq') FROM generate_series(1, 2))
FROM claim LEFT JOIN tbl ON true
"""


def _claim_and_stake(uow: UnitOfWork, player_id: str, table_id: str, stake: int) -> _Claim:
    params = {"player_id": player_id, "table_id": table_id, "stake": stake}
    for _ in range(3):
        rows = direct.execute(uow.session, _CLAIM_AND_STAKE, params)
        if rows:
            row = rows[0]
            return _Claim(
                seed_id=int(row[0]),
                server_seed=bytes(row[1]),
                seed_hash=str(row[2]),
                client_seed=str(row[3]),
                nonce=int(row[4]),
                open_round_id=row[5],
                table_rules=row[6],
                table_currency=row[7],
                table_active=None if row[8] is None else bool(row[8]),
                wallet_balance=None if row[9] is None else int(row[9]),
                tx_ids=tuple(int(value) for value in row[10]),
            )
        # As in _claim_nonce: no player, or a seed rotation committed meanwhile.
        player_exists(uow.session, player_id)
    raise Conflict("the player's seeds are being rotated; retry", code="seed_rotation_in_progress")


# --- use cases ------------------------------------------------------------------------------


def place_bet(
    uow: UnitOfWork, player_id: str, table_id: str, ante: int, tie_bet: int = 0
) -> RoundView:
    session = uow.session
    if not isinstance(table_id, str):
        raise NotFound("no such table", code="table_not_found")
    # Only well-formed stakes are taken in the claim; anything else is refused below.
    stake = ante + tie_bet if _is_amount(ante) and _is_amount(tie_bet) else 0
    claim = _claim_nonce(uow, player_id, table_id, stake)
    if claim.table_rules is None or claim.table_currency is None:
        raise NotFound("no such table", code="table_not_found")
    if not claim.table_active:
        raise Conflict("the table is closed", code="table_inactive")
    rules = TableRules.from_dict(claim.table_rules)
    rules.validate_bet(ante, tie_bet)
    if claim.open_round_id is not None:
        raise _round_in_progress(claim.open_round_id)
    currency = claim.table_currency
    if uow.dialect == "postgresql" and claim.wallet_balance is None:
        raise insufficient_funds(stake, currency)  # also when there is no wallet
    game = CasinoWarRound.start(
        rules,
        deal_casino_war(claim.server_seed, claim.client_seed, claim.nonce, rules.decks),
        ante,
        tie_bet,
    )
    now = utcnow()
    row = SimpleNamespace(
        id=str(uuid.uuid4()),
        player_id=player_id,
        table_id=table_id,
        currency=currency,
        rules=rules.to_dict(),
        status=game.status.value,
        server_seed_id=claim.seed_id,
        client_seed=claim.client_seed,
        nonce=claim.nonce,
        ante=ante,
        tie_bet=tie_bet,
        raise_amount=0,
        player_card=game.deal.player.code,
        dealer_card=game.deal.dealer.code,
        war=None,
        decision=None,
        decided_by=None,
        ante_payout=0,
        tie_bet_payout=game.tie_bet_payout,
        raise_payout=0,
        net=0,
        balance_after=0,
        created_at=now,
        settled_at=None,
    )
    if game.status is RoundStatus.SETTLED:
        result = game.result
        row.ante_payout = result.payouts.ante
        row.tie_bet_payout = result.payouts.tie_bet
        row.net = result.net
        row.settled_at = now
        stakes = [(ante, result.payouts.ante), (tie_bet, result.payouts.tie_bet)]
    else:
        # Only the tie bet is settled now; the ante stays in play until the decision.
        row.net = game.tie_bet_payout - ante - tie_bet
        stakes = [(tie_bet, game.tie_bet_payout)]
    ledger = ledger_for(session)
    accounts = ledger.system_accounts(currency)
    wallet = wallet_key(player_id, currency)
    stake_tx = ledger.post(
        "stake",
        currency,
        transfer(wallet, accounts.in_play, stake),
        player_id=player_id,
        round_id=row.id,
    )
    if claim.wallet_balance is not None:
        ledger.applied(stake_tx, claim.wallet_balance, list(claim.tx_ids))
    _post_settlement(ledger, accounts, row, stakes)
    _apply(ledger, stake, currency)
    row.balance_after = _last_balance(ledger, row.id)
    _insert_round(uow, _round_values(row))
    # The ledger append itself happens at commit (see casino.ledger.posting).
    return round_view(
        row,
        seed_hash=claim.seed_hash,
        server_seed=None,
        transaction_ids=_pending_ids(ledger, row.id),
    )


def _is_amount(value: object) -> bool:
    return type(value) is int and value >= 0


def _insert_round(uow: UnitOfWork, values: dict[str, Any]) -> None:
    """The round's INSERT: at commit on PostgreSQL (with the ledger append), else now.

    Should another bet of this player have opened a round after our snapshot, the partial
    unique index refuses ours and the bet is refused as round_in_progress; its transaction is
    discarded before the open round is looked up.
    """
    player_id = values["player_id"]

    def in_progress() -> Exception:
        return _round_in_progress(open_round_id(uow, player_id))

    if uow.dialect == "postgresql":
        statement = direct.insert(_ROUNDS, values)
        conflicts = {"uq_rounds_one_open_per_player": in_progress}
        direct.defer(uow.session, replace(statement, conflicts=conflicts))
        return
    try:
        uow.session.execute(insert(_ROUNDS).values(values))
    except IntegrityError:
        uow.session.rollback()
        raise in_progress() from None


def _round_values(row: RoundRow) -> dict[str, Any]:
    return {column.key: getattr(row, column.key) for column in _ROUNDS.columns}


def _pending_ids(ledger: Ledger, round_id: str) -> list[int]:
    return [tx.id for tx in ledger.pending if tx.round_id == round_id and tx.id is not None]


def _last_balance(ledger: Ledger, round_id: str) -> int:
    balances = [
        tx.wallet_balance_after
        for tx in ledger.pending
        if tx.round_id == round_id and tx.wallet_balance_after is not None
    ]
    return balances[-1]


def _round_in_progress(round_id: str | None) -> Conflict:
    return Conflict(
        "a round awaits a decision; decide it first",
        code="round_in_progress",
        round_id=round_id,
    )


def _load_for_update(uow: UnitOfWork, round_id: str, player_id: str | None) -> Round:
    row = None
    if _is_uuid(round_id):
        row = uow.session.scalars(
            select(Round).where(Round.id == round_id).with_for_update()
        ).one_or_none()
    if row is None or (player_id is not None and row.player_id != player_id):
        raise NotFound("no such round", code="round_not_found")
    return row


def decide(
    uow: UnitOfWork,
    round_id: str,
    action: Decision | str,
    *,
    player_id: str | None,
    decided_by: DecidedBy = "player",
) -> RoundView:
    """Surrender or go to war on a round awaiting a decision.

    ``player_id`` restricts the round to that player's (None: any, for operators/system).
    War needs the raise (= ante) in the wallet, else Conflict(insufficient_funds) and the
    round stays open.
    """
    try:
        choice = Decision(action)
    except ValueError:
        raise Invalid(f"unknown decision {action!r}", code="unknown_decision") from None
    if decided_by not in ("player", "system"):
        raise ValueError(f"decided_by must be player or system, not {decided_by!r}")
    if uow.dialect == "postgresql":
        loaded = _load_for_decision(uow, round_id, player_id)
        _settle_decision(uow, loaded.row, choice, decided_by, loaded.server_seed)
        return round_view(
            loaded.row,
            seed_hash=loaded.seed_hash,
            server_seed=loaded.revealed,
            transaction_ids=loaded.transaction_ids
            + _pending_ids(ledger_for(uow.session), round_id),
        )
    row = _load_for_update(uow, round_id, player_id)
    _settle_decision(uow, row, choice, decided_by)
    return _views(uow, [row])[0]


@dataclass(frozen=True)
class _ForDecision:
    row: SimpleNamespace
    server_seed: bytes
    seed_hash: str
    revealed: str | None
    transaction_ids: list[int]


# The round (locked), its seed and its transactions so far, in one round trip.
_LOAD_FOR_DECISION = (
    "SELECT "
    + ", ".join(f"r.{column.name}" for column in _ROUNDS.columns)
    + """, s.seed, s.seed_hash, s.active, s.revealed_at,
    ARRAY(SELECT t.id FROM ledger_transactions AS t WHERE t.round_id = r.id ORDER BY t.seq)
FROM rounds AS r JOIN server_seeds AS s ON s.id = r.server_seed_id
WHERE r.id = %(round_id)s
FOR UPDATE OF r"""
)
_DATETIME_COLUMNS = frozenset({"created_at", "settled_at"})


def _load_for_decision(uow: UnitOfWork, round_id: str, player_id: str | None) -> _ForDecision:
    rows = (
        direct.execute(uow.session, _LOAD_FOR_DECISION, {"round_id": round_id})
        if _is_uuid(round_id)
        else []
    )
    if not rows or (player_id is not None and rows[0][1] != player_id):
        raise NotFound("no such round", code="round_not_found")
    found = rows[0]
    width = len(_ROUNDS.columns)
    values = {
        column.key: as_utc(value) if column.key in _DATETIME_COLUMNS and value else value
        for column, value in zip(_ROUNDS.columns, found[:width], strict=True)
    }
    seed, seed_hash, active, revealed_at, tx_ids = found[width:]
    return _ForDecision(
        row=SimpleNamespace(**values),
        server_seed=bytes(seed),
        seed_hash=str(seed_hash),
        revealed=None if active or revealed_at is None else bytes(seed).hex(),
        transaction_ids=[int(value) for value in tx_ids],
    )


def _settle_decision(
    uow: UnitOfWork,
    row: RoundRow,
    choice: Decision,
    decided_by: DecidedBy,
    server_seed: bytes | None = None,
) -> None:
    """Play the decision and post its money; the wallet is moved (and checked) at once."""
    if row.status != AWAITING_DECISION:
        raise Conflict(
            "the round is not awaiting a decision",
            code="round_not_awaiting_decision",
            round_id=row.id,
        )
    session = uow.session
    if server_seed is None:
        seed = session.get(ServerSeed, row.server_seed_id)
        assert seed is not None
        server_seed = seed.seed
    game = rebuild(row, server_seed)
    try:
        game.decide(choice)
    except IllegalAction as exc:
        if exc.code == "round_not_awaiting_decision":  # stored state and replay disagree
            raise RuntimeError(f"round {row.id} is open but its deal is not a tie") from exc
        raise
    result = game.result
    ledger = ledger_for(session)
    accounts = ledger.system_accounts(row.currency)
    if result.bets.raise_:
        ledger.post(
            "raise",
            row.currency,
            transfer(wallet_key(row.player_id, row.currency), accounts.in_play, result.bets.raise_),
            player_id=row.player_id,
            round_id=row.id,
        )
    _post_settlement(
        ledger,
        accounts,
        row,
        [(result.bets.ante, result.payouts.ante), (result.bets.raise_, result.payouts.raise_)],
    )
    _apply(ledger, result.bets.raise_, row.currency)
    now = utcnow()
    row.status = SETTLED
    row.decision = choice.value
    row.decided_by = decided_by
    row.raise_amount = result.bets.raise_
    row.war = None if result.war is None else result.war.to_dict()
    row.ante_payout = result.payouts.ante
    row.raise_payout = result.payouts.raise_
    row.tie_bet_payout = result.payouts.tie_bet
    row.net = result.net
    row.balance_after = _last_balance(ledger, row.id)
    row.settled_at = now
    if isinstance(row, Round):  # loaded through the ORM (SQLite, resolve-stale)
        session.flush()
        return
    values = {column: getattr(row, column) for column in _DECISION_COLUMNS}
    direct.defer(session, direct.update(_ROUNDS, "id", values | {"id": row.id}))


# What a decision changes in a round row.
_DECISION_COLUMNS = (
    "status",
    "decision",
    "decided_by",
    "raise_amount",
    "war",
    "ante_payout",
    "raise_payout",
    "tie_bet_payout",
    "net",
    "balance_after",
    "settled_at",
)


def get_round(uow: UnitOfWork, round_id: str, player_id: str | None) -> RoundView:
    row = uow.session.get(Round, round_id) if _is_uuid(round_id) else None
    if row is None or (player_id is not None and row.player_id != player_id):
        raise NotFound("no such round", code="round_not_found")
    return _views(uow, [row])[0]


def list_rounds(
    uow: UnitOfWork,
    player_id: str | None,
    status: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[RoundView]:
    """Rounds newest first, optionally one player's and/or one status."""
    size = clamp_limit(limit)
    query = select(Round)
    if player_id is not None:
        player_exists(uow.session, player_id)
        query = query.where(Round.player_id == player_id)
    if status is not None:
        if status not in ROUND_STATUSES:
            raise Invalid(
                f"status must be one of {', '.join(ROUND_STATUSES)}", code="invalid_status"
            )
        query = query.where(Round.status == status)
    if cursor:
        created_text, last_id = decode_cursor(cursor, 2)
        try:
            created = as_utc(datetime.fromisoformat(created_text))
        except (ValueError, OverflowError):  # overflow: year 1 or 9999 shifted by an offset
            raise Invalid("malformed cursor", code="invalid_cursor") from None
        if not _is_uuid(last_id):
            raise Invalid("malformed cursor", code="invalid_cursor")
        query = query.where(
            (Round.created_at < created) | ((Round.created_at == created) & (Round.id < last_id))
        )
    rows = list(
        uow.session.scalars(
            query.order_by(Round.created_at.desc(), Round.id.desc()).limit(size + 1)
        )
    )
    more = len(rows) > size
    rows = rows[:size]
    next_cursor = None
    if more and rows:
        last = rows[-1]
        next_cursor = encode_cursor(last.created_at.astimezone(UTC).isoformat(), last.id)
    return Page(items=_views(uow, rows), next_cursor=next_cursor)


@dataclass(frozen=True)
class _StaleCandidate:
    id: str
    player_id: str


def resolve_stale(uow: UnitOfWork, older_than: timedelta) -> list[RoundView]:
    """Settle rounds left awaiting a decision for longer than ``older_than``: war when the
    wallet holds the raise, else surrender (war when the table forbids surrender and the raise
    is affordable; a round that can do neither is left open). Recorded as decided by system."""
    if older_than < timedelta(0):
        raise Invalid("older_than must not be negative", code="invalid_duration")
    session = uow.session
    cutoff = utcnow() - older_than
    query = (
        select(Round)
        .where(Round.status == AWAITING_DECISION, Round.created_at <= cutoff)
        .order_by(Round.created_at)
    )
    if uow.dialect == "postgresql":
        # Rounds a player is deciding right now are skipped, not waited for.
        query = query.with_for_update(skip_locked=True)
    resolved = []
    for row in list(session.scalars(query)):
        try:
            _settle_decision(uow, row, Decision.WAR, "system")
        except Conflict as exc:
            if exc.code != "insufficient_funds":
                raise
            try:
                _settle_decision(uow, row, Decision.SURRENDER, "system")
            except IllegalAction:
                continue  # no surrender at this table and no funds for war: leave it open
        resolved.append(row)
    return _views(uow, resolved)


# --- views ----------------------------------------------------------------------------------


def _is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def _views(uow: UnitOfWork, rows: list[Round]) -> list[RoundView]:
    if not rows:
        return []
    session = uow.session
    seed_ids = {row.server_seed_id for row in rows}
    seeds = {
        seed.id: seed
        for seed in session.scalars(select(ServerSeed).where(ServerSeed.id.in_(seed_ids)))
    }
    tx_ids: dict[str, list[int]] = defaultdict(list)
    for round_id, tx_id in session.execute(
        select(LedgerTransaction.round_id, LedgerTransaction.id)
        .where(LedgerTransaction.round_id.in_([row.id for row in rows]))
        .order_by(LedgerTransaction.seq)
    ):
        tx_ids[str(round_id)].append(int(tx_id))
    ledger = ledger_for(session)
    for row in rows:  # transactions of this request, appended at commit
        tx_ids[row.id] += _pending_ids(ledger, row.id)
    return [
        round_view(
            row,
            seed_hash=seeds[row.server_seed_id].seed_hash,
            server_seed=_revealed(seeds[row.server_seed_id]),
            transaction_ids=tx_ids.get(row.id, []),
        )
        for row in rows
    ]


def _revealed(seed: ServerSeed) -> str | None:
    return None if seed.active or seed.revealed_at is None else seed.seed.hex()


def round_view(
    row: RoundRow, *, seed_hash: str, server_seed: str | None, transaction_ids: list[int]
) -> RoundView:
    decision: dict[str, Any] | None = None
    if row.decision is not None:
        decision = {"action": row.decision, "decided_by": row.decided_by or "player"}
    bets = {"ante": int(row.ante), "tie_bet": int(row.tie_bet), "raise": int(row.raise_amount)}
    payouts = {
        "ante": int(row.ante_payout),
        "tie_bet": int(row.tie_bet_payout),
        "raise": int(row.raise_payout),
    }
    outcomes = bet_outcomes(bets, payouts, settled=row.status == SETTLED)
    return RoundView(
        id=row.id,
        player_id=row.player_id,
        table_id=row.table_id,
        status=row.status,
        player_card=row.player_card,
        dealer_card=row.dealer_card,
        war=row.war,
        decision=decision,
        bets=bets,
        payouts=payouts,
        net=int(row.net),
        balance_after=int(row.balance_after),
        currency=row.currency,
        fairness={
            "server_seed_hash": seed_hash,
            "client_seed": row.client_seed,
            "nonce": int(row.nonce),
            "server_seed": server_seed,
        },
        transaction_ids=transaction_ids,
        created_at=row.created_at,
        settled_at=row.settled_at,
        rules=dict(row.rules),
        outcomes={name: label.value for name, label in outcomes.items()},
    )
