"""`lookahead`: heuristic moves, tested against sampled next turns.

`heuristic` judges a move by the sheet it leaves. `lookahead` also asks how
well that sheet can use the next turn's cards: it takes the `candidates` best
moves by the heuristic evaluation, samples `samples` possible next turns from
the cards it has not seen yet (Monte Carlo, from its own seeded generator),
and for each candidate and sample finds the heuristic's best answer. A
candidate scores the mean value of those answers; the same samples serve every
candidate, so they are compared on equal terms.

Refusals, which end most games, weigh more than in `heuristic`:

- the heuristic it uses has the `refusal_risk` term on (weight 40): a sheet
  whose empty houses take few of the numbers still to come counts as a
  risk of refusals to come;
- a candidate also pays `risk_cost` times the exact chance that none of the
  next turn's three offers fits its sheet (the numbers from the unseen cards,
  the known next effects, a temp agency widening its number by 2);
- a refusal, sampled or by choice, costs `refusal_cost` more than its track
  value: the first refusal is free on the track, but the turn is lost.

Its temps are worth their base value only (`temp_race: 0`): the temp race
decided by today's counts overrates a temp, which takes the place of another
effect.

What it knows is what a player knows. In the standard game the next turn's
effects are public (`view.next_effects`) and its numbers come from cards not
seen since the last shuffle; in solo and expert games, where the next cards
are hidden, whole cards are sampled. With `samples: 0` and `refusal_cost: 0`
it plays exactly like `heuristic` with the same weights.

`temperature` > 0 (from `heuristic`) draws the move among the candidates
with probability proportional to exp(sampled mean / temperature) instead of
taking the best mean.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from welcometo_sim.games.welcome_to.cards import pair_offers
from welcometo_sim.games.welcome_to.evaluation import MoveEvaluator, refusal_chance
from welcometo_sim.strategy import (Effect, Offer, Play, PlayerView, Sheet, apply_effect, apply_play,
                                    legal_plays)

from .greedy import softmax_index
from .heuristic import HeuristicStrategy


class CardCounter:
    """The construction cards a player has not seen since the last shuffle.

    Every turn's offers show some cards' numbers; when the deck is dealt
    again (the number of cards left goes up) the count starts over.
    """

    def __init__(self, deck: list[tuple[int, str]]) -> None:
        self.deck = deck
        self.unseen: list[tuple[int, str]] = list(deck)
        self._last_turn = -1
        self._cards_left = -1

    def update(self, view: PlayerView) -> None:
        if view.turn == self._last_turn:
            return
        if view.cards_left > self._cards_left >= 0 or self._cards_left < 0:
            self.unseen = list(self.deck)
        self._last_turn, self._cards_left = view.turn, view.cards_left
        for card in self._visible(view):
            try:
                self.unseen.remove(card)
            except ValueError:
                pass  # a card seen again after a shuffle we could not detect

    @staticmethod
    def _visible(view: PlayerView) -> list[tuple[int, str]]:
        """The cards whose numbers show this turn. In the standard game an
        offer's number is on the top card of a stack, whose back shows next
        turn's effect; the offer's effect belongs to the card flipped before."""
        if view.hand is not None:
            return list(view.hand)
        if view.next_effects is not None:
            return [(offer.number, effect) for offer, effect in zip(view.offers, view.next_effects)]
        return [(offer.number, offer.effect) for offer in view.offers]


class LookaheadStrategy(HeuristicStrategy):
    name = "lookahead"
    defaults: dict[str, Any] = {
        **HeuristicStrategy.defaults,
        "samples": 6,
        "candidates": 3,
        "reply_shortlist": 2,
        "reply_temps": False,
        "refusal_cost": 3.0,
        "risk_cost": 10.0,
    }
    defaults["weights"] = {**HeuristicStrategy.defaults["weights"], "temp_race": 0.0, "refusal_risk": 40.0}

    def __init__(self, rng, params=None) -> None:
        super().__init__(rng, params)
        self._counter: CardCounter | None = None
        self._replying = False
        self._reply_evaluator: tuple[Sheet, MoveEvaluator | None] | None = None

    @classmethod
    def check_params(cls, params: dict) -> None:
        super().check_params(params)
        for key, low in (("samples", 0), ("candidates", 1), ("reply_shortlist", 1)):
            if params[key] < low:
                raise ValueError(f"parameter {key!r} must be at least {low}, got {params[key]}")

    # --------------------------------------------------------------- sampling
    def _sample_offers(self, view: PlayerView) -> list[list[Offer]]:
        """`samples` possible sets of next-turn offers."""
        unseen = self._counter.unseen if self._counter else []
        if len(unseen) < 3:
            return []
        samples = []
        for _ in range(self.params["samples"]):
            picks = self.rng.choice(len(unseen), size=3, replace=False)
            cards = [unseen[int(i)] for i in picks]
            if view.next_effects is not None and view.hand is None:
                samples.append([Offer(card[0], effect, i, i)
                                for i, (card, effect) in enumerate(zip(cards, view.next_effects))])
            else:
                samples.append(pair_offers(cards))
        return samples

    # ------------------------------------------------------------- searching
    def refusal_value(self, view: PlayerView) -> float:
        """The heuristic value of a refusal, less `refusal_cost` for the lost
        turn (the refusal track costs nothing for the first refusal, yet the
        turn is gone and the sheet is one step nearer the end)."""
        return super().refusal_value(view) - self.params["refusal_cost"]

    def _after(self, sheet: Sheet, play: Play, effect: Effect | None) -> Sheet:
        after = sheet.copy()
        apply_play(after, play)
        if effect is not None:
            apply_effect(after, effect)
        return after

    def _candidates(self, view: PlayerView, scored: list[tuple[float, int, Play]]
                    ) -> list[tuple[float, int, Play]]:
        """Sampled replies try the effects of fewer writes (`reply_shortlist`):
        they only need the best value, and there are many of them."""
        if self._replying:
            return scored[: self.params["reply_shortlist"]]
        return super()._candidates(view, scored)

    def _evaluator(self, sheet: Sheet, view: PlayerView) -> MoveEvaluator | None:
        """While replying, the evaluator of a candidate's sheet serves all its
        samples (the sheet is the same; only the offers differ)."""
        cached = self._reply_evaluator
        if not self._replying or cached is None or cached[0] is not sheet:
            return super()._evaluator(sheet, view)
        if cached[1] is None:
            cached = self._reply_evaluator = (sheet, super()._evaluator(sheet, view))
        return cached[1]

    def _reply_value(self, view: PlayerView, sheet: Sheet, offers: list[Offer]) -> float:
        """The heuristic value of the best answer to `offers` on `sheet` (a refusal when none fits)."""
        future = replace(view, sheet=sheet, offers=offers, turn=view.turn + 1, next_effects=None)
        plays: list[Play | None] = list(legal_plays(sheet, offers))
        plain = [play for play in plays if not play.temp]
        if plain and not self.params["reply_temps"]:
            plays = plain  # the temp agency's variants multiply the writes to score fivefold
        self._replying = True
        if self._reply_evaluator is None or self._reply_evaluator[0] is not sheet:
            self._reply_evaluator = (sheet, None)
        try:
            moves = self.ranked_moves(future, plays) if plays else []
        finally:
            self._replying = False
        return moves[0][0] if moves else self.refusal_value(future)

    @staticmethod
    def _next_temps(view: PlayerView) -> list[float]:
        """For each offer of the next turn, the chance that its effect is the
        temp agency: known in the standard game (`view.next_effects`), else
        the share of temp-agency cards in the deck."""
        if view.hand is None and view.next_effects is not None:
            return [float(effect == "temp") for effect in view.next_effects]
        deck = view.variant.data.deck
        return [sum(1 for card in deck if card[1] == "temp") / len(deck)] * 3

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        self._prepare(view)
        if self._counter is None:
            self._counter = CardCounter(list(view.variant.data.deck))
        self._counter.update(view)
        moves = self.ranked_moves(view, plays)
        if not moves or (None in plays and self.refusal_value(view) > moves[0][0]):
            return None
        best = moves[0]
        futures = self._sample_offers(view) if len(moves) > 1 else []
        if futures:
            candidates = moves[: self.params["candidates"]]
            means = [self._sampled_value(view, play, effect, futures) for _value, play, effect in candidates]
            best = candidates[softmax_index(self.rng, means, self.params["temperature"])]
            self._prepare(view)
            self._reply_evaluator = None
        elif self.params["temperature"] > 0 and len(moves) > 1:
            best = moves[softmax_index(self.rng, [m[0] for m in moves], self.params["temperature"])]
        self._planned_effect = best[2]
        return best[1]

    def _sampled_value(self, view: PlayerView, play: Play, effect: Effect | None,
                       futures: list[list[Offer]]) -> float:
        """A candidate's mean value over the sampled next turns, less
        `risk_cost` times its chance of a refusal next turn."""
        after = self._after(view.sheet, play, effect)
        mean = sum(self._reply_value(view, after, offers) for offers in futures) / len(futures)
        risk_cost = self.params["risk_cost"]
        if risk_cost:
            numbers = [card[0] for card in self._counter.unseen] if self._counter else []
            mean -= risk_cost * refusal_chance(after, numbers, self._next_temps(view))
        return mean
