"""Verify a Casino War round dealt by this casino: standard library only, no other imports.

This file is an independent re-implementation of ``docs/fairness.md`` (it does not use the
engine), so a player can copy it alone and run it::

    python verify.py --round ROUND.json            # the JSON of GET /api/v1/rounds/{id}
    python verify.py --round - < ROUND.json        # the same, from standard input
    python verify.py --server-seed HEX --client-seed S --nonce N --decks D [--hash HEX]

or, inside the project, ``python -m casino.engine.verify`` / ``casino verify``.

With ``--round`` it takes the decks, the rules, the seeds, the nonce, the bets and the decision
from the round, re-deals it, settles it on its own and compares everything the round records:
the commitment, both cards, the war cards, the raise, every bet's payout and label, the net and
the status. Without ``--round`` it prints the seven cards of the round in dealing order (the
decks must then be given: a verifier that guessed them could re-deal the wrong shoe).

Exit status: 0 = everything checked matches; 1 = something does not match (the server seed
against the published hash, or any value of the round); 2 = invalid input.
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


def check_round(
    doc: Mapping[str, Any], server_seed: bytes | None = None, published_hash: str | None = None
) -> dict[str, Any]:
    """Re-deal and re-settle a recalled round; every check with what the round recorded and
    what the seeds give. ``server_seed`` stands in for a round recalled before the seed was
    revealed (it must agree with the round's own, if the round has one)."""
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
    nonce = _integer(doc, "fairness.nonce")
    rules = _field(doc, "rules")
    if not isinstance(rules, Mapping):
        raise InputError("rules must be an object")
    decks = check_decks(_integer(doc, "rules.decks", MIN_DECKS, MAX_DECKS))
    if _field(doc, "rules.tie_pays") not in TIE_PAYS:
        raise InputError(f"rules.tie_pays must be one of {TIE_PAYS}")
    ante = _integer(doc, "bets.ante", 1)
    tie_bet = _integer(doc, "bets.tie_bet")
    raw_decision = _field(doc, "decision")
    decision = None
    if raw_decision is not None:
        decision = _field(doc, "decision.action")
    cards = deal(server_seed, client_seed, nonce, decks, len(ROLES))
    expected = settle(cards, rules, ante, tie_bet, decision)

    commitment = hashlib.sha256(server_seed).hexdigest()
    checks: list[dict[str, Any]] = []

    def check(name: str, recorded: Any, wanted: Any) -> None:
        checks.append(
            {"name": name, "ok": recorded == wanted, "recorded": recorded, "expected": wanted}
        )

    check("commitment", _field(doc, "fairness.server_seed_hash"), commitment)
    tie = rank_value(cards[0]) == rank_value(cards[1])
    if decision is not None and not tie:
        check("decision", decision, None)  # a decision is only ever asked on a tie
    if decision == "surrender" and not rules.get("surrender_allowed", True):
        check("decision", decision, "war (this table does not allow surrender)")
    if published_hash is not None:
        check("published hash", published_hash.strip().lower(), commitment)
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
    return {
        "round_id": doc.get("id"),
        "server_seed": server_seed.hex(),
        "commitment": commitment,
        "client_seed": client_seed,
        "nonce": nonce,
        "decks": decks,
        "cards": cards,
        "dealt": dict(zip(ROLES, cards, strict=True)),
        "checks": checks,
        "match": all(c["ok"] for c in checks),
    }


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
    parser.add_argument("--hash", help="published commitment (SHA-256 of the seed), to check")
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
    cards = deal(seed, client_seed, nonce, decks, len(ROLES))
    report = {
        "server_seed": seed.hex(),
        "commitment": digest,
        "published_hash": published,
        "commitment_matches": matches,
        "client_seed": client_seed,
        "nonce": nonce,
        "decks": decks,
        "cards": cards,
        "dealt": dict(zip(ROLES, cards, strict=True)),
        "outcome": outcome(cards),
    }
    return report, matches is not False


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
        print(f"  {number}. {role:<11} {card}")
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        if args.round_file is not None:
            clashing = [
                f"--{name.replace('_', '-')}"
                for name in ("client_seed", "nonce", "decks")
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
