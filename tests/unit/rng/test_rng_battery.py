"""RNG battery: statistical tests over >= 1,000,000 cards dealt through the production path.

Each Casino War round is dealt by ``casino.engine.fairness.deal`` exactly as the service deals
it: a fresh 6-deck shoe per (server seed, client seed, nonce), the player's card first and the
dealer's second. Rounds use consecutive nonces under a server seed, and the server seed is
rotated every ``ROUNDS_PER_SEED`` rounds, as players do in production.

Statistics (thresholds and results in ``docs/rng-battery.md``):

* chi-square of the 13 ranks and of the 4 suits over every card;
* chi-square of the 169 (player rank, dealer rank) pairs against the exact probabilities of
  two draws without replacement from a 312-card shoe (same rank: 24/312 * 23/311);
* the tie rate (player rank = dealer rank) against 23/311, as a binomial z-test;
* Wald-Wolfowitz runs test (high card = rank >= 8) over the player cards of consecutive
  rounds;
* serial correlation of ranks: lag 1 across consecutive rounds (expected 0) and player vs
  dealer in one round (expected -1/311, the without-replacement correlation).

A statistic fails when its two-sided p-value is below ``ALPHA`` (1e-4 each; about 7e-4 for
the battery of seven). The seeds are fresh each run (``new_server_seed``, the production
source); a failure message prints them, and ``CASINO_RNG_BATTERY_SEED`` (64 hex digits)
replays that run. ``CASINO_RNG_BATTERY_CARDS`` changes the card count (default 1,000,000).

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
from casino.engine.fairness import deal, new_server_seed

ALPHA = 1e-4
DECKS = 6
SHOE = DECKS * STANDARD_52.size
PER_RANK = DECKS * len(STANDARD_52.cards) // 13
DEFAULT_CARDS = 1_000_000
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
    """Ranks and suits of player and dealer cards, one entry per round."""

    player_ranks: list[int]
    dealer_ranks: list[int]
    player_suits: list[str]
    dealer_suits: list[str]
    seed_hex: str

    @property
    def cards(self) -> int:
        return 2 * len(self.player_ranks)


def _seed_chain(master: bytes, count: int) -> list[bytes]:
    # Derived seeds let one printed master seed replay a whole multi-seed run.
    return [hashlib.sha256(master + i.to_bytes(4, "big")).digest() for i in range(count)]


def deal_sample(cards: int, master: bytes) -> Sample:
    rounds = cards // 2
    seeds = _seed_chain(master, -(-rounds // ROUNDS_PER_SEED))
    pr: list[int] = []
    dr: list[int] = []
    ps: list[str] = []
    ds: list[str] = []
    for index, server_seed in enumerate(seeds):
        client_seed = f"battery-{index}"
        for nonce in range(min(ROUNDS_PER_SEED, rounds - index * ROUNDS_PER_SEED)):
            player, dealer = deal(server_seed, client_seed, nonce, 2, decks=DECKS)
            assert player.suit is not None and dealer.suit is not None
            pr.append(int(player.rank))
            dr.append(int(dealer.rank))
            ps.append(player.suit.value)
            ds.append(dealer.suit.value)
    return Sample(pr, dr, ps, ds, master.hex())


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


def rank_chi2(s: Sample) -> Result:
    counts = dict.fromkeys(RANKS, 0)
    for r in s.player_ranks:
        counts[r] += 1
    for r in s.dealer_ranks:
        counts[r] += 1
    stat = _chi2(list(counts.values()), [s.cards / 13] * 13)
    return Result("ranks chi-square", stat, "df=12", chi2_two_sided(stat, 12))


def suit_chi2(s: Sample) -> Result:
    counts = dict.fromkeys(SUITS, 0)
    for x in s.player_suits:
        counts[x] += 1
    for x in s.dealer_suits:
        counts[x] += 1
    stat = _chi2(list(counts.values()), [s.cards / 4] * 4)
    return Result("suits chi-square", stat, "df=3", chi2_two_sided(stat, 3))


def pair_chi2(s: Sample) -> Result:
    rounds = len(s.player_ranks)
    counts: dict[tuple[int, int], int] = {(a, b): 0 for a in RANKS for b in RANKS}
    for a, b in zip(s.player_ranks, s.dealer_ranks, strict=True):
        counts[a, b] += 1
    same = PER_RANK * (PER_RANK - 1) / (SHOE * (SHOE - 1))
    other = PER_RANK * PER_RANK / (SHOE * (SHOE - 1))
    expected = [rounds * (same if a == b else other) for a, b in counts]
    stat = _chi2(list(counts.values()), expected)
    return Result("rank pairs chi-square", stat, "df=168", chi2_two_sided(stat, 168))


def tie_rate(s: Sample) -> Result:
    # Ties drive the house edge and the tie bet, so their rate gets its own, sharper test.
    rounds = len(s.player_ranks)
    ties = sum(1 for a, b in zip(s.player_ranks, s.dealer_ranks, strict=True) if a == b)
    p = (PER_RANK - 1) / (SHOE - 1)
    z = (ties - rounds * p) / math.sqrt(rounds * p * (1 - p))
    return Result("tie rate (same rank)", ties / rounds, f"expected {p:.6f}", normal_two_sided(z))


def runs_test(s: Sample) -> Result:
    bits = [r >= HIGH_RANK for r in s.player_ranks]
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
    xs = s.player_ranks
    r = _correlation(xs[:-1], xs[1:])
    z = r * math.sqrt(len(xs) - 1)
    return Result("serial correlation lag 1 (rounds)", r, "expected 0", normal_two_sided(z))


def within_round_correlation(s: Sample) -> Result:
    r = _correlation(s.player_ranks, s.dealer_ranks)
    expected = -1.0 / (SHOE - 1)
    z = (r - expected) * math.sqrt(len(s.player_ranks))
    return Result(
        "correlation player vs dealer", r, f"expected {expected:.5f}", normal_two_sided(z)
    )


BATTERY: tuple[Callable[[Sample], Result], ...] = (
    rank_chi2,
    suit_chi2,
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
    assert cards >= 2
    return deal_sample(cards, configured_master())


def test_sample_is_at_least_the_configured_size(sample: Sample) -> None:
    assert sample.cards >= configured_cards() - 1
    if "CASINO_RNG_BATTERY_CARDS" not in os.environ:
        assert sample.cards >= DEFAULT_CARDS


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


def _with_replacement(s: Sample) -> Sample:
    # Dealer cards moved to other rounds: as if each card came from a separate shoe.
    shift = len(s.dealer_ranks) // 2 + 1
    return Sample(
        s.player_ranks,
        s.dealer_ranks[shift:] + s.dealer_ranks[:shift],
        s.player_suits,
        s.dealer_suits,
        s.seed_hex,
    )


def _aces_favoured(s: Sample) -> Sample:
    # One card in 150 becomes an ace: a 0.7 % bias a casino regulator would care about.
    ranks = [int(Rank.ACE) if i % 150 == 0 else r for i, r in enumerate(s.player_ranks)]
    return Sample(ranks, s.dealer_ranks, s.player_suits, s.dealer_suits, s.seed_hex)


def _sticky(s: Sample) -> Sample:
    # Every 40th round repeats the previous player card: serial dependence.
    ranks = list(s.player_ranks)
    for i in range(40, len(ranks), 40):
        ranks[i] = ranks[i - 1]
    return Sample(ranks, s.dealer_ranks, s.player_suits, s.dealer_suits, s.seed_hex)


def test_battery_rejects_cards_dealt_with_replacement(sample: Sample) -> None:
    broken = _with_replacement(sample)
    assert not tie_rate(broken).passed


def test_battery_rejects_a_favoured_rank(sample: Sample) -> None:
    assert not rank_chi2(_aces_favoured(sample)).passed


def test_battery_rejects_serial_dependence(sample: Sample) -> None:
    broken = _sticky(sample)
    assert not serial_lag1(broken).passed or not runs_test(broken).passed


def test_battery_rejects_a_favoured_suit() -> None:
    # A generator that deals clubs 1.5 % too often must fail the suit test at this sample size;
    # ``random`` is fine here: it only simulates a broken dealer, no money depends on it.
    rng = random.Random(1)
    cards = configured_cards()
    suits = [("C" if rng.random() < 0.02 else rng.choice(SUITS)) for _ in range(cards // 2)]
    s = Sample([2] * len(suits), [2] * len(suits), suits, suits, "")
    assert not suit_chi2(s).passed


def main() -> None:
    cards = configured_cards()
    s = deal_sample(cards, configured_master())
    print(f"{s.cards:,} cards in {s.cards // 2:,} rounds, master seed {s.seed_hex}")
    for statistic in BATTERY:
        r = statistic(s)
        verdict = "pass" if r.passed else "FAIL"
        print(
            f"{r.name:36} {r.statistic:>12.6g}  {r.df_or_expected:26} p={r.p_value:.4f} {verdict}"
        )


if __name__ == "__main__":
    main()
