"""Where every card of a War game lies, and what the rules and the seats may look up.

``GameState`` is the data of one game and the small operations on its card places; the game
model (``game.WarGame``) plays battles on it. The parts only some variants use (``steal.py``,
``hands.py``), the views and the records work through the public members here, so none of
them needs the game model: imports go one way, ``game`` -> ``steal``/``hands``/``views``/
``records`` -> ``state``.

Cards are ints (indices into the pack's canonical order) and compare by rank only. Between
battles every card is in exactly one place: a stock, a hand, a capture pile, a pile of won
tricks set aside, the cards left out at the deal, or the dead cards of a void war; during a
battle, also the pot on the table.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from casino.engine.errors import InvalidRules
from casino.engine.war.decisions import Decision
from casino.engine.war.entries import BattleEntry, EntryBuilder
from casino.engine.war.randomness import (
    SEAT_BASE,
    SHUFFLE,
    BitSource,
    deal,
    seed_commitment,
    server_seed,
    stream,
    validate_seed,
)
from casino.engine.war.results import GameResult
from casino.engine.war.rules import ReturnOrder, WarRules, WonCards
from casino.engine.war.seats import SeatSpec

#: Safety net: no game plays more battles than this, whatever the rules (a cycle that the
#: detector cannot prove, e.g. with random choices, still ends).
BATTLE_CAP = 10_000
THREE = 3
#: Rule revision a new game plays by. Revision 2 (issue 11) changed four rules: a player out
#: of cards and out of the war drops out (last-up, 3-4 players), the short players of a
#: ``lose`` war nobody can finish are eliminated, stealing several piles is a choice, and a
#: capture pile is always shuffled before it is turned over. A stored game keeps the
#: revision it began with (records before revision 2 say none), so it replays as it was
#: played.
RULE_REVISION = 2
REVISIONS = (1, 2)


class GameState:
    """The cards, scores and log of one game (see the module docstring)."""

    def __init__(
        self,
        rules: WarRules,
        seed: str,
        seats: Sequence[SeatSpec] | None = None,
        *,
        variant: str | None = None,
        options: dict[str, Any] | None = None,
        log: bool = True,
        battle_cap: int = BATTLE_CAP,
        revision: int = RULE_REVISION,
    ) -> None:
        self.rules = rules
        self.seed = validate_seed(seed)
        self.variant = variant
        self.options = dict(options or {})
        self.seats: tuple[SeatSpec, ...] = tuple(seats or [SeatSpec()] * rules.seats)
        if len(self.seats) != rules.seats:
            raise InvalidRules(f"these rules seat {rules.seats} players, not {len(self.seats)}")
        if revision not in REVISIONS:
            raise InvalidRules(f"unknown rule revision {revision!r}")
        self.revision = revision
        self.battle_cap = battle_cap
        self.key = server_seed(seed)
        pack = rules.pack_spec
        #: Per card index: its rank (an int, jokers 15), its code, and back from the code.
        self.ranks = [int(card.rank) for card in pack.cards]
        self.codes = [card.code for card in pack.cards]
        self.index = {code: i for i, code in enumerate(self.codes)}
        self.low_rank = int(pack.ranks[0])
        #: Copies of each rank in the pack, and the share of the other cards each rank beats.
        self.copies = {rank: self.ranks.count(rank) for rank in set(self.ranks)}
        weaker = sorted(self.ranks)
        self.beats_share = {
            rank: sum(1 for r in weaker if r < rank) / (len(weaker) - 1) for rank in set(weaker)
        }
        n = rules.seats
        self.battles = 0
        self.wars = 0
        self.wars_won = [0] * n
        self.round_no = 0
        self.round_wins = [0] * n
        self.result: GameResult | None = None
        self.moves: list[dict[str, Any]] = []
        # The battles played, as written; frozen into ``log`` when it is read (a game model
        # battle costs a few microseconds, and freezing each one as it ends was a tenth).
        self._written: list[EntryBuilder] | None = [] if log else None
        self._log: list[BattleEntry] = []
        self.cycle_length: int | None = None
        self._pending: dict[int, Decision] = {}
        # The battle on the table: its log entry being written, the cards played per seat,
        # the seats out of cards in it, the piles protected in it, steals so far in it.
        self.entry: EntryBuilder | None = None
        self.pot: list[list[int]] = [[] for _ in range(n)]
        self.gone: set[int] = set()
        self.protected: set[int] = set()
        self.steals_this_battle = 0
        self.start_round()

    def start_round(self) -> None:
        """Deal round ``round_no`` (a new deal for each round of a Tod und Leben match)."""
        r = self.rules
        stocks, left_out = deal(r, self.key, self.round_no)
        self.stocks: list[deque[int]] = [deque(s) for s in stocks]
        self.piles: list[list[int]] = [[] for _ in range(r.seats)]
        self.hands: list[list[int]] = [[] for _ in range(r.seats)]
        self.aside: list[list[int]] = [[] for _ in range(r.seats)]
        self.left_out = left_out
        self.dead: list[int] = []
        self.shuffler = BitSource(stream(self.key, self.round_no, SHUFFLE))
        #: Each seat's own stream, for its computer strategy's random choices.
        self.seat_rng = [
            BitSource(stream(self.key, self.round_no, SEAT_BASE + s)) for s in range(r.seats)
        ]
        for s in range(r.seats):
            self.refill_hand(s)

    # --- what the game shows ------------------------------------------------------------------

    @property
    def logging(self) -> bool:
        return self._written is not None

    @property
    def log(self) -> list[BattleEntry] | None:
        """Every battle so far, one frozen ``BattleEntry`` each (``None``: logging is off)."""
        written = self._written
        if written is None:
            return None
        log = self._log
        for entry in written[len(log) :]:
            log.append(entry.freeze())
        return log

    def log_battle(self, entry: EntryBuilder) -> None:
        """A battle is over: its entry joins the log (nothing changes it any more)."""
        if self._written is not None:
            self._written.append(entry)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def pending(self) -> list[Decision]:
        """Decisions awaited from human seats, in seat order."""
        return [self._pending[s] for s in sorted(self._pending)]

    @property
    def seed_hash(self) -> str:
        return seed_commitment(self.seed)

    def code(self, card: int) -> str:
        return self.codes[card]

    def cards_held(self, seat: int) -> int:
        """Cards a seat still plays with (stock, hand and capture pile)."""
        return len(self.stocks[seat]) + len(self.piles[seat]) + len(self.hands[seat])

    def all_cards(self) -> list[int]:
        """Every card of the pack wherever it lies (for conservation checks)."""
        cards: list[int] = []
        for s in range(self.rules.seats):
            cards += self.stocks[s]
            cards += self.piles[s]
            cards += self.hands[s]
            cards += self.aside[s]
            cards += self.pot[s]
        return cards + self.left_out + self.dead

    # --- moving cards ---------------------------------------------------------------------------

    def draw(self, seat: int) -> int:
        """The top card of a seat's stock (turning its capture pile over first if need be)."""
        stock = self.stocks[seat]
        if not stock:
            self.turn_pile(seat)
        return stock.popleft()

    def turn_pile(self, seat: int) -> None:
        """Stock empty: the capture pile is turned over, shuffled, into a new stock.

        The sources shuffle it whatever else the table agreed (Dutch seed: "omgedraaid en
        geschud"; Catalan: "s'ha de remenar"); games of rule revision 1 shuffled it only with
        a shuffled return order."""
        pile = self.piles[seat]
        if self.revision >= 2 or self.rules.return_order is ReturnOrder.SHUFFLED:
            self.shuffler.shuffle(pile)
        self.stocks[seat].extend(pile)
        pile.clear()

    def refill_hand(self, seat: int) -> None:
        size = self.rules.hand_size
        hand = self.hands[seat]
        stock = self.stocks[seat]
        while len(hand) < size and stock:
            hand.append(stock.popleft())

    def place(self, seat: int, cards: list[int]) -> None:
        """Cards a seat won (or took back) go where the rules put won cards."""
        where = self.rules.won_cards
        if where is WonCards.STOCK:
            self.stocks[seat].extend(cards)
        elif where is WonCards.PILE:
            self.piles[seat] += cards
        else:
            self.aside[seat] += cards

    def eliminate(self, seat: int) -> None:
        """A seat is out of the battle for want of cards (logged)."""
        self.gone.add(seat)
        if self.entry is not None:
            self.entry.eliminate(seat)
