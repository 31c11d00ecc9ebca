"""The audit's replay of the rounds (``rounds_replay``): every round re-dealt from its seeds
and re-played through the engine (``replay_round``, shared with the decision use case);
cards, decision, bets, payouts and net must match the round, and its transactions must take
its stakes from its wallet and pay its payouts back. The replay is pure CPU, so many rounds
are replayed on several processes."""

from __future__ import annotations

import multiprocessing
from collections import defaultdict
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from casino.engine.casino_war import (
    BetOutcome,
    Decision,
    HandBet,
    HandResult,
    RoundInputs,
    RoundStatus,
    replay_round,
    replay_table_round,
)
from casino.engine.errors import EngineError
from casino.ledger.accounts import IN_PLAY, WALLET
from casino.ledger.books import Books, CheckResult, Problems, RoundRowForAudit, TransactionRow

AWAITING_DECISION = RoundStatus.AWAITING_DECISION.value
SETTLED = RoundStatus.SETTLED.value


def open_stake(ante: int, hands: Mapping[str, Any] | None) -> int:
    """What a round awaiting a decision holds in play: its ante (the one-hand shape), or
    every bet of its hands that is not settled yet (the hands shape)."""
    if hands is None:
        return ante
    return sum(
        int(hand["bets"][name])
        for hand in hands["hands"]
        for name, label in hand["outcomes"].items()
        if label == BetOutcome.PENDING.value
    )


def _hands_mismatch(row: RoundRowForAudit, hands: Mapping[str, Any]) -> str | None:
    """A round in the hands shape: re-dealt from its seeds with its bets and decisions, it
    must give its whole record, and its flat columns must be the record's totals."""
    results = [HandResult.from_dict(hand) for hand in hands["hands"]]
    inputs = RoundInputs(
        tuple(HandBet(hand.bets.ante, hand.bets.tie_bet) for hand in results),
        tuple(hand.decision for hand in results),
    )
    game = replay_table_round(row.rules, row.server_seed, row.client_seed, row.nonce, inputs)
    replayed = game.snapshot()
    if replayed.to_dict() != dict(hands):
        return "its hands do not replay: the seeds, bets and decisions give another round"
    if game.status.value != row.status:
        return f"recorded as {row.status} but the replay is {game.status.value}"
    bets, paid = replayed.bets, replayed.payouts
    recorded = (
        (row.ante, row.tie_bet, row.raise_amount, row.war_tie_bet),
        (row.ante_payout, row.tie_bet_payout, row.raise_payout, row.war_tie_bet_payout),
        row.net,
        (row.player_card, row.dealer_card),
    )
    wanted = (
        (bets.ante, bets.tie_bet, bets.raise_, bets.war_tie_bet),
        (paid.ante, paid.tie_bet, paid.raise_, paid.war_tie_bet),
        replayed.net,
        (replayed.hands[0].card.code, replayed.dealer_card.code),
    )
    if recorded != wanted:
        return f"totals recorded as {recorded} but the replay gives {wanted}"
    return None


def replay_mismatch(row: RoundRowForAudit) -> str | None:
    """What a stored round says that its seeds and rules do not give, if anything."""
    if row.hands is not None:
        return _hands_mismatch(row, row.hands)
    if row.war_tie_bet or row.war_tie_bet_payout:
        return "a war tie bet on a round in the one-hand shape"
    game = replay_round(
        row.rules,
        row.server_seed,
        row.client_seed,
        row.nonce,
        row.ante,
        row.tie_bet,
        None if row.decision is None else Decision(row.decision),
    )
    deal = game.deal
    if deal.player.code != row.player_card or deal.dealer.code != row.dealer_card:
        cards = f"{row.player_card}/{row.dealer_card}"
        return f"cards {cards} but the seeds deal {deal.player}/{deal.dealer}"
    if game.status.value != row.status:
        return f"recorded as {row.status} but the replay is {game.status.value}"
    if row.status == AWAITING_DECISION:
        if row.tie_bet_payout != game.tie_bet_payout:
            return f"tie bet payout {row.tie_bet_payout} != {game.tie_bet_payout}"
        return None
    result = game.result
    war = None if result.war is None else result.war.to_dict()
    if (None if row.war is None else dict(row.war)) != war:
        return f"war recorded as {row.war} but the replay gives {war}"
    bets, payouts = result.bets, result.payouts
    if (row.ante, row.tie_bet, row.raise_amount) != (bets.ante, bets.tie_bet, bets.raise_):
        return (
            f"bets recorded as {row.ante}/{row.tie_bet}/{row.raise_amount} but the replay "
            f"gives {bets.to_dict()}"
        )
    recorded = (row.ante_payout, row.tie_bet_payout, row.raise_payout)
    if recorded != (payouts.ante, payouts.tie_bet, payouts.raise_):
        return f"payouts recorded as {recorded} but the replay gives {payouts.to_dict()}"
    if row.net != result.net:
        return f"net recorded as {row.net} but the replay gives {result.net}"
    return None


def _replay_all(rows: list[RoundRowForAudit]) -> list[tuple[int, str]]:
    """(index, what is wrong) for the rounds of ``rows`` that do not replay."""
    found = []
    for index, row in enumerate(rows):
        try:
            mismatch = replay_mismatch(row)
        except (EngineError, KeyError, ValueError) as exc:
            mismatch = f"cannot be replayed: {exc}"
        if mismatch:
            found.append((index, mismatch))
    return found


#: Rounds per replay task, and fewer than this are replayed in this process.
_CHUNK = 5_000


def _replays(rows: list[RoundRowForAudit], workers: int) -> Iterator[list[tuple[int, str]]]:
    """The replay of ``rows`` in chunks: on ``workers`` processes when there are many (the
    replay is pure CPU; the books checks need one process, the rounds do not)."""
    chunks = [rows[i : i + _CHUNK] for i in range(0, len(rows), _CHUNK)]
    if workers <= 1 or len(chunks) < 2:
        yield from map(_replay_all, chunks)
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(_replay_all, chunks)


def _money_mismatch(
    row: RoundRowForAudit, txs: list[TransactionRow], kinds: Mapping[int, str]
) -> str | None:
    """The round's transactions must take its stakes from its wallet, pay its payouts back
    and hold its ante in play exactly while it awaits a decision."""
    staked = paid = in_play = 0
    for tx in txs:
        for _, account_id, amount in tx.postings:
            kind = kinds.get(account_id)
            if kind == WALLET:
                if amount < 0:
                    staked -= amount
                else:
                    paid += amount
            elif kind == IN_PLAY:
                in_play += amount
    bets = row.ante + row.tie_bet + row.raise_amount + row.war_tie_bet
    if staked != bets:
        return (
            f"stakes in the ledger {staked} != bets "
            f"{row.ante}+{row.tie_bet}+{row.raise_amount}+{row.war_tie_bet}"
        )
    if row.hands is not None:  # the payouts settled so far, every hand's
        settled_payouts = (
            row.ante_payout + row.tie_bet_payout + row.raise_payout + row.war_tie_bet_payout
        )
    else:
        settled_payouts = row.tie_bet_payout + (
            row.ante_payout + row.raise_payout if row.status == SETTLED else 0
        )
    if paid != settled_payouts:
        return f"payouts in the ledger {paid} != the round's {settled_payouts}"
    if paid - staked != row.net:
        return f"wallet postings {paid - staked} != net {row.net}"
    held = open_stake(row.ante, row.hands) if row.status == AWAITING_DECISION else 0
    if in_play != held:
        return f"in-play postings {in_play} != open stake {held}"
    return None


def check_rounds(books: Books, workers: int) -> CheckResult:
    problems = Problems()
    kinds = {account.id: account.kind for account in books.accounts.values()}
    by_round: dict[str, list[TransactionRow]] = defaultdict(list)
    for tx in books.transactions:
        if tx.round_id is not None:
            by_round[tx.round_id].append(tx)
    rows = list(books.rounds)
    replayed = len(rows)
    for chunk_start, found in enumerate(_replays(rows, workers)):
        for index, mismatch in found:
            problems.add(f"round {rows[chunk_start * _CHUNK + index].id}: {mismatch}")
    for row in rows:
        money = _money_mismatch(row, by_round.pop(row.id, []), kinds)
        if money:
            problems.add(f"round {row.id}: {money}")
    if books.rounds_since is None:
        for round_id in by_round:
            problems.add(f"transactions refer to missing round {round_id}")
        which = f"{replayed} rounds"
    else:
        which = f"{replayed} rounds (started since {books.rounds_since.isoformat()})"
    return problems.result("rounds_replay", f"{which} re-dealt and replayed, all match")
