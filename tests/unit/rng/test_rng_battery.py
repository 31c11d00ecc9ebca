"""RNG battery: statistical tests over >= 1,000,000 cards dealt through the production path.

Every round is dealt by ``casino.engine.casino_war.deal_casino_war``, the function the betting
service calls: the first seven cards of a fresh 6-deck shoe shuffled by the provably fair
algorithm (player, dealer, three burns, war player, war dealer), all seven counted. Rounds
use consecutive nonces under a server seed, and the server seed is rotated every
``ROUNDS_PER_SEED`` rounds, as players do in production.

Statistics (thresholds and results in ``docs/rng-battery.md``):

* chi-square of the 13 ranks and of the 4 suits over every card dealt;
* chi-square of the ranks at each of the seven shoe positions (the war cards too);
* chi-square of the 169 (player rank, dealer rank) pairs against the exact probabilities of
  two draws without replacement from a 312-card shoe (same rank: 24/312 * 23/311);
* the tie rate (same rank) of both pairs of a round (player/dealer and war player/war
  dealer) against 23/311, a binomial z-test: ties drive the house edge and the tie bet;
* Wald-Wolfowitz runs test (high card = rank >= 8) over the player cards of consecutive
  rounds;
* serial correlation of ranks: lag 1 across consecutive rounds (expected 0) and player vs
  dealer in one round (expected -1/311, the without-replacement correlation).

A statistic fails when its two-sided p-value is below ``ALPHA`` (1e-4 each; about 8e-4 for
the battery of eight). The seeds are fresh each run (``new_server_seed``, the production
source); a failure message prints them, and ``CASINO_RNG_BATTERY_SEED`` (64 hex digits)
replays that run. ``CASINO_RNG_BATTERY_CARDS`` changes the card count (default 2,100,000,
i.e. 300,000 rounds; at least 1,000,000 unless set).

The last tests check the checker: the same statistics must reject deliberately broken deals,
so a battery that could never fail would be caught.

Run ``python tests/unit/rng/test_rng_battery.py`` for a printed report.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from casino.engine.cards import STANDARD_52, Rank
from casino.engine.casino_war import deal_casino_war
from casino.engine.fairness import new_server_seed

ALPHA = 1e-4
DECKS = 6
SHOE = DECKS * STANDARD_52.size
PER_RANK = DECKS * len(STANDARD_52.cards) // 13
DEFAULT_CARDS = 2_100_000
MIN_CARDS = 1_000_000
CARDS_PER_ROUND = 7  # player, dealer, 3 burns, war player, war dealer
POSITIONS = ("player", "dealer", "burn 1", "burn 2", "burn 3", "war player", "war dealer")
ROUNDS_PER_SEED = 50_000
HIGH_RANK = Rank.EIGHT
RANKS = tuple(int(r) for r in STANDARD_52.ranks)
SUITS = ("C", "D", "H", "S")


# --- distributions (no scipy on the machine: exact enough for p-values down to 1e-12) ---


def _gamma_p_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    # Lentz's continued fraction for the upper regularized incomplete gamma function.
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X ~ chi-square(df)."""
    if x <= 0:
        return 1.0
    a, half = df / 2.0, x / 2.0
    if half < a + 1.0:
        return 1.0 - _gamma_p_series(a, half)
    return _gamma_q_fraction(a, half)


def chi2_two_sided(x: float, df: int) -> float:
    """Two-sided p: a fit too good to be true (tiny statistic) is as suspicious as a bad one."""
    upper = chi2_sf(x, df)
    return min(1.0, 2.0 * min(upper, 1.0 - upper))


def normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))


# --- the sample ---


@dataclass(frozen=True)
class Sample:
    """Ranks and suits by shoe position (0 player, 1 dealer, 2-4 burns, 5-6 war cards),
    one entry per round in dealing order."""

    ranks: list[list[int]]
    suits: list[list[str]]
    seed_hex: str

    @property
    def rounds(self) -> int:
        return len(self.ranks[0])

    @property
    def cards(self) -> int:
        return sum(len(r) for r in self.ranks)

    def replace(self, position: int, ranks: list[int]) -> Sample:
        changed = list(self.ranks)
        changed[position] = ranks
        return Sample(changed, self.suits, self.seed_hex)


def _seed_chain(master: bytes, count: int) -> list[bytes]:
    # Derived seeds let one printed master seed replay a whole multi-seed run.
    return [hashlib.sha256(master + i.to_bytes(4, "big")).digest() for i in range(count)]


def deal_sample(cards: int, master: bytes) -> Sample:
    rounds = -(-cards // CARDS_PER_ROUND)
    seeds = _seed_chain(master, -(-rounds // ROUNDS_PER_SEED))
    ranks: list[list[int]] = [[] for _ in POSITIONS]
    suits: list[list[str]] = [[] for _ in POSITIONS]
    for index, server_seed in enumerate(seeds):
        client_seed = f"battery-{index}"
        for nonce in range(min(ROUNDS_PER_SEED, rounds - index * ROUNDS_PER_SEED)):
            d = deal_casino_war(server_seed, client_seed, nonce, DECKS)
            for position, card in enumerate(
                (d.player, d.dealer, *d.burns, d.war_player, d.war_dealer)
            ):
                assert card.suit is not None
                ranks[position].append(int(card.rank))
                suits[position].append(card.suit.value)
    return Sample(ranks, suits, master.hex())


def configured_cards() -> int:
    return int(os.environ.get("CASINO_RNG_BATTERY_CARDS", DEFAULT_CARDS))


def configured_master() -> bytes:
    text = os.environ.get("CASINO_RNG_BATTERY_SEED")
    return bytes.fromhex(text) if text else new_server_seed()


# --- statistics ---


@dataclass(frozen=True)
class Result:
    name: str
    statistic: float
    df_or_expected: str
    p_value: float

    @property
    def passed(self) -> bool:
        return self.p_value >= ALPHA


def _chi2(observed: Sequence[int], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def _rank_counts(ranks: Sequence[int]) -> list[int]:
    counts = dict.fromkeys(RANKS, 0)
    for r in ranks:
        counts[r] += 1
    return list(counts.values())


def rank_chi2(s: Sample) -> Result:
    counts = [sum(c) for c in zip(*(_rank_counts(r) for r in s.ranks), strict=True)]
    stat = _chi2(counts, [s.cards / 13] * 13)
    return Result("ranks chi-square", stat, "df=12", chi2_two_sided(stat, 12))


def suit_chi2(s: Sample) -> Result:
    counts = dict.fromkeys(SUITS, 0)
    for position in s.suits:
        for x in position:
            counts[x] += 1
    stat = _chi2(list(counts.values()), [s.cards / 4] * 4)
    return Result("suits chi-square", stat, "df=3", chi2_two_sided(stat, 3))


def rank_by_position_chi2(s: Sample) -> Result:
    # Independent positions' statistics add up: 7 x 12 degrees of freedom.
    stat = sum(_chi2(_rank_counts(r), [len(r) / 13] * 13) for r in s.ranks)
    df = 12 * len(s.ranks)
    return Result("ranks by shoe position chi-square", stat, f"df={df}", chi2_two_sided(stat, df))


def pair_chi2(s: Sample) -> Result:
    counts: dict[tuple[int, int], int] = {(a, b): 0 for a in RANKS for b in RANKS}
    for a, b in zip(s.ranks[0], s.ranks[1], strict=True):
        counts[a, b] += 1
    same = PER_RANK * (PER_RANK - 1) / (SHOE * (SHOE - 1))
    other = PER_RANK * PER_RANK / (SHOE * (SHOE - 1))
    expected = [s.rounds * (same if a == b else other) for a, b in counts]
    stat = _chi2(list(counts.values()), expected)
    return Result("rank pairs chi-square", stat, "df=168", chi2_two_sided(stat, 168))


def tie_rate(s: Sample) -> Result:
    pairs = [(s.ranks[0], s.ranks[1]), (s.ranks[5], s.ranks[6])]
    n = sum(len(a) for a, _ in pairs)
    ties = sum(1 for a, b in pairs for x, y in zip(a, b, strict=True) if x == y)
    p = (PER_RANK - 1) / (SHOE - 1)
    z = (ties - n * p) / math.sqrt(n * p * (1 - p))
    return Result("tie rate (same rank)", ties / n, f"expected {p:.6f}", normal_two_sided(z))


def runs_test(s: Sample) -> Result:
    bits = [r >= HIGH_RANK for r in s.ranks[0]]
    n1 = sum(bits)
    n2 = len(bits) - n1
    n = n1 + n2
    runs = 1 + sum(1 for a, b in itertools.pairwise(bits) if a != b)
    mean = 2.0 * n1 * n2 / n + 1.0
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    z = (runs - mean) / math.sqrt(var)
    return Result(
        "runs (high/low, player cards)", z, f"runs={runs} mean={mean:.1f}", normal_two_sided(z)
    )


def _correlation(xs: Sequence[int], ys: Sequence[int]) -> float:
    n = len(xs)
    mx = sum(xs) / n
    my = sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


def serial_lag1(s: Sample) -> Result:
    xs = s.ranks[0]
    r = _correlation(xs[:-1], xs[1:])
    z = r * math.sqrt(len(xs) - 1)
    return Result("serial correlation lag 1 (rounds)", r, "expected 0", normal_two_sided(z))


def within_round_correlation(s: Sample) -> Result:
    r = _correlation(s.ranks[0], s.ranks[1])
    expected = -1.0 / (SHOE - 1)
    z = (r - expected) * math.sqrt(s.rounds)
    return Result(
        "correlation player vs dealer", r, f"expected {expected:.5f}", normal_two_sided(z)
    )


BATTERY: tuple[Callable[[Sample], Result], ...] = (
    rank_chi2,
    suit_chi2,
    rank_by_position_chi2,
    pair_chi2,
    tie_rate,
    runs_test,
    serial_lag1,
    within_round_correlation,
)


# --- tests ---


@pytest.fixture(scope="module")
def sample() -> Sample:
    cards = configured_cards()
    assert cards >= CARDS_PER_ROUND * 2
    return deal_sample(cards, configured_master())


def test_sample_is_at_least_the_configured_size(sample: Sample) -> None:
    assert sample.cards >= configured_cards()
    if "CASINO_RNG_BATTERY_CARDS" not in os.environ:
        assert sample.cards >= MIN_CARDS


@pytest.mark.parametrize("statistic", BATTERY, ids=lambda f: f.__name__)
def test_battery(sample: Sample, statistic: Callable[[Sample], Result]) -> None:
    result = statistic(sample)
    assert result.passed, (
        f"{result.name}: statistic {result.statistic:.6g} ({result.df_or_expected}), "
        f"p={result.p_value:.3g} < {ALPHA}; replay with CASINO_RNG_BATTERY_SEED={sample.seed_hex}"
    )


# --- the checker is checked: known values and broken deals it must reject ---


@pytest.mark.parametrize(
    ("x", "df", "p"),
    # Reference values from scipy.stats.chi2.sf.
    [
        (3.841458820694124, 1, 0.05),
        (21.02606981748307, 12, 0.05),
        (7.814727903251178, 3, 0.05),
        (200.0, 168, 0.04632061500398772),
        (50.0, 12, 1.3971121075428589e-06),
        (120.0, 168, 0.9980293808614498),
        (300.0, 168, 1.6512921022028418e-09),
    ],
)
def test_chi2_sf_matches_known_values(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-9)


def test_normal_two_sided_matches_known_values() -> None:
    assert normal_two_sided(1.959963984540054) == pytest.approx(0.05, rel=1e-9)
    assert normal_two_sided(0.0) == 1.0


def _rotated(values: list[int]) -> list[int]:
    shift = len(values) // 2 + 1
    return values[shift:] + values[:shift]


def test_battery_rejects_cards_dealt_with_replacement(sample: Sample) -> None:
    # Dealer cards moved to other rounds: as if each card came from a separate shoe.
    broken = sample.replace(1, _rotated(sample.ranks[1])).replace(6, _rotated(sample.ranks[6]))
    assert not tie_rate(broken).passed


def test_battery_rejects_a_favoured_rank(sample: Sample) -> None:
    # One player card in 150 becomes an ace: a bias a regulator would care about.
    aces = [int(Rank.ACE) if i % 150 == 0 else r for i, r in enumerate(sample.ranks[0])]
    broken = sample.replace(0, aces)
    assert not rank_chi2(broken).passed or not rank_by_position_chi2(broken).passed


def test_battery_rejects_a_biased_war_card(sample: Sample) -> None:
    # Only the war player's card is off (1 in 100 becomes a two): positions are looked at.
    twos = [int(Rank.TWO) if i % 100 == 0 else r for i, r in enumerate(sample.ranks[5])]
    assert not rank_by_position_chi2(sample.replace(5, twos)).passed


def test_battery_rejects_serial_dependence(sample: Sample) -> None:
    # Every 40th round repeats the previous player card.
    ranks = list(sample.ranks[0])
    for i in range(40, len(ranks), 40):
        ranks[i] = ranks[i - 1]
    broken = sample.replace(0, ranks)
    assert not serial_lag1(broken).passed or not runs_test(broken).passed


def test_battery_rejects_a_favoured_suit() -> None:
    # Clubs 1.5 % too often must fail the suit test at this sample size; ``random`` only
    # simulates a broken dealer here, no money depends on it.
    rng = random.Random(1)
    rounds = configured_cards() // CARDS_PER_ROUND
    suits = [("C" if rng.random() < 0.02 else rng.choice(SUITS)) for _ in range(rounds)]
    s = Sample([[2] * rounds] * CARDS_PER_ROUND, [suits] * CARDS_PER_ROUND, "")
    assert not suit_chi2(s).passed


def main() -> None:
    s = deal_sample(configured_cards(), configured_master())
    print(f"{s.cards:,} cards in {s.rounds:,} rounds, master seed {s.seed_hex}")
    for statistic in BATTERY:
        r = statistic(s)
        verdict = "pass" if r.passed else "FAIL"
        print(
            f"{r.name:34} {r.statistic:>12.6g}  {r.df_or_expected:26} p={r.p_value:.4f} {verdict}"
        )


if __name__ == "__main__":
    main()
