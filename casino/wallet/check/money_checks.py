"""The checks of how a wallet moves money: docs/integration.md §5, one check per rule.

Each check plays rounds of its own (fresh ids), reads the balance before and after, and
closes the rounds it opened with a win that returns their stake where the rule allows, so
a run costs the test player little.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from casino.wallet.check.kit import CheckFailed, Kit
from casino.wallet.check.registry import check
from casino.wallet.protocol import Balance, BetKind, Call, Status

STAKE = 100


@check("balance")
def balance(kit: Kit) -> None:
    kit.balance()


@check("bet")
def bet(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    outcome = kit.expect(call, Status.OK)
    kit.expect_answered_balance(outcome, before - STAKE)
    kit.expect_balance(before - STAKE, "after a bet")
    kit.expect(kit.win(call, STAKE), Status.OK)


@check("bet repeated")
def bet_repeated(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    first = kit.expect(call, Status.OK)
    again = kit.expect(call, Status.OK)
    kit.expect_same_reference(first, again)
    kit.expect_balance(before - STAKE, "after a bet sent twice")
    kit.expect(kit.win(call, STAKE), Status.OK)


@check("same id, other payload")
def same_id_other_payload(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    others: dict[str, Call] = {
        "another amount": kit.bet(STAKE + 1, call.round_id, call.transaction_id),
        "another kind": kit.bet(STAKE, call.round_id, call.transaction_id, BetKind.RAISE),
        "another round": kit.bet(STAKE, None, call.transaction_id),
        "a win under the bet's id": kit.win(call, STAKE, transaction_id=call.transaction_id),
    }
    for what, other in others.items():
        outcome = kit.send(other)
        if outcome.status is not Status.DUPLICATE_TRANSACTION:
            raise CheckFailed(f"{what}: expected DUPLICATE_TRANSACTION, got {outcome.status}")
    kit.expect_balance(before - STAKE, "after the same id with other payloads")
    kit.expect(kit.win(call, STAKE), Status.OK)


@check("not enough money")
def not_enough_money(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(before + 1)
    kit.expect(call, Status.NOT_ENOUGH_MONEY)
    kit.expect(call, Status.NOT_ENOUGH_MONEY)
    kit.expect_balance(before, "after a bet above the balance")


@check("win")
def win(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    payout = 2 * STAKE
    credit = kit.win(call, payout)
    first = kit.expect(credit, Status.OK)
    kit.expect_answered_balance(first, before + payout - STAKE)
    again = kit.expect(credit, Status.OK)
    kit.expect_same_reference(first, again)
    kit.expect_balance(before + payout - STAKE, "after a win sent twice")


@check("zero win")
def zero_win(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    kit.expect(kit.win(call, 0), Status.OK)
    kit.expect_balance(before - STAKE, "after a lost round")


@check("one win per round")
def one_win_per_round(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    kit.expect(kit.win(call, STAKE), Status.OK)
    kit.expect(kit.win(call, STAKE), Status.DUPLICATE_TRANSACTION)
    kit.expect_balance(before, "after a second win for a round")


@check("rollback")
def rollback(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    cancel = kit.rollback(call)
    first = kit.expect(cancel, Status.OK)
    kit.expect_answered_balance(first, before)
    again = kit.expect(cancel, Status.OK)
    kit.expect_same_reference(first, again)
    kit.expect_balance(before, "after a bet and its rollback sent twice")


@check("rollback of an unknown bet")
def rollback_of_unknown_bet(kit: Kit) -> None:
    before = kit.balance()
    cancel = kit.rollback(kit.bet(STAKE))
    kit.expect(cancel, Status.TRANSACTION_NOT_FOUND)
    kit.expect(cancel, Status.TRANSACTION_NOT_FOUND)
    kit.expect_balance(before, "after a rollback of a bet never sent")


@check("late bet after its rollback")
def late_bet_after_rollback(kit: Kit) -> None:
    before = kit.balance()
    late = kit.bet(STAKE)
    kit.expect(kit.rollback(late), Status.TRANSACTION_NOT_FOUND)
    outcome = kit.send(late)
    if outcome.status is not Status.DUPLICATE_TRANSACTION:
        raise CheckFailed(
            f"a bet arriving after its rollback: expected DUPLICATE_TRANSACTION,"
            f" got {outcome.status}"
        )
    kit.expect_balance(before, "after a rollback and its late bet")


@check("rollback after the win")
def rollback_after_win(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    kit.expect(kit.win(call, STAKE), Status.OK)
    kit.expect(kit.rollback(call), Status.DUPLICATE_TRANSACTION)
    kit.expect_balance(before, "after a rollback of a bet whose round was won")


@check("rollback not matching its bet")
def rollback_not_matching(kit: Kit) -> None:
    before = kit.balance()
    call = kit.bet(STAKE)
    kit.expect(call, Status.OK)
    kit.expect(kit.rollback(call, amount=STAKE + 1), Status.DUPLICATE_TRANSACTION)
    kit.expect_balance(before - STAKE, "after a rollback of another amount than its bet's")
    kit.expect(kit.rollback(call), Status.OK)
    kit.expect_balance(before, "after the right rollback")


@check("concurrent duplicates")
def concurrent_duplicates(kit: Kit) -> None:
    copies = 8
    before = kit.balance()
    call = kit.bet(STAKE)
    _all_at_once(kit, call, copies)
    kit.expect_balance(before - STAKE, f"after {copies} copies of a bet at once")
    _all_at_once(kit, kit.win(call, STAKE), copies)
    kit.expect_balance(before, f"after {copies} copies of its win at once")


def _all_at_once(kit: Kit, call: Call, copies: int) -> None:
    with ThreadPoolExecutor(max_workers=copies) as pool:
        outcomes = list(pool.map(lambda _: kit.send(call), range(copies)))
    statuses = {outcome.status for outcome in outcomes}
    references = {outcome.operator_transaction_id for outcome in outcomes}
    if statuses != {Status.OK}:
        raise CheckFailed(f"{copies} copies of one /{call.endpoint.value}: {sorted(statuses)}")
    if len(references) != 1:
        raise CheckFailed(f"{copies} copies of one /{call.endpoint.value}: ids {references}")


@check("unknown player")
def unknown_player(kit: Kit) -> None:
    o = kit.options
    stranger = kit.new_id("player")
    kit.expect(Balance(stranger, o.session, o.currency), Status.PLAYER_BLOCKED)
    kit.expect(kit.bet(STAKE, player=stranger), Status.PLAYER_BLOCKED)
    before = kit.balance()
    kit.expect(kit.bet(STAKE, currency=o.other_currency), Status.PLAYER_BLOCKED)
    kit.expect_balance(before, f"after a bet in {o.other_currency}")


@check("expired session", needs="expired_session")
def expired_session(kit: Kit) -> None:
    expired = kit.options.expired_session
    assert expired is not None
    before = kit.balance()
    kit.expect(kit.bet(STAKE, session=expired), Status.SESSION_EXPIRED)
    kit.expect_balance(before, "after a bet with an expired session")
    won = kit.bet(STAKE)
    kit.expect(won, Status.OK)
    kit.expect(kit.win(won, STAKE, session=expired), Status.OK)
    kit.expect_balance(before, "after a win sent with an expired session")
    cancelled = kit.bet(STAKE)
    kit.expect(cancelled, Status.OK)
    kit.expect(kit.rollback(cancelled, session=expired), Status.OK)
    kit.expect_balance(before, "after a rollback sent with an expired session")


@check("blocked player", needs="blocked_player")
def blocked_player(kit: Kit) -> None:
    blocked = kit.options.blocked_player
    assert blocked is not None
    kit.expect(kit.bet(STAKE, player=blocked), Status.PLAYER_BLOCKED)
