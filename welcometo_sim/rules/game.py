"""The turn loop: deck, offers, simultaneous turns, plans, end of game, record.

`play_game` is a pure function of (variant, seats, seed): the deck and every
strategy's random generator derive from the game seed, so a game can be
replayed anywhere. Strategies are called through duck-typed hooks; the game
checks every answer against the legal options it computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from .data import N_STACKS, TEMP, PlanSpec
from .effects import (Effect, Offer, Play, apply_effect, apply_play, effect_options, legal_plays,
                      must_play)
from .plans import PlanClaim, apply_claim, claim_options
from .scoring import rank_key, ranks, score_game
from .sheet import Sheet
from .variant import Variant

RECORD_FORMAT = "welcometo-sim/game/1"


class StrategyError(RuntimeError):
    """A strategy raised or answered something that is not among its legal options."""

    def __init__(self, strategy: str, seat: int, seed: int, turn: int, problem: str) -> None:
        super().__init__(f"strategy {strategy!r} (seat {seat}) {problem} in game seed {seed}, turn {turn}")
        self.strategy, self.seat, self.seed, self.turn, self.problem = strategy, seat, seed, turn, problem


class Seat(NamedTuple):
    """Who sits at a seat: display name, strategy id, and how to build its strategy
    for one game from that seat's random generator."""

    name: str
    strategy: str
    factory: Callable[[np.random.Generator], Any]


class PublicSeat(NamedTuple):
    """What everybody sees of a seat at the start of a turn."""

    temps: int
    refusals: int
    plans: tuple[int | None, ...]
    built: int


@dataclass
class PlayerView:
    """What one player knows when asked to decide (read it, don't change it).

    `sheet` is the player's own sheet as it stands now; `public` is every
    seat's public summary as of the start of the turn; `plan_first_turn[d]` is
    the turn plan d+1 was first completed by anyone (None: its high value is
    still to be had); `next_effects` are the effects of the next turn's
    offers, known from the card corners (None when a reshuffle hides them).
    """

    seat: int
    turn: int
    sheet: Sheet
    offers: list[Offer]
    next_effects: tuple[str, ...] | None
    plans: tuple[PlanSpec, ...]
    plan_first_turn: tuple[int | None, ...]
    public: tuple[PublicSeat, ...]
    cards_left: int
    variant: Variant
    n_players: int


@dataclass
class GameResult:
    """Everything a finished game produced."""

    seed: int
    plans: tuple[PlanSpec, ...]
    sheets: list[Sheet]
    scores: list[dict[str, int]]
    ranks: list[int]
    turns: int
    end_reasons: list[str]
    plan_first_turn: list[int | None]
    record: dict | None = field(default=None)


def seat_generators(seed: int, n_players: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The game's own generator (deck, plans) and one independent generator per seat."""
    children = np.random.SeedSequence(seed).spawn(1 + n_players)
    return np.random.default_rng(children[0]), [np.random.default_rng(c) for c in children[1:]]


def draw_plans(variant: Variant, rng: np.random.Generator,
               fixed: Sequence[str | None] = (None, None, None)) -> tuple[PlanSpec, ...]:
    """One plan per deck: the fixed id where given, else a random card of that deck."""
    chosen = []
    for deck in (1, 2, 3):
        cards = variant.plan_deck(deck)
        index = int(rng.integers(len(cards)))
        plan_id = fixed[deck - 1]
        chosen.append(variant.data.plan(plan_id) if plan_id else cards[index])
    return tuple(chosen)


def settle_plans(sheets: Sequence[Sheet], plans: Sequence[PlanSpec],
                 first_turn: list[int | None], turn: int) -> None:
    """Give this turn's plan completions their points: high for the first turn in
    which anyone completes a plan (all same-turn completers), low afterwards."""
    for deck, spec in enumerate(plans):
        completers = [s for s in sheets if s.plan_turns[deck] == turn]
        if not completers:
            continue
        if first_turn[deck] is None:
            first_turn[deck] = turn
        points = spec.points[0] if first_turn[deck] == turn else spec.points[1]
        for sheet in completers:
            sheet.plan_points[deck] = points


def end_reasons(sheets: Sequence[Sheet], deck_exhausted: bool = False) -> list[str]:
    """Every end condition of RULES.md §7 that holds now."""
    reasons = []
    if any(s.refusals >= s.data.max_refusals for s in sheets):
        reasons.append("refusals")
    if any(s.plans_completed() == 3 for s in sheets):
        reasons.append("plans")
    if any(s.is_full() for s in sheets):
        reasons.append("houses")
    if deck_exhausted:
        reasons.append("deck")
    return reasons


def claim_to_record(claim: PlanClaim) -> dict:
    estates = None if claim.estates is None else [list(e) for e in claim.estates]
    return {"deck": claim.deck, "estates": estates}


class Deck:
    """The construction cards as three stacks (number side up) and three discard
    piles (effect side up). Cards are indices into `cards`."""

    def __init__(self, cards: Sequence[tuple[int, str]], rng: np.random.Generator) -> None:
        self.cards = cards
        self.rng = rng
        self.stacks: list[list[int]] = []
        self.discards: list[list[int]] = [[] for _ in range(N_STACKS)]
        self._deal(list(range(len(cards))))

    def _deal(self, card_ids: list[int]) -> None:
        order = [card_ids[i] for i in self.rng.permutation(len(card_ids))]
        size = len(order) // N_STACKS
        self.stacks = [order[i * size:(i + 1) * size] for i in range(N_STACKS)]

    def reshuffle_all(self) -> None:
        """Plan reshuffle: every card (stacks and discards) into three new stacks."""
        everything = [c for pile in self.stacks + self.discards for c in pile]
        self.discards = [[] for _ in range(N_STACKS)]
        self._deal(sorted(everything))

    def reveal(self) -> bool:
        """Flip each stack's top card onto its discard pile. When that empties the
        stacks, keep the three flipped cards as effects and shuffle all other cards
        into new stacks. Returns True when that exhaustion reshuffle happened."""
        for stack, discard in zip(self.stacks, self.discards):
            discard.append(stack.pop())
        if all(self.stacks):
            return False
        kept = [pile[-1] for pile in self.discards]
        rest = [c for pile in self.stacks for c in pile] + [c for pile in self.discards for c in pile[:-1]]
        self.discards = [[c] for c in kept]
        self._deal(sorted(rest))
        return True

    def offers(self) -> list[Offer]:
        cards = self.cards
        return [
            Offer(cards[stack[-1]][0], cards[discard[-1]][1], i, i)
            for i, (stack, discard) in enumerate(zip(self.stacks, self.discards))
        ]

    def next_effects(self) -> tuple[str, ...]:
        return tuple(self.cards[stack[-1]][1] for stack in self.stacks)

    def cards_left(self) -> int:
        return sum(len(stack) for stack in self.stacks)


class Game:
    """One game in progress. Use :func:`play_game` unless you need the steps."""

    def __init__(self, variant: Variant, seats: Sequence[Seat], seed: int,
                 plan_ids: Sequence[str | None] = (None, None, None), record: bool = False) -> None:
        variant.check(len(seats))
        self.variant = variant
        self.seats = list(seats)
        self.seed = int(seed)
        self.rng, seat_rngs = seat_generators(self.seed, len(seats))
        self.plans = draw_plans(variant, self.rng, plan_ids)
        self.strategies = [seat.factory(rng) for seat, rng in zip(self.seats, seat_rngs)]
        self.sheets = [Sheet(variant.data) for _ in self.seats]
        self.deck = Deck(variant.data.deck, self.rng)
        self.turn = 0
        self.first_turn: list[int | None] = [None, None, None]
        self.reshuffle_pending = False
        self.turn_records: list[dict] | None = [] if record else None

    # ------------------------------------------------------------------ driving
    def play(self) -> GameResult:
        reasons: list[str] = []
        while not reasons:
            reasons = self.play_turn()
        return self.result(reasons)

    def play_turn(self) -> list[str]:
        """Play one turn for everybody; returns the end reasons (empty: go on)."""
        self.turn += 1
        events = []
        if self.reshuffle_pending:
            self.deck.reshuffle_all()
            self.reshuffle_pending = False
            events.append("plan-reshuffle")
        if self.deck.reveal():
            events.append("deck-reshuffled")
        offers = self.deck.offers()
        next_effects = self.deck.next_effects()
        public = tuple(
            PublicSeat(s.temps, s.refusals, tuple(s.plan_turns), s.n_built()) for s in self.sheets
        )
        plan_status = tuple(self.first_turn)
        actions = []
        for seat, sheet in enumerate(self.sheets):
            view = PlayerView(seat, self.turn, sheet, offers, next_effects, self.plans, plan_status,
                              public, self.deck.cards_left(), self.variant, len(self.sheets))
            actions.append(self._seat_turn(seat, view))
        first_plan_this_turn = all(t is None for t in self.first_turn)
        settle_plans(self.sheets, self.plans, self.first_turn, self.turn)
        if first_plan_this_turn:
            self._offer_reshuffle(actions)
        if self.turn_records is not None:
            self.turn_records.append({
                "turn": self.turn,
                "events": events,
                "offers": [[o.number, o.effect] for o in offers],
                "actions": actions,
            })
        return end_reasons(self.sheets)

    # --------------------------------------------------------------- one seat
    def _ask(self, seat: int, hook: str, *args: Any) -> Any:
        try:
            return getattr(self.strategies[seat], hook)(*args)
        except Exception as exc:  # a user strategy may raise anything
            raise StrategyError(self.seats[seat].strategy, seat, self.seed, self.turn,
                                f"raised {type(exc).__name__}: {exc} in {hook}") from exc

    def _illegal(self, seat: int, hook: str, answer: Any) -> StrategyError:
        return StrategyError(self.seats[seat].strategy, seat, self.seed, self.turn,
                             f"answered an illegal {answer!r} to {hook}")

    def _seat_turn(self, seat: int, view: PlayerView) -> dict:
        sheet = view.sheet
        action: dict[str, Any] = {
            "seat": seat, "roundabout": None, "refusal": False, "number_from": None,
            "effect_from": None, "written": None, "truck": None, "effect": None,
            "plans": [], "reshuffle": False,
        }
        plays: list[Play | None] = list(legal_plays(sheet, view.offers))
        play = None
        if plays:
            if not must_play(plays):  # type: ignore[arg-type]
                plays.append(None)
            play = self._ask(seat, "choose_play", view, plays)
            if play not in plays:
                raise self._illegal(seat, "choose_play", play)
        if play is None:
            sheet.refusals = min(sheet.refusals + 1, sheet.data.max_refusals)
            action["refusal"] = True
        else:
            self._play(seat, view, play, action)
        self._claim_plans(seat, view, action)
        return action

    def _play(self, seat: int, view: PlayerView, play: Play, action: dict) -> None:
        sheet = view.sheet
        offer = view.offers[play.offer]
        apply_play(sheet, play)
        action["number_from"], action["effect_from"] = offer.number_from, offer.effect_from
        action["written"] = {"street": play.street, "house": play.house, "number": play.number}
        if play.temp:
            action["effect"] = {"kind": TEMP}
            return
        options: list[Effect | None] = list(effect_options(sheet, offer, play))
        if not options:
            return
        options.append(None)
        effect = self._ask(seat, "choose_effect", view, options)
        if effect not in options:
            raise self._illegal(seat, "choose_effect", effect)
        if effect is not None:
            apply_effect(sheet, effect)
            action["effect"] = effect.to_record()

    def _claim_plans(self, seat: int, view: PlayerView, action: dict) -> None:
        sheet = view.sheet
        claimable = claim_options(sheet, self.plans)
        if not claimable:
            return
        chosen = self._ask(seat, "choose_plans", view, claimable)
        for claim in chosen or ():
            if claim not in claim_options(sheet, self.plans):
                raise self._illegal(seat, "choose_plans", claim)
            apply_claim(sheet, self.plans, claim, self.turn)
            action["plans"].append(claim_to_record(claim))

    def _offer_reshuffle(self, actions: list[dict]) -> None:
        """First plan completion of the game: its completers may ask for a reshuffle."""
        completers = [a["seat"] for a in actions if a["plans"]]
        for seat in completers:
            view = PlayerView(seat, self.turn, self.sheets[seat], [], None, self.plans,
                              tuple(self.first_turn), (), self.deck.cards_left(), self.variant,
                              len(self.sheets))
            wants = self._ask(seat, "choose_reshuffle", view)
            if not isinstance(wants, (bool, np.bool_)):
                raise self._illegal(seat, "choose_reshuffle", wants)
            if wants:
                actions[seat]["reshuffle"] = True
                self.reshuffle_pending = True

    # ------------------------------------------------------------------ result
    def result(self, reasons: list[str]) -> GameResult:
        scores = score_game(self.sheets, solo=self.variant.solo)
        keys = [rank_key(score["total"], sheet) for score, sheet in zip(scores, self.sheets)]
        game_ranks = ranks(keys)
        record = None
        if self.turn_records is not None:
            record = {
                "format": RECORD_FORMAT,
                "seed": self.seed,
                "variant": self.variant.to_record(),
                "players": [{"seat": i, "name": s.name, "strategy": s.strategy}
                            for i, s in enumerate(self.seats)],
                "plans": [{"deck": p.deck, "id": p.id, "points": list(p.points)} for p in self.plans],
                "turns": self.turn_records,
                "end": {"turn": self.turn, "reasons": reasons},
                "final": [
                    {"seat": seat, "rank": game_ranks[seat], "score": scores[seat],
                     "sheet": sheet.to_record()}
                    for seat, sheet in enumerate(self.sheets)
                ],
            }
        return GameResult(self.seed, self.plans, self.sheets, scores, game_ranks, self.turn,
                          reasons, list(self.first_turn), record)


def play_game(variant: Variant, seats: Sequence[Seat], seed: int,
              plan_ids: Sequence[str | None] = (None, None, None), record: bool = False) -> GameResult:
    """Play one whole game; a pure function of its arguments."""
    return Game(variant, seats, seed, plan_ids, record).play()
