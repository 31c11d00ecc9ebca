"""The one War game model: every variant is this class reading a ``WarRules`` value.

(Steal War's looks and steals live in ``steal.py``, the hand of three in ``hands.py``: the
same model, in modules of their own because only those variants use them.)

A game is fully determined by its seed and the moves its human seats make. Its battles run in
one generator that yields whenever seats must decide, so a game can pause in the middle of a
battle (a steal, the fourth card of a war) and resume when the move arrives, or between two
battles when asked to. Computer seats answer at once through their strategy; human seats leave
a pending ``Decision``.

Cards are ints (indices into the pack's canonical order) and compare by rank only. Between
battles every card is in exactly one place: a stock, a hand, a capture pile, a pile of won
tricks set aside, the cards left out at the deal, or the dead cards of a void war.

The rule choices the seeds leave open are documented in ``docs/war-variants.md``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Sequence
from typing import Any

from casino.engine.cards import Rank
from casino.engine.errors import IllegalAction, InvalidRules
from casino.engine.war import hands, steal, strategies
from casino.engine.war.cycles import CycleDetector, position_key
from casino.engine.war.decisions import BattleGen, Decision, IllegalMove, Move, describe, normalise
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
from casino.engine.war.results import EndReason, GameResult
from casino.engine.war.rules import (
    BY_RANK,
    Ending,
    RepeatTie,
    ReturnOrder,
    ShortStack,
    WarJoins,
    WarRules,
    WonCards,
    war_value,
)
from casino.engine.war.seats import SeatKind, SeatSpec

#: Safety net: no game plays more battles than this, whatever the rules (a cycle that the
#: detector cannot prove, e.g. with random choices, still ends).
BATTLE_CAP = 10_000
THREE = 3
_LOW_BEATS_ACE = 16  # above the joker rank (15): the low card beats the ace outright


class WarGame:
    """A War game in progress. See the module docstring; the public surface is:

    ``advance(until)``, ``pending``, ``apply(seat, move)``, ``view(seat)``, ``result``,
    ``to_dict()`` / ``from_dict()``, and ``all_cards()`` for conservation checks.
    """

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
        observer: Callable[[WarGame], None] | None = None,
    ) -> None:
        self.rules = rules
        self.seed = validate_seed(seed)
        self.variant = variant
        self.options = dict(options or {})
        self.seats: tuple[SeatSpec, ...] = tuple(seats or [SeatSpec()] * rules.seats)
        if len(self.seats) != rules.seats:
            raise InvalidRules(f"these rules seat {rules.seats} players, not {len(self.seats)}")
        self.battle_cap = battle_cap
        #: Called after every battle (tests assert card conservation with it).
        self.observer = observer
        self._key = server_seed(seed)
        pack = rules.pack_spec
        self._rank = [int(card.rank) for card in pack.cards]
        self._code = [card.code for card in pack.cards]
        self._index = {code: i for i, code in enumerate(self._code)}
        self._low_rank = int(pack.ranks[0])
        self._copies = {rank: self._rank.count(rank) for rank in set(self._rank)}
        weaker = sorted(self._rank)
        self._beats_share = {
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
        self.log: list[dict[str, Any]] | None = [] if log else None
        self._pending: dict[int, Decision] = {}
        self._answers: dict[int, Move] = {}
        self._gen: BattleGen | None = None
        self._stop_each_battle = False
        self._entry: dict[str, Any] | None = None
        self._pot: list[list[int]] = [[] for _ in range(n)]
        self._void_draw = False
        self._gone: set[int] = set()
        self._protected: set[int] = set()
        self._steals = 0
        self._plain = not rules.has_decisions
        deterministic = not rules.has_decisions or all(
            s.kind is SeatKind.COMPUTER and s.strategy in strategies.DETERMINISTIC
            for s in self.seats
        )
        self._cycles = CycleDetector() if rules.can_cycle and deterministic else None
        self.cycle_length: int | None = None
        self._start_round()
        if self._cycles is not None:
            self._cycles.seen_at(self._position_key(), 0)

    # --- setup -------------------------------------------------------------------------------

    def _start_round(self) -> None:
        r = self.rules
        stocks, left_out = deal(r, self._key, self.round_no)
        self.stocks: list[deque[int]] = [deque(s) for s in stocks]
        self.piles: list[list[int]] = [[] for _ in range(r.seats)]
        self.hands: list[list[int]] = [[] for _ in range(r.seats)]
        self.aside: list[list[int]] = [[] for _ in range(r.seats)]
        self.left_out = left_out
        self.dead: list[int] = []
        self._shuffle = BitSource(stream(self._key, self.round_no, SHUFFLE))
        self._seat_rng = [
            BitSource(stream(self._key, self.round_no, SEAT_BASE + s)) for s in range(r.seats)
        ]
        for s in range(r.seats):
            self._refill_hand(s)

    # --- public driving ----------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def pending(self) -> list[Decision]:
        """Decisions awaited from human seats, in seat order."""
        return [self._pending[s] for s in sorted(self._pending)]

    def advance(self, until: str = "decision", *, proxy: str = "greedy") -> None:
        """Play on until ``"battle"`` (one more battle done), ``"decision"`` (a human must
        choose) or ``"end"``. With ``"end"``, pending human choices are made by the ``proxy``
        strategy and recorded as moves, so the game stays replayable."""
        if until not in ("battle", "decision", "end"):
            raise IllegalAction(f"until must be 'battle', 'decision' or 'end', not {until!r}")
        proxy_play = strategies.strategy(proxy)
        start = self.battles
        while self.result is None:
            if self._pending:
                if until != "end":
                    return
                for seat in sorted(self._pending):
                    decision = self._pending[seat]
                    self._apply(seat, proxy_play(decision, self._seat_rng[seat]), auto=True)
                continue
            if until == "battle" and self.battles > start:
                return
            self._stop_each_battle = until == "battle"
            self._resume({})

    def apply(self, seat: int, move: object) -> None:
        """A human seat's move. Raises ``IllegalMove`` (listing the legal moves) if it is not
        one of them; afterwards play continues to the end of the battle or the next choice."""
        self._apply(seat, move, auto=False)

    def _apply(self, seat: int, move: object, *, auto: bool) -> None:
        if self.result is not None:
            raise IllegalMove("the game is over")
        decision = self._pending.get(seat)
        if decision is None:
            waiting = ", ".join(str(s) for s in sorted(self._pending)) or "none"
            raise IllegalMove(f"no decision is pending for seat {seat} (waiting for: {waiting})")
        normal = normalise(move)
        if normal not in decision.legal:
            raise IllegalMove(f"illegal move {describe(normal)} for seat {seat}", decision.legal)
        self.moves.append({"seat": seat, "move": normal, "auto": auto, "battle": self.battles + 1})
        self._answers[seat] = normal
        del self._pending[seat]
        if not self._pending:
            answers, self._answers = self._answers, {}
            self._stop_each_battle = True
            self._resume(answers)

    def _resume(self, answers: dict[int, Move]) -> None:
        """Run the battles until they need a human, pause between battles, or the game ends."""
        if self._gen is None:
            self._gen = self._play()
        gen = self._gen
        send: dict[int, Move] | None = answers or None
        while True:
            try:
                requests = gen.send(send)  # type: ignore[arg-type]
            except StopIteration:
                self._gen = None
                return
            if not requests:  # between battles, as asked
                return
            send = {}
            for decision in requests:
                spec = self.seats[decision.seat]
                if spec.kind is SeatKind.HUMAN:
                    self._pending[decision.seat] = decision
                else:
                    play = strategies.strategy(spec.strategy or "greedy")
                    send[decision.seat] = play(decision, self._seat_rng[decision.seat])
            if self._pending:
                self._answers = send
                return

    # --- card places -------------------------------------------------------------------------

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
            cards += self._pot[s]
        return cards + self.left_out + self.dead

    def code(self, card: int) -> str:
        return self._code[card]

    def _draw(self, seat: int) -> int:
        stock = self.stocks[seat]
        if not stock:
            self._turn_pile(seat)
        return stock.popleft()

    def _turn_pile(self, seat: int) -> None:
        """Stock empty: the capture pile is turned over (and shuffled) into a new stock."""
        pile = self.piles[seat]
        if self.rules.return_order is ReturnOrder.SHUFFLED:
            self._shuffle.shuffle(pile)
        self.stocks[seat].extend(pile)
        pile.clear()

    def _refill_hand(self, seat: int) -> None:
        size = self.rules.hand_size
        hand = self.hands[seat]
        stock = self.stocks[seat]
        while len(hand) < size and stock:
            hand.append(stock.popleft())

    def _highest(self, seats: list[int], up: list[int]) -> list[int]:
        """The seats whose face-up card ranks highest (one seat: it wins)."""
        if self.rules.low_beats_ace:
            values = self._strengths(seats, up)
            best = max(values.values())
            return [s for s in seats if values[s] == best]
        rank = self._rank
        best = -1
        top: list[int] = []
        for s in seats:
            value = rank[up[s]]
            if value > best:
                best = value
                top = [s]
            elif value == best:
                top.append(s)
        return top

    def _strengths(self, seats: Sequence[int], up: list[int]) -> dict[int, int]:
        rank = self._rank
        values = {s: rank[up[s]] for s in seats}
        if self.rules.low_beats_ace:
            low = self._low_rank
            shown = set(values.values())
            if Rank.ACE in shown and low in shown:
                for s, v in values.items():
                    if v == low:
                        values[s] = _LOW_BEATS_ACE
        return values

    # --- one battle --------------------------------------------------------------------------

    def _play(self) -> BattleGen:
        """Battles one after another until the game ends. Yields the decisions it needs, and
        an empty request after each battle when ``_stop_each_battle`` asks it to pause."""
        r = self.rules
        n = r.seats
        plain = self._plain
        while self.result is None:
            pot: list[list[int]] = [[] for _ in range(n)]
            self._pot = pot
            up = [-1] * n
            if self._gone:
                self._gone = set()
            if self._protected:
                self._protected = set()
            self._steals = 0
            stocks, piles, hands = self.stocks, self.piles, self.hands
            active = [s for s in range(n) if stocks[s] or piles[s] or hands[s]]
            entry = self._entry = self._new_entry() if self.log is not None else None
            if plain:
                for s in active:
                    card = stocks[s].popleft() if stocks[s] else self._draw(s)
                    pot[s].append(card)
                    up[s] = card
            else:
                yield from self._commit(active, pot, up, 0)
            contenders = [s for s in active if s not in self._gone] if self._gone else active
            if entry is not None:
                entry["turned"] = [self._code[up[s]] if pot[s] else None for s in range(n)]
            top = self._highest(contenders, up)
            if len(top) == 1:
                winner: int | None = top[0]
                rnd = 0
                compared = len(contenders) > 1
            else:
                winner, rnd, compared = yield from self._war(contenders, top, pot, up, entry)
            if winner is None:
                if rnd >= 0:  # nobody left to fight at all
                    self._void(active, pot)
            else:
                if rnd:
                    self.wars_won[winner] += 1
                split_pair = compared and rnd > 0 and r.hand_size > 0
                cards = self._take_pot(winner, pot, split_pair=split_pair)
                if r.stealing and len({self._rank[c] for c in cards}) > 1:
                    decision = steal.top_decision(self, winner, cards)
                    answers = yield [decision]
                    chosen = self._index[answers[winner]["card"]]
                    cards.remove(chosen)
                    cards.append(chosen)
                    if entry is not None:
                        entry["top"] = self._code[chosen]
                for s in range(n):
                    pot[s] = []  # the cards stay on the table (and counted there) until placed
                self._place(winner, cards)
            self._end_battle()
            if self._stop_each_battle and self.result is None:
                yield []

    def _war(
        self,
        contenders: list[int],
        top: list[int],
        pot: list[list[int]],
        up: list[int],
        entry: dict[str, Any] | None,
    ) -> Generator[list[Decision], dict[int, Move], tuple[int | None, int, bool]]:
        """From a tie for the highest card to the war's end: ``(winner, rounds, compared)``;
        ``compared`` is false when the winner is the last one able to fight. A void war is
        settled here and reported as ``(None, -1, False)``."""
        r = self.rules
        n = r.seats
        plain = self._plain
        rnd = 0
        while True:
            if len(contenders) <= 1:
                return (contenders[0] if contenders else None), rnd, False
            if len(top) == 1:
                return top[0], rnd, True
            rnd += 1
            if rnd == 1:
                self.wars += 1
            if r.war_joins is WarJoins.TIED:
                contenders = top
            down = self._war_down(rnd, self._rank[up[top[0]]])
            plan, eliminated, void = self._short_stack(contenders, top, down)
            if void is not None:
                self._void(void, pot)
                return None, -1, False
            for s in eliminated:
                self._forfeit(s, pot)
            contenders = [s for s in contenders if s not in eliminated]
            if len(contenders) <= 1:
                top = contenders
                continue
            war_round: dict[str, Any] | None = None
            if entry is not None:
                war_round = {"down": [None] * n, "up": [None] * n, "standing": []}
                entry["wars"].append(war_round)
            rising = []
            for s in contenders:
                k = plan[s]
                if k is None:
                    if war_round is not None:
                        war_round["standing"].append(s)
                    continue
                cards = [self._draw(s) for _ in range(k)]
                pot[s] += cards
                if war_round is not None:
                    war_round["down"][s] = [self._code[c] for c in cards]
                rising.append(s)
            if plain:
                for s in rising:
                    card = self._draw(s)
                    pot[s].append(card)
                    up[s] = card
            else:
                yield from self._commit(rising, pot, up, rnd)
            if war_round is not None:
                for s in rising:
                    if s not in self._gone:
                        war_round["up"][s] = self._code[up[s]]
            contenders = [s for s in contenders if s not in self._gone]
            top = self._highest(contenders, up) if contenders else []

    def _war_down(self, rnd: int, tied_rank: int) -> int:
        r = self.rules
        if rnd > 1 and r.repeat_tie is RepeatTie.FACE_UP:
            return 0
        if r.war_down == BY_RANK:
            return war_value(tied_rank, r.ace_value) - 1
        assert isinstance(r.war_down, int)
        return r.war_down

    def _short_stack(
        self, contenders: list[int], top: list[int], down: int
    ) -> tuple[dict[int, int | None], list[int], list[int] | None]:
        """Per contender: face-down cards to play before a new face-up card (``None``: its
        face-up card stands); the contenders eliminated; or the seats of a void war."""
        rule = self.rules.short_stack
        need = down + 1
        if self.rules.hand_size:
            return hands.short_stack(self, contenders, top, down)
        avail = {s: self.cards_held(s) for s in contenders}
        plan: dict[int, int | None] = {}
        if rule is ShortStack.LOSE:
            short = [s for s in contenders if avail[s] < need]
            if len(short) < len(contenders):
                return {s: down for s in contenders if s not in short}, short, None
            # Nobody can finish the war: whoever would run out first loses, all at once: void.
            most = max(avail.values())
            survivors = [s for s in contenders if avail[s] == most]
            if len(survivors) > 1:
                return plan, [], survivors
            return plan, [s for s in contenders if s not in survivors], None
        if rule is ShortStack.LAST_UP:
            if all(avail[s] == 0 for s in contenders):
                return plan, [], top
            for s in contenders:
                plan[s] = min(down, avail[s] - 1) if avail[s] else None
            return plan, [], None
        empty = [s for s in contenders if avail[s] == 0]
        if len(empty) == len(contenders):
            return plan, [], top
        if rule is ShortStack.ALL_BUT_LAST:
            for s in contenders:
                if avail[s]:
                    plan[s] = min(down, avail[s] - 1)
            return plan, empty, None
        # MATCH_FEWEST (Război): everyone plays as many as the shortest stock allows.
        fewest = min(avail[s] for s in contenders if avail[s])
        k = min(need, fewest)
        plan = {s: k - 1 for s in contenders if avail[s]}
        return plan, empty, None

    def _forfeit(self, seat: int, pot: list[list[int]]) -> None:
        """An eliminated contender's remaining cards go on the table for the war's winner."""
        pot[seat] += self.stocks[seat]
        pot[seat] += self.hands[seat]
        pot[seat] += self.piles[seat]
        self.stocks[seat].clear()
        self.hands[seat].clear()
        self.piles[seat].clear()
        self._gone.add(seat)
        if self._entry is not None:
            self._entry["eliminated"].append(seat)

    def _void(self, seats: Sequence[int], pot: list[list[int]]) -> None:
        """A war nobody can finish: each of ``seats`` takes back its own cards; cards of
        players already eliminated are dead. If these seats were all that still held cards,
        the game is a draw (one-pass games just count the cards taken back as won)."""
        keep = set(seats)
        for s, cards in enumerate(pot):
            if not cards:
                continue
            if s in keep:
                self._place(s, cards)
            else:
                self.dead += cards
            pot[s] = []
        holders = {s for s in range(self.rules.seats) if self.cards_held(s)}
        if self.rules.won_cards is not WonCards.ASIDE and holders <= keep:
            self._void_draw = True
        if self._entry is not None:
            self._entry["void"] = sorted(keep)

    def _place(self, seat: int, cards: list[int]) -> None:
        where = self.rules.won_cards
        if where is WonCards.STOCK:
            self.stocks[seat].extend(cards)
        elif where is WonCards.PILE:
            self.piles[seat] += cards
        else:
            self.aside[seat] += cards

    def _ordered(self, winner: int, pot: list[list[int]]) -> list[int]:
        n = self.rules.seats
        order = self.rules.return_order
        if order is ReturnOrder.WINNER_FIRST:
            cards: list[int] = []
            for i in range(n):
                cards += pot[(winner + i) % n]
            return cards
        cards = [c for seat_cards in pot for c in seat_cards]
        if order is ReturnOrder.SHUFFLED:
            self._shuffle.shuffle(cards)
        return cards

    def _take_pot(self, winner: int, pot: list[list[int]], *, split_pair: bool) -> list[int]:
        entry = self._entry
        if split_pair:
            # Hand of three: the lower deciding card takes the two cards that began the war.
            loser = 1 - winner
            pair = [pot[0].pop(0), pot[1].pop(0)]
            self.stocks[loser].extend(pair)
            if entry is not None:
                entry["pair_to"] = loser
        cards = self._ordered(winner, pot)
        if entry is not None:
            entry["winner"] = winner
            entry["won"] = len(cards)
        return cards

    # --- face-up cards: plain, from a hand, or looked at and maybe used to steal ----------------

    def _commit(self, seats: list[int], pot: list[list[int]], up: list[int], rnd: int) -> BattleGen:
        if not seats:
            return
        if self.rules.hand_size:
            yield from hands.commit(self, seats, pot, up, rnd)
        elif self.rules.stealing:
            yield from steal.commit(self, seats, pot, up, rnd)
        else:
            for s in seats:
                card = self._draw(s)
                pot[s].append(card)
                up[s] = card

    # --- between battles ---------------------------------------------------------------------

    def _new_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "battle": self.battles + 1,
            "turned": [],
            "wars": [],
            "winner": None,
            "won": 0,
            "eliminated": [],
        }
        if self.rules.rounds > 1:
            entry["round"] = self.round_no + 1
        if self.rules.stealing:
            entry["steals"] = []
        return entry

    def _end_battle(self) -> None:
        self.battles += 1
        entry = self._entry
        self._entry = None
        n = self.rules.seats
        if entry is not None and self.log is not None:
            entry["stocks"] = [len(self.stocks[s]) for s in range(n)]
            if self.rules.won_cards is WonCards.PILE:
                entry["piles"] = [len(p) for p in self.piles]
            if self.rules.won_cards is WonCards.ASIDE:
                entry["aside"] = [len(a) for a in self.aside]
            if self.rules.hand_size:
                entry["hands"] = [len(h) for h in self.hands]
            self.log.append(entry)
        self._check_end(entry)
        if self.observer is not None:
            self.observer(self)

    def _finish(
        self, winners: Sequence[int], reason: EndReason, entry: dict[str, Any] | None
    ) -> None:
        winners_t = tuple(sorted(winners))
        losers = tuple(s for s in range(self.rules.seats) if s not in winners_t)
        self.result = GameResult(winners_t, losers if winners_t else (), reason, self.battles)
        if entry is not None:
            entry["result"] = self.result.to_dict()

    def _check_end(self, entry: dict[str, Any] | None) -> None:
        r = self.rules
        n = r.seats
        limit = r.battle_limit
        if (
            self._cycles is None
            and not self._void_draw
            and self.battles < self.battle_cap
            and (limit is None or self.battles < limit)
            and (r.ending is not Ending.THREE_WARS or max(self.wars_won) < THREE)
        ):
            # The usual case, quickly: every seat still holds cards, so no ending applies.
            for stock, pile, hand in zip(self.stocks, self.piles, self.hands, strict=True):
                if not (stock or pile or hand):
                    break
            else:
                return
        held = [
            len(stock) + len(pile) + len(hand)
            for stock, pile, hand in zip(self.stocks, self.piles, self.hands, strict=True)
        ]
        holders = [s for s in range(n) if held[s]]
        if self._void_draw:
            self._finish((), EndReason.VOID, entry)
        elif r.ending is Ending.ONE_PASS:
            if len(holders) < 2:
                self._end_round(entry)
        elif r.ending is Ending.THREE_WARS and max(self.wars_won) >= THREE:
            self._finish([self.wars_won.index(max(self.wars_won))], EndReason.THREE_WARS, entry)
        elif r.ending is Ending.FIRST_OUT_LOSES and len(holders) < n:
            self._finish(holders, EndReason.FIRST_OUT_LOSES, entry)
        elif len(holders) <= 1:
            if r.ending is Ending.HOLDER_LOSES:
                self._finish(
                    [s for s in range(n) if s not in holders], EndReason.HOLDER_LOSES, entry
                )
            else:
                self._finish(holders, EndReason.ALL_CARDS, entry)
        elif r.battle_limit is not None and self.battles >= r.battle_limit:
            self._finish(self._standing(held), EndReason.BATTLE_LIMIT, entry)
        elif self.battles >= self.battle_cap:
            self._finish((), EndReason.BATTLE_CAP, entry)
        elif self._cycles is not None:
            first = self._cycles.seen_at(self._position_key(), self.battles)
            if first is not None:
                self.cycle_length = self.battles - first
                self._finish((), EndReason.CYCLE, entry)
                if entry is not None:
                    entry["cycle"] = {"since_battle": first, "length": self.cycle_length}

    def _standing(self, held: list[int]) -> list[int]:
        """Winners at the battle limit: most cards (fewest when holding cards loses)."""
        if len(set(held)) == 1:
            return []
        if self.rules.ending is Ending.HOLDER_LOSES:
            most = max(held)
            return [s for s in range(len(held)) if held[s] != most]
        best = max(held)
        leaders = [s for s in range(len(held)) if held[s] == best]
        return leaders if len(leaders) == 1 else []

    def _end_round(self, entry: dict[str, Any] | None) -> None:
        won = [len(a) for a in self.aside]
        best = max(won)
        leaders = [s for s in range(self.rules.seats) if won[s] == best]
        if len(leaders) == 1:
            self.round_wins[leaders[0]] += 1
        if entry is not None:
            entry["round_over"] = {
                "round": self.round_no + 1,
                "won": won,
                "winners": leaders if len(leaders) == 1 else [],
            }
        if self.round_no + 1 < self.rules.rounds:
            self.round_no += 1
            self._start_round()
            return
        scores = won if self.rules.rounds == 1 else self.round_wins
        top = max(scores)
        leaders = [s for s in range(self.rules.seats) if scores[s] == top]
        self._finish(leaders if len(leaders) == 1 else (), EndReason.ONE_PASS, entry)

    def _position_key(self) -> bytes:
        rank = self._rank
        seats = (
            (
                [rank[c] for c in self.stocks[s]],
                [rank[c] for c in self.hands[s]],
                [rank[c] for c in self.piles[s]],
            )
            for s in range(self.rules.seats)
        )
        extra = self.wars_won if self.rules.ending is Ending.THREE_WARS else ()
        return position_key(seats, extra)

    # --- views and records ---------------------------------------------------------------------

    def view(self, seat: int | None = None, *, log_tail: int | None = None) -> dict[str, Any]:
        from casino.engine.war.views import game_view

        return game_view(self, seat, log_tail=log_tail)

    def to_dict(self) -> dict[str, Any]:
        from casino.engine.war.records import game_record

        return game_record(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WarGame:
        from casino.engine.war.records import replay_record

        return replay_record(data)

    @property
    def seed_hash(self) -> str:
        return seed_commitment(self.seed)
