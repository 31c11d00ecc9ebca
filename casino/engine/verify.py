"""Verify a Casino War round dealt by this casino: standard library only, no other imports.

This file is an independent re-implementation of ``docs/fairness.md`` (it does not use the
engine), so a player can copy it alone and run it::

    python verify.py --round ROUND.json            # the JSON of GET /api/v1/rounds/{id}
    python verify.py --round - < ROUND.json        # the same, from standard input
    python verify.py --server-seed HEX --client-seed S --nonce N --decks D [--hash HEX]
    python verify.py ... --decks D --hands H       # a table of several hands: its deal
    python verify.py --shoe SHOE.json              # a shared table's revealed shoe
    python verify.py --shoe-seed HEX --shoe-index K --public-value V --decks D [--hash C0]

or, inside the project, ``python -m casino.engine.verify`` / ``casino verify``.

With ``--shoe`` (a shared table's shoe, docs/fairness.md section 17) it checks the shoe's seed
against the chain's commitment (K SHA-256 links down) and its own commitment, rebuilds the
shoe (order, burn, cut card), re-deals every round it records and re-settles any bettor's
results it carries; with ``--shoe-seed`` it prints the shoe's burn, cut card and rounds.
``shared_shoe`` is the whole algorithm as one pure function.

With ``--round`` it takes the decks, the rules, the seeds, the nonce, the bets and the
decisions from the round, re-deals it, settles it on its own and compares everything the round
records: the commitment, every card (the dealer's, each hand's, every war's burns and cards),
the raises and war tie bets, every bet's payout and label, each hand's net and the round's, and
the status. A round of one hand is recorded in the one-hand shape (``player_card``, ``war``...),
a round at a table of several hands, repeated wars or a war tie bet in the hands shape
(``hands``, ``wars``): docs/fairness.md, sections 6 and 13-14. Without ``--round`` it prints the
cards in dealing order (the decks must then be given: a verifier that guessed them could re-deal
the wrong shoe).

Exit status: 0 = everything checked matches; 1 = something does not match (the server seed
against the published hash, or any value of the round); 2 = invalid input.

(One file of more than 400 lines on purpose: a player copies it alone.)
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")  # low to high
SUITS = ("C", "D", "H", "S")
#: One pack in canonical order: clubs 2..A, diamonds 2..A, hearts 2..A, spades 2..A.
PACK = tuple(rank + suit for suit in SUITS for rank in RANKS)
ROLES = ("player", "dealer", "burn 1", "burn 2", "burn 3", "war player", "war dealer")
MIN_DECKS, MAX_DECKS = 1, 8
NONCE_MAX = 2**63 - 1
CLIENT_SEED_MAX = 64
TIE_PAYS = (10, 11, 12)
BETS = ("ante", "tie_bet", "raise")
HAND_BETS = ("ante", "tie_bet", "raise", "war_tie_bet")
MAX_HANDS = 5
BURNS = 3
EXIT_OK, EXIT_MISMATCH, EXIT_INVALID = 0, 1, 2
#: Kept for callers of the first version, where 1 meant only "the hash does not match".
EXIT_HASH_MISMATCH = EXIT_MISMATCH
_NONCE_TEXT = re.compile(r"0|[1-9][0-9]*")


class InputError(ValueError):
    """Input the verifier cannot check (exit status 2)."""


# --- the fairness algorithm (docs/fairness.md sections 1-5) ----------------------------------


def u32_stream(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    """4-byte big-endian integers of HMAC-SHA256(server_seed, "client:nonce:i"), i = 0, 1, ..."""
    block = 0
    while True:
        message = f"{client_seed}:{nonce}:{block}".encode("ascii")
        digest = hmac.new(server_seed, message, hashlib.sha256).digest()
        for offset in range(0, len(digest), 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


def randbelow(stream: Iterator[int], n: int) -> int:
    """Uniform in [0, n): reject draws >= 2**32 - 2**32 % n, reduce the rest modulo n."""
    limit = 2**32 - 2**32 % n
    while True:
        x = next(stream)
        if x < limit:
            return x % n


def deal(server_seed: bytes, client_seed: str, nonce: int, decks: int, count: int) -> list[str]:
    """The first ``count`` cards of the shoe after a front-to-back Fisher-Yates shuffle."""
    shoe = list(PACK * decks)
    stream = u32_stream(server_seed, client_seed, nonce)
    for i in range(count):
        j = i + randbelow(stream, len(shoe) - i)
        shoe[i], shoe[j] = shoe[j], shoe[i]
    return shoe[:count]


def rank_value(card: str) -> int:
    return RANKS.index(card[:-1])


def outcome(cards: Sequence[str]) -> str:
    player, dealer, war_player, war_dealer = (rank_value(cards[i]) for i in (0, 1, 5, 6))
    if player > dealer:
        return "player wins: the ante pays 1 to 1"
    if player < dealer:
        return "dealer wins: the ante is lost"
    if war_player > war_dealer:
        war = "the player wins the war (the ante pushes, the raise pays 1 to 1)"
    elif war_player == war_dealer:
        war = "the war ties, which the player wins (plus the bonus where the table pays it)"
    else:
        war = "the dealer wins the war (ante and raise are lost)"
    return f"tie, which pays the tie bet; surrender returns half the ante; at war {war}"


# --- input checks ------------------------------------------------------------------------------


def parse_nonce(text: str) -> int:
    """A nonce as the spec writes it: decimal digits, no sign, no leading zero, <= 2**63 - 1."""
    if not _NONCE_TEXT.fullmatch(text):
        raise InputError("nonce must be decimal digits without sign or leading zeros")
    nonce = int(text)
    if nonce > NONCE_MAX:
        raise InputError(f"nonce must be at most 2**63 - 1 = {NONCE_MAX}")
    return nonce


def parse_server_seed(text: str) -> bytes:
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise InputError("server seed must be 64 hex digits (32 bytes)")
    return bytes.fromhex(text)


def check_client_seed(client_seed: str) -> str:
    """1 to 64 characters from " " to "~", used byte for byte (spaces at either end count)."""
    if not 1 <= len(client_seed) <= CLIENT_SEED_MAX or not all(
        " " <= ch <= "~" for ch in client_seed
    ):
        raise InputError("client seed must be 1 to 64 printable ASCII characters")
    return client_seed


def check_decks(decks: int) -> int:
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise InputError(f"decks must be {MIN_DECKS} to {MAX_DECKS}")
    return decks


# --- settling a round on its own (docs/fairness.md section 6) --------------------------------


def bet_label(stake: int, payout: int, settled: bool) -> str:
    if stake <= 0:
        return "none"
    if not settled:
        return "pending"
    if payout > stake:
        return "win"
    if payout == stake:
        return "push"
    return "lose" if payout <= 0 else "surrender"


def settle(
    cards: Sequence[str], rules: Mapping[str, Any], ante: int, tie_bet: int, decision: str | None
) -> dict[str, Any]:
    """What a round with these seven cards, bets and decision must record.

    Returns ``status``, ``war`` (None unless the player went to war), ``raise``, ``payouts``,
    ``net`` and ``outcomes``. A decision only counts on a tie (``check_round`` reports one
    recorded without a tie); an unknown decision raises ``InputError``.
    """
    player, dealer = rank_value(cards[0]), rank_value(cards[1])
    tie = player == dealer
    tie_payout = tie_bet * (int(rules["tie_pays"]) + 1) if tie else 0
    ante_payout = raise_ = raise_payout = 0
    war = None
    if decision not in (None, "surrender", "war"):
        raise InputError(f"unknown decision {decision!r}")
    if not tie:
        status = "settled"
        ante_payout = 2 * ante if player > dealer else 0
    elif ante == 0:
        status = "settled"  # a tie bet alone: paid on the tie, nothing to decide
    elif decision is None:
        status = "awaiting_decision"
    elif decision == "surrender":
        status = "settled"
        ante_payout = ante // 2
    elif decision == "war":
        status = "settled"
        raise_ = ante
        war = {"burns": list(cards[2:5]), "player_card": cards[5], "dealer_card": cards[6]}
        war_player, war_dealer = rank_value(cards[5]), rank_value(cards[6])
        if war_player >= war_dealer:
            # The ante pushes, the raise wins even money; the war-tie bonus rides on the raise.
            bonus = ante if war_player == war_dealer and rules.get("war_tie_bonus") else 0
            ante_payout, raise_payout = ante, 2 * ante + bonus
    payouts = {"ante": ante_payout, "tie_bet": tie_payout, "raise": raise_payout}
    stakes = {"ante": ante, "tie_bet": tie_bet, "raise": raise_}
    settled = status == "settled"
    return {
        "status": status,
        "war": war,
        "raise": raise_,
        "payouts": payouts,
        "net": sum(payouts.values()) - sum(stakes.values()),
        "outcomes": {
            name: bet_label(stakes[name], payouts[name], settled or name == "tie_bet")
            for name in BETS
        },
    }


# --- rounds of several hands, repeated wars, side bets (docs/fairness.md sections 13-14) ------


def _flag(rules: Mapping[str, Any], name: str, default: bool) -> bool:
    value = rules.get(name, default)
    if not isinstance(value, bool):
        raise InputError(f"rules.{name} must be true or false")
    return value


def _whole(rules: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = rules.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise InputError(f"rules.{name} must be an integer from {low} to {high}")
    return value


def _api_war_tie_bet(rules: Mapping[str, Any]) -> Mapping[str, Any]:
    """The API spells the war tie bet ``{"enabled", "pays", "max"}``; the stored snapshot
    ``max_war_tie_bet`` and ``war_tie_pays``: the snapshot's names either way."""
    spelled = rules.get("war_tie_bet")
    if spelled is None:
        return rules
    if not isinstance(spelled, Mapping) or not isinstance(spelled.get("enabled"), bool):
        raise InputError("rules.war_tie_bet must be an object with enabled, pays and max")
    enabled = spelled["enabled"]
    return {
        **rules,
        "max_war_tie_bet": spelled.get("max", 0) if enabled else 0,
        "war_tie_pays": spelled.get("pays", 10),
    }


def table_rules(rules: Mapping[str, Any]) -> dict[str, Any]:
    """Every rule a round needs, with the defaults of a rule the snapshot leaves out."""
    rules = _api_war_tie_bet(rules)
    if rules.get("tie_pays") not in TIE_PAYS:
        raise InputError(f"rules.tie_pays must be one of {TIE_PAYS}")
    bonus = _flag(rules, "war_tie_bonus", False)
    war_ties = rules.get("war_ties", "bonus" if bonus else "push")
    if war_ties not in ("push", "bonus", "repeat") or (bonus and war_ties != "bonus"):
        raise InputError("rules.war_ties must be push, bonus or repeat (bonus with the bonus)")
    ladder = rules.get("tie_ladder")
    if ladder is not None and (
        not isinstance(ladder, list) or not ladder or any(type(k) is not int for k in ladder)
    ):
        raise InputError("rules.tie_ladder must be a list of whole numbers")
    if rules.get("war_tie_pays", 10) not in TIE_PAYS:
        raise InputError(f"rules.war_tie_pays must be one of {TIE_PAYS}")
    seconds = rules.get("decision_seconds")
    if seconds is not None and type(seconds) is not int:
        raise InputError("rules.decision_seconds must be null or an integer")
    return {
        "decks": check_decks(_whole(rules, "decks", 6, MIN_DECKS, MAX_DECKS)),
        "tie_pays": rules["tie_pays"],
        "war_tie_bonus": war_ties == "bonus",
        "war_ties": war_ties,
        "max_war_ties": _whole(rules, "max_war_ties", 4, 2, 8),
        "tie_ladder": ladder,
        "war_tie_pays": rules.get("war_tie_pays", 10),
        "max_war_tie_bet": _whole(rules, "max_war_tie_bet", 0, 0, NONCE_MAX),
        "max_hands": _whole(rules, "max_hands", 1, 1, MAX_HANDS),
        "surrender_allowed": _flag(rules, "surrender_allowed", True),
        "tie_only": _flag(rules, "tie_only", False),
        "decision_seconds": seconds,
    }


def cards_needed(rules: Mapping[str, Any], hands: int) -> int:
    """The most cards a round of ``hands`` hands can use: the first cards, then every war."""
    wars = rules["max_war_ties"] - 1 if rules["war_ties"] == "repeat" else 1
    return min(1 + hands + wars * (BURNS + hands + 1), 52 * rules["decks"])


def tie_return(rules: Mapping[str, Any], ties: int) -> int:
    """What one unit of tie bet returns after ``ties`` ties in a row (the ladder's step)."""
    if ties == 0:
        return 0
    ladder = rules["tie_ladder"]
    if ladder is None:
        return int(rules["tie_pays"]) + 1
    return int(ladder[min(ties, len(ladder)) - 1]) + 1


def _new_hand(index: int, card: str, dealer: str, stake: Mapping[str, int], rules: Any) -> dict:
    ante, tie_bet = stake["ante"], stake["tie_bet"]
    hand: dict[str, Any] = {
        "hand": index,
        "card": card,
        "status": "settled",
        "decision": None,
        "ties": 0,
        "outcome": None,
        "bets": {"ante": ante, "tie_bet": tie_bet, "raise": 0, "war_tie_bet": 0},
        "payouts": dict.fromkeys(HAND_BETS, 0),
        "pending": set(),
        "wars": 0,
    }
    player, banker = rank_value(card), rank_value(dealer)
    if player != banker:
        hand["outcome"] = "win" if player > banker else "loss"
        hand["payouts"]["ante"] = 2 * ante if player > banker else 0
        return hand
    hand["ties"] = 1
    if ante == 0:  # a tie bet alone: paid on the tie, no war
        hand["outcome"] = "tie"
        hand["payouts"]["tie_bet"] = tie_bet * tie_return(rules, 1)
        return hand
    hand["status"] = "awaiting_decision"
    hand["pending"].update(("ante", "raise"))
    if rules["tie_ladder"] is None:
        hand["payouts"]["tie_bet"] = tie_bet * tie_return(rules, 1)
    else:
        hand["pending"].add("tie_bet")  # the ladder waits for the hand's last war
    return hand


def _finish(hand: dict[str, Any], rules: Any, outcome: str, ante: int, raised: int) -> None:
    hand["outcome"] = outcome
    hand["status"] = "settled"
    hand["payouts"]["ante"], hand["payouts"]["raise"] = ante, raised
    if "tie_bet" in hand["pending"]:
        hand["payouts"]["tie_bet"] = hand["bets"]["tie_bet"] * tie_return(rules, hand["ties"])
    hand["pending"].clear()


def _decide(hand: dict[str, Any], choice: Mapping[str, Any], rules: Any) -> list[str]:
    """Apply a recorded decision; what the rules or the cards do not allow of it."""
    action, by, placed = choice["action"], choice["decided_by"], choice["war_tie_bet"]
    wrong = []
    if hand["status"] != "awaiting_decision":
        return [f"hand {hand['hand']}: a decision on a hand that did not tie with an ante"]
    if action == "surrender" and not rules["surrender_allowed"]:
        wrong.append(f"hand {hand['hand']}: surrender at a table that forbids it")
    if by == "timeout" and (rules["decision_seconds"] is None or action != "surrender"):
        wrong.append(f"hand {hand['hand']}: decided by a clock the table does not have")
    if placed and (action != "war" or placed > rules["max_war_tie_bet"]):
        wrong.append(f"hand {hand['hand']}: a war tie bet the table does not take")
    hand["decision"] = {"action": action, "decided_by": by}
    ante = hand["bets"]["ante"]
    if action == "surrender":
        _finish(hand, rules, "surrender", ante // 2, 0)
        return wrong
    hand["status"] = "at_war"
    hand["bets"]["raise"] = ante
    hand["bets"]["war_tie_bet"] = placed
    if placed:
        hand["pending"].add("war_tie_bet")
    return wrong


def _war(hand: dict[str, Any], card: str, dealer: str, rules: Any) -> bool:
    """Settle a hand's war card; True when its war is fought again."""
    hand["wars"] += 1
    player, banker = rank_value(card), rank_value(dealer)
    placed = hand["bets"]["war_tie_bet"]
    if hand["wars"] == 1 and placed:
        hand["payouts"]["war_tie_bet"] = (
            placed * (rules["war_tie_pays"] + 1) if player == banker else 0
        )
        hand["pending"].discard("war_tie_bet")
    ante = hand["bets"]["ante"]
    if player != banker:
        won = player > banker
        _finish(
            hand,
            rules,
            "war_win" if won else "war_loss",
            ante if won else 0,
            2 * ante if won else 0,
        )
        return False
    hand["ties"] += 1
    if rules["war_ties"] == "repeat" and hand["ties"] < rules["max_war_ties"]:
        return True
    bonus = ante if rules["war_ties"] == "bonus" else 0
    _finish(hand, rules, "war_tie", ante, 2 * ante + bonus)  # a tied war is paid as won
    return False


def play_table(
    cards: Sequence[str],
    rules: Mapping[str, Any],
    stakes: Sequence[Mapping[str, int]],
    decisions: Sequence[Mapping[str, Any] | None],
) -> tuple[dict[str, Any], list[str]]:
    """The round these cards (in dealing order), bets and decisions make, in the hands shape,
    and what of the decisions the rules or the cards do not allow."""
    count = len(stakes)
    if rules["max_hands"] == 1:  # the classic order: the player's card, then the dealer's
        dealing, dealer, firsts = "classic", cards[1], [cards[0]]
    else:  # a table of several hands: the dealer's card, then one per hand
        dealing, dealer, firsts = "table", cards[0], list(cards[1 : 1 + count])
    following = 1 + count
    hands = [_new_hand(i, firsts[i], dealer, stakes[i], rules) for i in range(count)]
    wrong: list[str] = []
    for hand, choice in zip(hands, decisions, strict=True):
        if choice is not None:
            wrong += _decide(hand, choice, rules)
    wars = []
    waiting = any(hand["status"] == "awaiting_decision" for hand in hands)
    at_war = [] if waiting else [hand for hand in hands if hand["status"] == "at_war"]
    while at_war:
        burns = list(cards[following : following + BURNS])
        following += BURNS
        dealt = []
        for hand in at_war:
            dealt.append({"hand": hand["hand"], "card": cards[following]})
            following += 1
        dealer_card = cards[following]
        following += 1
        wars.append({"burns": burns, "cards": dealt, "dealer_card": dealer_card})
        at_war = [
            hand
            for hand, item in zip(at_war, dealt, strict=True)
            if _war(hand, item["card"], dealer_card, rules)
        ]
    shown = []
    for hand in hands:
        stake, paid = hand["bets"], hand["payouts"]
        shown.append(
            {
                "hand": hand["hand"],
                "card": hand["card"],
                "status": hand["status"],
                "decision": hand["decision"],
                "ties": hand["ties"],
                "outcome": hand["outcome"],
                "bets": stake,
                "payouts": paid,
                "outcomes": {
                    name: bet_label(stake[name], paid[name], name not in hand["pending"])
                    for name in HAND_BETS
                },
                "net": sum(paid.values()) - sum(stake.values()),
            }
        )
    totals = {
        key: {name: sum(hand[key][name] for hand in shown) for name in HAND_BETS}
        for key in ("bets", "payouts")
    }
    settled = all(hand["status"] == "settled" for hand in shown)
    round_ = {
        "status": "settled" if settled else "awaiting_decision",
        "dealing": dealing,
        "dealer_card": dealer,
        "hands": shown,
        "wars": wars,
        **totals,
        "net": sum(hand["net"] for hand in shown),
    }
    return round_, wrong


# --- checking a recalled round ---------------------------------------------------------------


def _field(doc: Mapping[str, Any], path: str) -> Any:
    value: Any = doc
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            raise InputError(f"the round has no {path!r}")
        value = value[key]
    return value


def _integer(doc: Mapping[str, Any], path: str, low: int = 0, high: int = NONCE_MAX) -> int:
    value = _field(doc, path)
    if type(value) is not int or not low <= value <= high:
        raise InputError(f"{path} must be an integer from {low} to {high}")
    return value


def load_round(source: str) -> dict[str, Any]:
    """The round document from a file, or from standard input for ``-``."""
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError("the round must be a JSON object (GET /api/v1/rounds/{id})")
    return doc


def _seeds(doc: Mapping[str, Any], server_seed: bytes | None) -> tuple[bytes, str, int]:
    revealed = _field(doc, "fairness.server_seed")
    if revealed is not None:
        if not isinstance(revealed, str):
            raise InputError("fairness.server_seed must be hex text or null")
        recorded_seed = parse_server_seed(revealed)
        if server_seed is not None and server_seed != recorded_seed:
            raise InputError("--server-seed differs from the server seed the round reveals")
        server_seed = recorded_seed
    if server_seed is None:
        raise InputError(
            "the round's server seed is not revealed yet: rotate the seeds "
            "(POST /api/v1/players/{id}/seeds/rotate) and recall the round again, or give "
            "the revealed seed with --server-seed"
        )
    client_seed = _field(doc, "fairness.client_seed")
    if not isinstance(client_seed, str):
        raise InputError("fairness.client_seed must be text")
    check_client_seed(client_seed)
    return server_seed, client_seed, _integer(doc, "fairness.nonce")


def check_round(
    doc: Mapping[str, Any], server_seed: bytes | None = None, published_hash: str | None = None
) -> dict[str, Any]:
    """Re-deal and re-settle a recalled round; every check with what the round recorded and
    what the seeds give. ``server_seed`` stands in for a round recalled before the seed was
    revealed (it must agree with the round's own, if the round has one)."""
    seed, client_seed, nonce = _seeds(doc, server_seed)
    rules = _field(doc, "rules")
    if not isinstance(rules, Mapping):
        raise InputError("rules must be an object")
    decks = check_decks(_integer(doc, "rules.decks", MIN_DECKS, MAX_DECKS))
    table = table_rules(rules)
    checks: list[dict[str, Any]] = []

    def check(name: str, recorded: Any, wanted: Any) -> None:
        checks.append(
            {"name": name, "ok": recorded == wanted, "recorded": recorded, "expected": wanted}
        )

    commitment = hashlib.sha256(seed).hexdigest()
    check("commitment", _field(doc, "fairness.server_seed_hash"), commitment)
    if published_hash is not None:
        check("published hash", published_hash.strip().lower(), commitment)
    if "hands" in doc:
        cards = _check_hands_round(doc, table, seed, client_seed, nonce, check)
        dealt = None
    else:
        cards = _check_one_hand(doc, table, seed, client_seed, nonce, check)
        dealt = dict(zip(ROLES, cards, strict=True))
    return {
        "round_id": doc.get("id"),
        "server_seed": seed.hex(),
        "commitment": commitment,
        "client_seed": client_seed,
        "nonce": nonce,
        "decks": decks,
        "cards": cards,
        "dealt": dealt,
        "checks": checks,
        "match": all(c["ok"] for c in checks),
    }


def _check_one_hand(
    doc: Mapping[str, Any],
    rules: Mapping[str, Any],
    seed: bytes,
    client_seed: str,
    nonce: int,
    check: Any,
) -> list[str]:
    """A round in the one-hand shape (docs/fairness.md section 6)."""
    tie_only = rules["tie_only"]
    ante = _integer(doc, "bets.ante", 0 if tie_only else 1)
    tie_bet = _integer(doc, "bets.tie_bet", 1 if ante == 0 else 0)
    raw_decision = _field(doc, "decision")
    decision = decided_by = None
    if raw_decision is not None:
        decision = _field(doc, "decision.action")
        decided_by = raw_decision.get("decided_by") if isinstance(raw_decision, Mapping) else None
    cards = deal(seed, client_seed, nonce, rules["decks"], len(ROLES))
    expected = settle(cards, rules, ante, tie_bet, decision)
    one_hand = (
        rules["max_hands"] == 1 and rules["war_ties"] != "repeat" and not rules["max_war_tie_bet"]
    )
    if not one_hand:  # these rules record their rounds in the hands shape
        check("shape", "one_hand", "hands")
    tie = rank_value(cards[0]) == rank_value(cards[1])
    if decision is not None and (not tie or ante == 0):
        check("decision", decision, None)  # a decision is only ever asked on a tie
    if decision == "surrender" and not rules["surrender_allowed"]:
        check("decision", decision, "war (this table does not allow surrender)")
    if decided_by == "timeout" and (rules["decision_seconds"] is None or decision != "surrender"):
        check("decision.decided_by", decided_by, "player or system (no clock surrenders here)")
    check("player_card", doc.get("player_card"), cards[0])
    check("dealer_card", doc.get("dealer_card"), cards[1])
    check("status", doc.get("status"), expected["status"])
    check("war", doc.get("war"), expected["war"])
    check("bets.raise", _field(doc, "bets.raise"), expected["raise"])
    for name in BETS:
        check(f"payouts.{name}", _field(doc, f"payouts.{name}"), expected["payouts"][name])
    check("net", doc.get("net"), expected["net"])
    if "outcomes" in doc:  # recalls since the per-bet labels were added
        for name in BETS:
            check(f"outcomes.{name}", _field(doc, f"outcomes.{name}"), expected["outcomes"][name])
    return cards


def _recorded_hands(
    doc: Mapping[str, Any], rules: Mapping[str, Any]
) -> tuple[list[dict[str, int]], list[dict[str, Any] | None]]:
    """Each hand's bets and decision, as the round records them."""
    hands = doc["hands"]
    if not isinstance(hands, list) or not 1 <= len(hands) <= rules["max_hands"]:
        raise InputError(f"hands must be a list of 1 to {rules['max_hands']} hands")
    stakes: list[dict[str, int]] = []
    decisions: list[dict[str, Any] | None] = []
    for i, hand in enumerate(hands):
        if not isinstance(hand, Mapping):
            raise InputError(f"hands[{i}] must be an object")
        ante = _integer(hand, "bets.ante", 0 if rules["tie_only"] else 1)
        tie_bet = _integer(hand, "bets.tie_bet", 1 if ante == 0 else 0)
        stakes.append({"ante": ante, "tie_bet": tie_bet})
        choice = hand.get("decision")
        if choice is None:
            decisions.append(None)
            continue
        action = _field(hand, "decision.action")
        by = choice.get("decided_by", "player") if isinstance(choice, Mapping) else None
        if action not in ("surrender", "war") or by not in ("player", "system", "timeout"):
            raise InputError(
                f"hands[{i}].decision must be surrender or war, by player/system/timeout"
            )
        placed = _integer(hand, "bets.war_tie_bet") if "war_tie_bet" in hand.get("bets", {}) else 0
        decisions.append({"action": action, "decided_by": by, "war_tie_bet": placed})
    return stakes, decisions


def _check_hands_round(
    doc: Mapping[str, Any],
    rules: Mapping[str, Any],
    seed: bytes,
    client_seed: str,
    nonce: int,
    check: Any,
) -> list[str]:
    """A round in the hands shape (docs/fairness.md sections 13-14)."""
    stakes, decisions = _recorded_hands(doc, rules)
    cards = deal(seed, client_seed, nonce, rules["decks"], cards_needed(rules, len(stakes)))
    expected, wrong = play_table(cards, rules, stakes, decisions)
    for problem in wrong:
        check("decision", problem, "no such decision")
    for key in ("status", "dealing", "dealer_card"):
        check(key, doc.get(key), expected[key])
    recorded = doc["hands"]
    for i, wanted in enumerate(expected["hands"]):
        hand = recorded[i]
        for key in ("card", "status", "decision", "ties", "outcome", "net"):
            check(f"hands[{i}].{key}", hand.get(key), wanted[key])
        for part in ("bets", "payouts", "outcomes"):
            for name in HAND_BETS:
                got = hand.get(part, {}).get(name) if isinstance(hand.get(part), Mapping) else None
                check(f"hands[{i}].{part}.{name}", got, wanted[part][name])
    check("wars", doc.get("wars"), expected["wars"])
    for part in ("bets", "payouts"):
        check(part, doc.get(part), expected[part])
    check("net", doc.get("net"), expected["net"])
    used = 1 + len(stakes) + sum(BURNS + len(war["cards"]) + 1 for war in expected["wars"])
    return cards[:used]


# --- shared tables: the chain, the shoe, its rounds (docs/fairness.md section 17) -------------

SHOE_CLIENT_MAX = CLIENT_SEED_MAX
CUT_FROM, CUT_TO = (3, 4), (17, 20)


def chain_down(seed: bytes, steps: int) -> bytes:
    """``steps`` SHA-256 links down a hash chain from ``seed`` (over the 32 raw bytes)."""
    for _ in range(steps):
        seed = hashlib.sha256(seed).digest()
    return seed


def burn_size(shown: str) -> int:
    """The face-up burn card and as many more as its value: ace 1, tens and faces 10."""
    rank = shown[:-1]
    value = 1 if rank == "A" else 10 if rank in ("10", "J", "Q", "K") else int(rank)
    return 1 + value


def most_round_cards(war_ties: str, max_war_ties: int) -> int:
    """The most cards one shared round can use: two, then five per war."""
    wars = max_war_ties - 1 if war_ties == "repeat" else 1
    return 2 + wars * (BURNS + 2)


def shared_shoe(
    seed: bytes, public_value: str, index: int, decks: int, war_ties: str, max_war_ties: int
) -> dict[str, Any]:
    """A shared table's shoe, rebuilt from its chain seed, the chain's public value and its
    index: the order, the burn, the cut card and every round until the cut card. A pure
    function of its arguments (an audit or an export verifier can mirror it as it is)."""
    size = 52 * decks
    order = list(PACK * decks)
    stream = u32_stream(seed, public_value, index)
    for i in range(size - 1):  # the last position draws nothing
        j = i + randbelow(stream, size - i)
        order[i], order[j] = order[j], order[i]
    low = -(-size * CUT_FROM[0] // CUT_FROM[1])
    high = min(size * CUT_TO[0] // CUT_TO[1], size - most_round_cards(war_ties, max_war_ties) + 1)
    low = min(low, high)
    cut = low + randbelow(stream, high - low + 1)
    burn = burn_size(order[0])
    rounds: list[dict[str, Any]] = []
    position = burn
    while position < cut:
        start = position
        player, dealer = order[position], order[position + 1]
        position += 2
        wars = []
        if rank_value(player) == rank_value(dealer):
            ties = 1
            while True:
                war_player, war_dealer = order[position + BURNS], order[position + BURNS + 1]
                wars.append(
                    {
                        "burns": order[position : position + BURNS],
                        "player_card": war_player,
                        "dealer_card": war_dealer,
                    }
                )
                position += BURNS + 2
                if rank_value(war_player) != rank_value(war_dealer):
                    break
                ties += 1
                if not (war_ties == "repeat" and ties < max_war_ties):
                    break
        rounds.append(
            {
                "round": len(rounds) + 1,
                "start": start,
                "player_card": player,
                "dealer_card": dealer,
                "wars": wars,
            }
        )
    return {
        "order": order,
        "burn": {"shown": order[0], "cards": burn},
        "burnt": order[:burn],
        "cut": cut,
        "rounds": rounds,
    }


def round_cards(dealt: Mapping[str, Any]) -> list[str]:
    """A shared round's cards in dealing order: player, dealer, then each war's five."""
    cards = [dealt["player_card"], dealt["dealer_card"]]
    for war in dealt["wars"]:
        cards += [*war["burns"], war["player_card"], war["dealer_card"]]
    return cards


def _shoe_index(value: Any) -> int:
    if type(value) is not int or not 1 <= value <= NONCE_MAX:
        raise InputError("the shoe's index in its chain must be a whole number from 1")
    return value


def _public_value(doc: Mapping[str, Any]) -> tuple[str, str]:
    value = _field(doc, "public_value")
    source = "unknown"
    if isinstance(value, Mapping):
        source = str(value.get("source", "unknown"))
        value = value.get("value")
    if not isinstance(value, str):
        raise InputError("public_value.value must be text (the value the chain is mixed with)")
    return check_client_seed(value), source


def check_shoe(doc: Mapping[str, Any], chain_commitment: str | None = None) -> dict[str, Any]:
    """Check a revealed shoe of a shared table (``GET`` a table's shoe once it is over): the
    seed against the chain's commitment (``index`` links down) and against the shoe's own
    commitment (one link), then the burn, the cut card, the order and every round it records
    re-dealt, and any bettor's results it carries (``bets``) re-settled."""
    index = _shoe_index(_field(doc, "shoe"))
    revealed = _field(doc, "seed")
    if revealed is None:
        raise InputError("the shoe's seed is not revealed yet: check it once the shoe is over")
    if not isinstance(revealed, str):
        raise InputError("seed must be hex text or null")
    seed = parse_server_seed(revealed)
    public_value, source = _public_value(doc)
    rules = _field(doc, "rules")
    if not isinstance(rules, Mapping):
        raise InputError("rules must be an object")
    table = table_rules(rules)
    if table["max_hands"] != 1:
        raise InputError("a shared table's rules have max_hands 1")
    checks: list[dict[str, Any]] = []

    def check(name: str, recorded: Any, wanted: Any) -> None:
        checks.append(
            {"name": name, "ok": recorded == wanted, "recorded": recorded, "expected": wanted}
        )

    commitments = []
    chain = doc.get("chain")
    if isinstance(chain, Mapping) and chain.get("commitment") is not None:
        commitments.append(("chain.commitment", str(chain["commitment"]).strip().lower()))
    if chain_commitment is not None:
        commitments.append(("published chain commitment", chain_commitment.strip().lower()))
    if not commitments:
        raise InputError("give the chain's commitment (chain.commitment, or --hash)")
    reached = chain_down(seed, index).hex()
    for name, value in commitments:
        check(name, value, reached)
    link = hashlib.sha256(seed).hexdigest()
    if "commitment" in doc:
        check("commitment", doc["commitment"], link)
    shoe = shared_shoe(
        seed, public_value, index, table["decks"], table["war_ties"], table["max_war_ties"]
    )
    if "decks" in doc:
        check("decks", doc["decks"], table["decks"])
    check("burn", doc.get("burn"), shoe["burn"])
    check("cut", doc.get("cut"), shoe["cut"])
    for key in ("order", "burnt"):
        if key in doc:
            check(key, doc[key], shoe[key])
    recorded = doc.get("rounds")
    if recorded is not None:
        if not isinstance(recorded, list):
            raise InputError("rounds must be a list")
        check("rounds dealt", len(recorded), len(shoe["rounds"]))
        for got, wanted in zip(recorded, shoe["rounds"], strict=False):
            number = wanted["round"]
            for key in ("round", "start", "player_card", "dealer_card", "wars"):
                found = got.get(key) if isinstance(got, Mapping) else None
                check(f"rounds[{number}].{key}", found, wanted[key])
    for bet in doc.get("bets") or []:
        _check_shared_bet(bet, shoe, table, check)
    return {
        "shoe": index,
        "seed": seed.hex(),
        "commitment": link,
        "chain_commitment": reached,
        "public_value": public_value,
        "public_source": source,
        "grindable": source not in ("drand", "bitcoin"),
        "decks": table["decks"],
        "burn": shoe["burn"],
        "cut": shoe["cut"],
        "rounds": shoe["rounds"],
        "checks": checks,
        "match": all(c["ok"] for c in checks),
    }


def _check_shared_bet(
    bet: Any, shoe: Mapping[str, Any], rules: Mapping[str, Any], check: Any
) -> None:
    """One bettor's result on one round (a hand of the hands shape, with its ``round``)."""
    if not isinstance(bet, Mapping) or type(bet.get("round")) is not int:
        raise InputError("each of bets must be an object with its round")
    number = bet["round"]
    if not 1 <= number <= len(shoe["rounds"]):
        check(f"bets[round {number}]", number, f"a round of the shoe (1 to {len(shoe['rounds'])})")
        return
    stakes, decisions = _recorded_hands({"hands": [bet]}, rules)
    # Every war of a tied round is dealt, so the round's cards are all a bettor can need.
    cards = round_cards(shoe["rounds"][number - 1])
    expected, wrong = play_table(cards, rules, stakes, decisions)
    for problem in wrong:
        check(f"bets[round {number}].decision", problem, "no such decision")
    wanted = expected["hands"][0]
    for key in ("card", "status", "decision", "ties", "outcome", "net"):
        check(f"bets[round {number}].{key}", bet.get(key), wanted[key])
    for part in ("bets", "payouts", "outcomes"):
        got_part = bet.get(part)
        if not isinstance(got_part, Mapping):
            got_part = {}
        for name in HAND_BETS:
            check(f"bets[round {number}].{part}.{name}", got_part.get(name), wanted[part][name])


def _shoe_report(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    """The shoe of ``--shoe-seed``, ``--shoe-index``, ``--public-value``, ``--decks``."""
    missing = [
        f"--{name.replace('_', '-')}"
        for name in ("shoe_seed", "shoe_index", "public_value", "decks")
        if getattr(args, name) is None
    ]
    if missing:
        raise InputError(f"to rebuild a shoe, give {', '.join(missing)}")
    seed = parse_server_seed(args.shoe_seed)
    index = _shoe_index(parse_nonce(args.shoe_index))
    public_value = check_client_seed(args.public_value)
    decks = check_decks(args.decks)
    war_ties = args.war_ties or "push"
    max_war_ties = args.max_war_ties or 4
    if war_ties not in ("push", "bonus", "repeat") or not 2 <= max_war_ties <= 8:
        raise InputError("--war-ties is push, bonus or repeat; --max-war-ties 2 to 8")
    shoe = shared_shoe(seed, public_value, index, decks, war_ties, max_war_ties)
    reached = chain_down(seed, index).hex()
    published = None if args.hash is None else args.hash.strip().lower()
    matches = None if published is None else hmac.compare_digest(reached, published)
    report = {
        "shoe": index,
        "seed": seed.hex(),
        "commitment": hashlib.sha256(seed).hexdigest(),
        "chain_commitment": reached,
        "published_hash": published,
        "commitment_matches": matches,
        "public_value": public_value,
        "decks": decks,
        **shoe,
    }
    return report, matches is not False


def _print_shoe(report: dict[str, Any]) -> None:
    print(f"shoe          {report['shoe']} of its chain")
    print(f"seed          {report['seed']}")
    print(f"commitment    {report['commitment']}  (SHA-256 of the seed: the previous link)")
    print(f"chain         {report['chain_commitment']}  ({report['shoe']} links down)")
    if report.get("commitment_matches") is not None:
        verdict = "matches" if report["commitment_matches"] else "DOES NOT MATCH"
        print(f"published     {report['published_hash']}  {verdict}")
    print(f"public value  {report['public_value']!r}")
    if report.get("grindable"):
        print(
            f"              source {report.get('public_source')}: a value the operator could "
            "have chosen, not a beacon"
        )
    burn = report["burn"]
    print(f"burn          {burn['shown']} face up, {burn['cards']} cards burnt")
    print(f"cut card      before card {report['cut']} (0-based)")
    print(f"rounds        {len(report['rounds'])}")
    for dealt in report["rounds"]:
        wars = "".join(
            f" | war {' '.join(war['burns'])} {war['player_card']} {war['dealer_card']}"
            for war in dealt["wars"]
        )
        print(
            f"  {dealt['round']:>3}. card {dealt['start']:>3}: "
            f"{dealt['player_card']} {dealt['dealer_card']}{wars}"
        )
    for c in report.get("checks", []):
        if not c["ok"]:
            print(
                f"  MISMATCH  {c['name']}  recorded {json.dumps(c['recorded'])}, "
                f"the seeds give {json.dumps(c['expected'])}"
            )
    if "match" in report:
        print(f"checks        {len(report['checks'])}")
        print("verdict       " + ("the shoe matches its seeds" if report["match"] else "MISMATCH"))


# --- command line ----------------------------------------------------------------------------


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="casino verify",
        description="Re-deal a Casino War round from its revealed seeds and check it.",
    )
    parser.add_argument(
        "--round",
        dest="round_file",
        metavar="FILE",
        help="the round's JSON (GET /api/v1/rounds/{id}), '-' for standard input: "
        "re-deal it and check every card, payout and the net",
    )
    parser.add_argument(
        "--server-seed", help="revealed server seed, 64 hex digits (in the round with --round)"
    )
    parser.add_argument("--client-seed", help="the client seed of the round, byte for byte")
    parser.add_argument("--nonce", help="the round's nonce: 0 to 2**63 - 1, plain digits")
    parser.add_argument("--decks", type=int, help="decks in the shoe (required without --round)")
    parser.add_argument(
        "--hash",
        help="published commitment (SHA-256 of the seed), to check; with a shared shoe: the "
        "chain's commitment",
    )
    parser.add_argument(
        "--hands",
        type=int,
        help="a table of several hands (max_hands > 1): its deal, dealer first, for H hands",
    )
    parser.add_argument(
        "--shoe",
        dest="shoe_file",
        metavar="FILE",
        help="a shared table's revealed shoe (JSON), '-' for standard input: check its seed "
        "against the chain's commitment, re-deal it and check every round",
    )
    parser.add_argument("--shoe-seed", help="a shared shoe's revealed seed, 64 hex digits")
    parser.add_argument("--shoe-index", help="the shoe's index in its chain (1, 2, ...)")
    parser.add_argument("--public-value", help="the chain's public value, byte for byte")
    parser.add_argument(
        "--war-ties", help="with --shoe-seed: the table's war_ties (push, bonus, repeat)"
    )
    parser.add_argument(
        "--max-war-ties", type=int, help="with --shoe-seed and repeat: the table's max_war_ties"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser.parse_args(argv)


def _dealing_args(args: argparse.Namespace) -> tuple[bytes, str, int, int]:
    missing = [
        f"--{name.replace('_', '-')}"
        for name in ("server_seed", "client_seed", "nonce", "decks")
        if getattr(args, name) is None
    ]
    if missing:
        raise InputError(f"without --round, give {', '.join(missing)}")
    return (
        parse_server_seed(args.server_seed),
        check_client_seed(args.client_seed),
        parse_nonce(args.nonce),
        check_decks(args.decks),
    )


def _deal_report(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    seed, client_seed, nonce, decks = _dealing_args(args)
    digest = hashlib.sha256(seed).hexdigest()
    published = None if args.hash is None else args.hash.strip().lower()
    matches = None if published is None else hmac.compare_digest(digest, published)
    if args.hands is None:
        roles = list(ROLES)
        cards = deal(seed, client_seed, nonce, decks, len(roles))
        result = outcome(cards)
    else:
        roles = table_roles(args.hands)
        cards = deal(seed, client_seed, nonce, decks, len(roles))
        result = table_outcome(cards, args.hands)
    report = {
        "server_seed": seed.hex(),
        "commitment": digest,
        "published_hash": published,
        "commitment_matches": matches,
        "client_seed": client_seed,
        "nonce": nonce,
        "decks": decks,
        "cards": cards,
        "hands": args.hands,
        "dealt": dict(zip(roles, cards, strict=True)),
        "outcome": result,
    }
    return report, matches is not False


def table_roles(hands: int) -> list[str]:
    """The cards of a round of ``hands`` hands at a table of several hands, then the cards of
    its first war: the burns, then as many cards as there may be hands at war plus one (they
    go to the hands at war in hand order, the next one to the dealer)."""
    if not 1 <= hands <= MAX_HANDS:
        raise InputError(f"--hands must be 1 to {MAX_HANDS}")
    seats = [f"hand {i}" for i in range(hands)]  # numbered from 0, as rounds record them
    burns = [f"burn {k + 1}" for k in range(BURNS)]
    return ["dealer", *seats, *burns, *(f"war card {k + 1}" for k in range(hands + 1))]


def table_outcome(cards: Sequence[str], hands: int) -> str:
    dealer = rank_value(cards[0])
    words = []
    for i in range(hands):
        player = rank_value(cards[1 + i])
        verdict = "wins" if player > dealer else "loses" if player < dealer else "ties"
        words.append(f"hand {i} {verdict}")
    return ", ".join(words) + (
        "; at war, the war cards go to the hands at war in hand order, the next to the dealer"
    )


def _print_deal(report: dict[str, Any]) -> None:
    print(f"server seed   {report['server_seed']}")
    print(f"commitment    {report['commitment']}  (SHA-256 of the server seed)")
    if report["commitment_matches"] is not None:
        verdict = "matches" if report["commitment_matches"] else "DOES NOT MATCH"
        print(f"published     {report['published_hash']}  {verdict}")
    print(f"client seed   {report['client_seed']!r}")
    print(f"nonce         {report['nonce']}")
    print(f"decks         {report['decks']}")
    print("cards in dealing order (burns and war cards are turned only on a war):")
    for number, (role, card) in enumerate(report["dealt"].items(), start=1):
        print(f"  {number:>2}. {role:<11} {card}")
    print(f"outcome       {report['outcome']}")


def _print_round(report: dict[str, Any]) -> None:
    print(f"round         {report['round_id']}")
    print(f"server seed   {report['server_seed']}")
    print(f"client seed   {report['client_seed']!r}")
    print(f"nonce         {report['nonce']}")
    print(f"decks         {report['decks']}")
    print("cards in dealing order: " + " ".join(report["cards"]))
    width = max(len(c["name"]) for c in report["checks"])
    for c in report["checks"]:
        if c["ok"]:
            print(f"  ok        {c['name']:<{width}}  {json.dumps(c['recorded'])}")
        else:
            print(
                f"  MISMATCH  {c['name']:<{width}}  recorded {json.dumps(c['recorded'])}, "
                f"the seeds give {json.dumps(c['expected'])}"
            )
    print("verdict       " + ("the round matches its seeds" if report["match"] else "MISMATCH"))


_SHOE_OPTIONS = ("shoe_seed", "shoe_index", "public_value", "war_ties", "max_war_ties")


def _shoe_main(args: argparse.Namespace) -> int:
    """``--shoe FILE``, or a shoe rebuilt from ``--shoe-seed`` and the rest."""
    try:
        if args.round_file is not None or args.client_seed is not None or args.nonce is not None:
            raise InputError("a shared shoe has no --round, --client-seed or --nonce")
        if args.shoe_file is not None:
            clashing = [
                f"--{name.replace('_', '-')}"
                for name in (*_SHOE_OPTIONS, "decks", "server_seed", "hands")
                if getattr(args, name) is not None
            ]
            if clashing:
                raise InputError(f"with --shoe everything comes from the file: drop {clashing}")
            report = check_shoe(load_round(args.shoe_file), args.hash)
            ok = report["match"]
        else:
            report, ok = _shoe_report(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_shoe(report)
    if not ok:
        what = (
            "the shoe does not match its seeds"
            if args.shoe_file
            else "the shoe's seed does not reach the published chain commitment"
        )
        print(f"error: {what}", file=sys.stderr)
        return EXIT_MISMATCH
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.shoe_file is not None or any(getattr(args, n) is not None for n in _SHOE_OPTIONS):
        return _shoe_main(args)
    try:
        if args.round_file is not None:
            clashing = [
                f"--{name.replace('_', '-')}"
                for name in ("client_seed", "nonce", "decks", "hands")
                if getattr(args, name) is not None
            ]
            if clashing:
                raise InputError(
                    f"with --round the seeds, nonce and decks come from the round: "
                    f"drop {', '.join(clashing)}"
                )
            seed = None if args.server_seed is None else parse_server_seed(args.server_seed)
            report = check_round(load_round(args.round_file), seed, args.hash)
            ok = report["match"]
        else:
            report, ok = _deal_report(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.round_file is not None:
        _print_round(report)
    else:
        _print_deal(report)
    if not ok:
        what = (
            "the round does not match its seeds"
            if args.round_file
            else ("the server seed does not match the published hash")
        )
        print(f"error: {what}", file=sys.stderr)
        return EXIT_MISMATCH
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
