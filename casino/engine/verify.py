"""Verify a Casino War round dealt by this casino: standard library only, no other imports.

This file is an independent re-implementation of ``docs/fairness.md`` (it does not use the
engine), so a player can copy it alone and run it::

    python verify.py --server-seed HEX --client-seed S --nonce N [--decks 6] [--hash HEX]

or, inside the project, ``python -m casino.engine.verify`` / ``casino verify``. It prints the
commitment of the revealed server seed, the seven cards of the round in dealing order and
what they mean. Exit status: 0 = dealt (and, with ``--hash``, the commitment matches);
1 = the server seed does not match the published hash; 2 = invalid input.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
from collections.abc import Iterator, Sequence

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")  # low to high
SUITS = ("C", "D", "H", "S")
#: One pack in canonical order: clubs 2..A, diamonds 2..A, hearts 2..A, spades 2..A.
PACK = tuple(rank + suit for suit in SUITS for rank in RANKS)
ROLES = ("player", "dealer", "burn 1", "burn 2", "burn 3", "war player", "war dealer")
MIN_DECKS, MAX_DECKS = 1, 8
EXIT_OK, EXIT_HASH_MISMATCH, EXIT_INVALID = 0, 1, 2


def u32_stream(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    """4-byte big-endian integers of HMAC-SHA256(server_seed, "client:nonce:i"), i = 0, 1, ..."""
    block = 0
    while True:
        message = f"{client_seed}:{nonce}:{block}".encode()
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
        war = "the player wins the war (ante pays 1 to 1, the raise pushes)"
    elif war_player == war_dealer:
        war = "the war ties, which the player wins (plus the bonus where the table pays it)"
    else:
        war = "the dealer wins the war (ante and raise are lost)"
    return f"tie, which pays the tie bet; surrender returns half the ante; at war {war}"


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="casino verify",
        description="Re-deal a Casino War round from its revealed seeds and check the commitment.",
    )
    parser.add_argument("--server-seed", required=True, help="revealed server seed, 64 hex digits")
    parser.add_argument("--client-seed", required=True, help="the client seed of the round")
    parser.add_argument("--nonce", required=True, type=int, help="the round's nonce")
    parser.add_argument("--decks", type=int, default=6, help="decks in the shoe (default 6)")
    parser.add_argument("--hash", help="published commitment (SHA-256 of the seed), to check")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser.parse_args(argv)


def _input_error(args: argparse.Namespace) -> str | None:
    try:
        seed = bytes.fromhex(args.server_seed)
    except ValueError:
        return "server seed must be hex"
    if len(seed) != 32:
        return "server seed must be 32 bytes (64 hex digits)"
    client = args.client_seed
    if not 1 <= len(client) <= 64 or not all(" " <= ch <= "~" for ch in client):
        return "client seed must be 1 to 64 printable ASCII characters"
    if args.nonce < 0:
        return "nonce must be a non-negative integer"
    if not MIN_DECKS <= args.decks <= MAX_DECKS:
        return f"decks must be {MIN_DECKS} to {MAX_DECKS}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    error = _input_error(args)
    if error is not None:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    seed = bytes.fromhex(args.server_seed)
    digest = hashlib.sha256(seed).hexdigest()
    published = None if args.hash is None else args.hash.strip().lower()
    matches = None if published is None else hmac.compare_digest(digest, published)
    cards = deal(seed, args.client_seed, args.nonce, args.decks, len(ROLES))

    if args.json:
        report = {
            "server_seed": seed.hex(),
            "commitment": digest,
            "published_hash": published,
            "commitment_matches": matches,
            "client_seed": args.client_seed,
            "nonce": args.nonce,
            "decks": args.decks,
            "cards": cards,
            "dealt": dict(zip(ROLES, cards, strict=True)),
            "outcome": outcome(cards),
        }
        print(json.dumps(report, indent=2))
    else:
        print(f"server seed   {seed.hex()}")
        print(f"commitment    {digest}  (SHA-256 of the server seed)")
        if matches is not None:
            verdict = "matches" if matches else "DOES NOT MATCH"
            print(f"published     {published}  {verdict}")
        print(f"client seed   {args.client_seed!r}")
        print(f"nonce         {args.nonce}")
        print(f"decks         {args.decks}")
        print("cards in dealing order (burns and war cards are turned only on a war):")
        for number, (role, card) in enumerate(zip(ROLES, cards, strict=True), start=1):
            print(f"  {number}. {role:<11} {card}")
        print(f"outcome       {outcome(cards)}")
    if matches is False:
        print("error: the server seed does not match the published hash", file=sys.stderr)
        return EXIT_HASH_MISMATCH
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
