"""The one War game model: every variant is this class reading a ``WarRules`` value.

(Where the cards lie is ``state.GameState``, which this class extends; Steal War's looks and
steals live in ``steal.py``, the hand of three in ``hands.py``, what a seat may see in
``views.py`` and the JSON record in ``records.py``. They all work on ``GameState`` and none
imports this module.)

A game is fully determined by its seed and the moves its human seats make. Its battles run in
one generator that yields whenever seats must decide, so a game can pause in the middle of a
battle (a steal, the fourth card of a war) and resume when the move arrives, or between two
battles when asked to. Computer seats answer at once through their strategy; human seats leave
a pending ``Decision``.

The rule choices the seeds leave open are documented in ``docs/war-variants.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from casino.engine.cards import Rank
from casino.engine.errors import EngineError, IllegalAction
from casino.engine.war import hands, records, steal, strategies, views
from casino.engine.war.cycles import CycleDetector, position_key
from casino.engine.war.decisions import BattleGen, Decision, IllegalMove, Move, describe, normalise
from casino.engine.war.entries import Cycle, EntryBuilder, RoundOver
from casino.engine.war.records import CorruptRecord
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
from casino.engine.war.state import BATTLE_CAP, RULE_REVISION, THREE, GameState

__all__ = ["BATTLE_CAP", "THREE", "WarGame"]

_LOW_BEATS_ACE = 16  # above the joker rank (15): the low card beats the ace outright
#: A war's outcome: (winner, rounds fought, whether the winner's card was compared).
WarGen = Generator[list[Decision], dict[int, Move], tuple[int | None, int, bool]]


class WarGame(GameState):
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
        revision: int = RULE_REVISION,
    ) -> None:
        super().__init__(
            rules,
            seed,
            seats,
            variant=variant,
            options=options,
            log=log,
            battle_cap=battle_cap,
            revision=revision,
        )
        #: Called after every battle (tests assert card conservation with it).
        self.observer = observer
        self._answers: dict[int, Move] = {}
        self._gen: BattleGen | None = None
        self._stop_each_battle = False
        #: The seats sharing a draw by a void war (empty: no such draw).
        self._void_draw: tuple[int, ...] = ()
        self._plain = not rules.has_decisions
        deterministic = not rules.has_decisions or all(
            s.kind is SeatKind.COMPUTER and s.strategy in strategies.DETERMINISTIC
            for s in self.seats
        )
        # Since revision 2 a capture pile is always shuffled when turned over: no loop is
        # certain then, so only stocks can be proven to cycle.
        shuffled_piles = revision >= 2 and rules.won_cards is WonCards.PILE
        provable = rules.can_cycle and deterministic and not shuffled_piles
        self._cycles = CycleDetector() if provable else None
        if self._cycles is not None:
            self._cycles.seen_at(self._position_key(), 0)

    # --- public driving ----------------------------------------------------------------------

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
                    self._apply(seat, proxy_play(decision, self.seat_rng[seat]), auto=True)
                continue
            if until == "battle" and self.battles > start:
                return
            self._stop_each_battle = until == "battle"
            self._resume({})

    def apply(self, seat: int, move: object) -> None:
        """A human seat's move. Raises ``IllegalMove`` (listing the legal moves) if it is not
        one of them; afterwards play continues to the end of the battle or the next choice."""
        self._apply(seat, move, auto=False)

    def apply_recorded(self, seat: int, move: object, *, auto: bool) -> None:
        """A move as a record holds it: ``auto`` when the proxy strategy made it for a human
        (``advance("end")``), so replaying a record records the same moves again."""
        self._apply(seat, move, auto=auto)

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
                    send[decision.seat] = play(decision, self.seat_rng[decision.seat])
            if self._pending:
                self._answers = send
                return

    # --- comparing cards ---------------------------------------------------------------------

    def _highest(self, seats: list[int], up: list[int]) -> list[int]:
        """The seats whose face-up card ranks highest (one seat: it wins)."""
        if self.rules.low_beats_ace:
            values = self._strengths(seats, up)
            best = max(values.values())
            return [s for s in seats if values[s] == best]
        rank = self.ranks
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
        rank = self.ranks
        values = {s: rank[up[s]] for s in seats}
        if self.rules.low_beats_ace:
            low = self.low_rank
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
        logging = self.logging
        while self.result is None:
            pot: list[list[int]] = [[] for _ in range(n)]
            self.pot = pot
            up = [-1] * n
            if self.gone:
                self.gone = set()
            if self.protected:
                self.protected = set()
            self.steals_this_battle = 0
            stocks, piles, hands_ = self.stocks, self.piles, self.hands
            active = [s for s in range(n) if stocks[s] or piles[s] or hands_[s]]
            entry = self.entry = self._new_entry() if logging else None
            if plain:
                for s in active:
                    card = stocks[s].popleft() if stocks[s] else self.draw(s)
                    pot[s].append(card)
                    up[s] = card
            else:
                yield from self._commit(active, pot, up, 0)
            contenders = [s for s in active if s not in self.gone] if self.gone else active
            if entry is not None:
                entry.turned = [self.codes[up[s]] if pot[s] else None for s in range(n)]
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
                if r.stealing and len({self.ranks[c] for c in cards}) > 1:
                    decision = steal.top_decision(self, winner, cards)
                    answers = yield [decision]
                    chosen = self.index[answers[winner]["card"]]
                    cards.remove(chosen)
                    cards.append(chosen)
                    if entry is not None:
                        entry.top = self.codes[chosen]
                for s in range(n):
                    pot[s] = []  # the cards stay on the table (and counted there) until placed
                self.place(winner, cards)
            self._end_battle()
            if self._stop_each_battle and self.result is None:
                yield []

    def _war(
        self,
        contenders: list[int],
        top: list[int],
        pot: list[list[int]],
        up: list[int],
        entry: EntryBuilder | None,
    ) -> WarGen:
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
            down = self._war_down(rnd, self.ranks[up[top[0]]])
            plan, eliminated, void = self._short_stack(contenders, top, down)
            for s in eliminated:
                self._forfeit(s, pot)
            if void is not None:
                self._void(void, pot)
                return None, -1, False
            contenders = [s for s in contenders if s not in eliminated]
            if len(contenders) <= 1:
                top = contenders
                continue
            war_round = entry.war_round(n) if entry is not None else None
            rising = []
            for s in contenders:
                k = plan[s]
                if k is None:
                    if war_round is not None:
                        war_round.standing.append(s)
                    continue
                cards = [self.draw(s) for _ in range(k)]
                pot[s] += cards
                if war_round is not None:
                    war_round.down[s] = tuple(self.codes[c] for c in cards)
                rising.append(s)
            if plain:
                for s in rising:
                    card = self.draw(s)
                    pot[s].append(card)
                    up[s] = card
            else:
                yield from self._commit(rising, pot, up, rnd)
            if war_round is not None:
                for s in rising:
                    if s not in self.gone:
                        war_round.up[s] = self.codes[up[s]]
            contenders = [s for s in contenders if s not in self.gone]
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
        """Per contender still fighting: face-down cards to play before a new face-up card
        (``None``: its face-up card stands); the contenders eliminated (their cards go on the
        table); and, when nobody left can finish the war, the seats of the void war."""
        rule = self.rules.short_stack
        need = down + 1
        if self.rules.hand_size:
            return hands.short_stack(self, contenders, top, down)
        avail = {s: self.cards_held(s) for s in contenders}
        plan: dict[int, int | None] = {}
        revised = self.revision >= 2
        if rule is ShortStack.LOSE:
            short = [s for s in contenders if avail[s] < need]
            if len(short) < len(contenders):
                return {s: down for s in contenders if s not in short}, short, None
            # Nobody can finish the war: whoever would run out first loses; those with the
            # most cards, if several, all run out at once: a void war between them.
            most = max(avail.values())
            survivors = [s for s in contenders if avail[s] == most]
            losers = [s for s in contenders if s not in survivors]
            if len(survivors) > 1:
                # Revision 1 left the others in the game, without the cards they had played.
                return plan, losers if revised else [], survivors
            return plan, losers, None
        if rule is ShortStack.LAST_UP:
            # A card stands for the war only for a player in the tie; since revision 2 a
            # player out of cards whose last card lost the battle drops out (3-4 players).
            out = [s for s in contenders if not avail[s] and s not in top] if revised else []
            fighting = [s for s in contenders if s not in out]
            if all(avail[s] == 0 for s in fighting):
                return plan, out, top
            for s in fighting:
                plan[s] = min(down, avail[s] - 1) if avail[s] else None
            return plan, out, None
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
        self.eliminate(seat)

    def _void(self, seats: Sequence[int], pot: list[list[int]]) -> None:
        """A war nobody can finish: each of ``seats`` takes back its own cards; cards of
        players already eliminated are dead. If these seats were all that still held cards,
        the game is a draw (one-pass games just count the cards taken back as won)."""
        keep = set(seats)
        for s, cards in enumerate(pot):
            if not cards:
                continue
            if s in keep:
                self.place(s, cards)
            else:
                self.dead += cards
            pot[s] = []
        holders = {s for s in range(self.rules.seats) if self.cards_held(s)}
        if self.rules.won_cards is not WonCards.ASIDE and holders <= keep:
            self._void_draw = tuple(sorted(keep))
        if self.entry is not None:
            self.entry.void = tuple(sorted(keep))

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
            self.shuffler.shuffle(cards)
        return cards

    def _take_pot(self, winner: int, pot: list[list[int]], *, split_pair: bool) -> list[int]:
        entry = self.entry
        if split_pair:
            # Hand of three: the lower deciding card takes the two cards that began the war.
            loser = 1 - winner
            pair = [pot[0].pop(0), pot[1].pop(0)]
            self.stocks[loser].extend(pair)
            if entry is not None:
                entry.pair_to = loser
        cards = self._ordered(winner, pot)
        if entry is not None:
            entry.winner = winner
            entry.won = len(cards)
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
                card = self.draw(s)
                pot[s].append(card)
                up[s] = card

    # --- between battles ---------------------------------------------------------------------

    def _new_entry(self) -> EntryBuilder:
        return EntryBuilder(
            battle=self.battles + 1,
            round=self.round_no + 1 if self.rules.rounds > 1 else None,
            steals=[] if self.rules.stealing else None,
        )

    def _end_battle(self) -> None:
        self.battles += 1
        entry = self.entry
        self.entry = None
        if entry is not None:
            rules = self.rules
            entry.stocks = tuple(map(len, self.stocks))
            if rules.won_cards is WonCards.PILE:
                entry.piles = tuple(map(len, self.piles))
            elif rules.won_cards is WonCards.ASIDE:
                entry.aside = tuple(map(len, self.aside))
            if rules.hand_size:
                entry.hands = tuple(map(len, self.hands))
        self._check_end(entry)
        if entry is not None:
            self.log_battle(entry)
        if self.observer is not None:
            self.observer(self)

    def _finish(
        self,
        winners: Sequence[int],
        reason: EndReason,
        entry: EntryBuilder | None,
        *,
        drawn: Sequence[int] | None = None,
    ) -> None:
        """The game is over. ``drawn``: for a draw, the seats that share it (the others, out
        of cards before it, lost); by default a draw has no losers."""
        winners_t = tuple(sorted(winners))
        n = self.rules.seats
        if winners_t:
            losers = tuple(s for s in range(n) if s not in winners_t)
        elif drawn is not None:
            losers = tuple(s for s in range(n) if s not in drawn)
        else:
            losers = ()
        self.result = GameResult(winners_t, losers, reason, self.battles)
        if entry is not None:
            entry.result = self.result

    def _check_end(self, entry: EntryBuilder | None) -> None:
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
            # Since revision 2 the players already out lose the game the others draw.
            drawn = self._void_draw if self.revision >= 2 else None
            self._finish((), EndReason.VOID, entry, drawn=drawn)
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
                    entry.cycle = Cycle(first, self.cycle_length)

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

    def _end_round(self, entry: EntryBuilder | None) -> None:
        won = [len(a) for a in self.aside]
        best = max(won)
        leaders = [s for s in range(self.rules.seats) if won[s] == best]
        if len(leaders) == 1:
            self.round_wins[leaders[0]] += 1
        if entry is not None:
            entry.round_over = RoundOver(
                self.round_no + 1, tuple(won), tuple(leaders) if len(leaders) == 1 else ()
            )
        if self.round_no + 1 < self.rules.rounds:
            self.round_no += 1
            self.start_round()
            return
        scores = won if self.rules.rounds == 1 else self.round_wins
        top = max(scores)
        leaders = [s for s in range(self.rules.seats) if scores[s] == top]
        self._finish(leaders if len(leaders) == 1 else (), EndReason.ONE_PASS, entry)

    def _position_key(self) -> bytes:
        rank = self.ranks
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
        return views.game_view(self, seat, log_tail=log_tail)

    def to_dict(self) -> dict[str, Any]:
        return records.game_record(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WarGame:
        """Replay a record (``to_dict``) to its recorded position; ``CorruptRecord`` if the
        record does not replay to exactly the position it recorded."""
        record = records.parse_record(data)
        try:
            game = cls(
                record.rules,
                record.seed,
                record.seats,
                variant=record.variant,
                options=record.options,
                log=record.log,
                battle_cap=record.battle_cap,
                revision=record.revision,
            )
            for move in record.moves:
                game.advance("decision")
                game.apply_recorded(int(move["seat"]), move["move"], auto=bool(move.get("auto")))
            if record.paused or record.finished:
                game.advance("decision")
            while game.battles < record.battles and not game.finished and not game.pending:
                game.advance("battle")
        except (KeyError, TypeError, ValueError, EngineError) as exc:
            if isinstance(exc, CorruptRecord):
                raise
            raise CorruptRecord(f"game record does not replay: {exc}") from exc
        if game.battles != record.battles or records.state_digest(game) != record.digest:
            raise CorruptRecord("game record does not replay to its recorded position")
        return game
