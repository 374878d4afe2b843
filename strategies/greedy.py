"""`greedy`: one-ply search on a simple evaluation of the own sheet.

For every legal play it writes the number on a copy of the sheet and scores
the result; for the best few plays (`shortlist`) it also tries every use of
the effect. The evaluation is the score the sheet would have now plus a small
estimate of potential, each term weighted by `weights`:

- `points`: current score (temps valued at `weights.temp` each);
- `estate_potential`: unfinished fenced runs of 1..6 houses, by how built they are;
- `flexibility`: empty houses that can still take a number (refusal risk);
- `plan_progress`: share of each open plan's estates already on the sheet;
- `board`: the thematic board's points (egg thresholds interpolated).

`temperature` > 0 samples the move instead of always taking the best: each
candidate (the shortlisted writes with their best effect use, and a refusal
when one is allowed) is drawn with probability proportional to
exp(value / temperature), from the seat's seeded generator, so several
seats of one strategy at a table play different games on the same cards
(at 0, the default, they play the same game and draw nothing). `heuristic`
and `lookahead` inherit it.

Advanced variant: it builds a roundabout only to escape a permit refusal,
on the house that then allows the best play. Ice cream: the truck direction
is part of the play, so it is chosen by the same evaluation.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from welcometo_sim.games.welcome_to.evaluation import SHIFTING_EFFECTS, MoveEvaluator, Terms, sheet_terms
from welcometo_sim.games.welcome_to.data import BIS, REAL_ESTATE, SURVEYOR
from welcometo_sim.games.welcome_to.effects import bis_uses_after_write
from welcometo_sim.strategy import (Effect, Offer, Play, PlayerView, Sheet, Strategy, apply_effect,
                                    apply_play, effect_options, legal_plays)


_OPTIONS_OF_THE_SHEET = (SURVEYOR, REAL_ESTATE)
"""Effects whose uses depend on the sheet only, not on the write made with them."""


def has_refusal(plays: list[Play | None]) -> bool:
    """Whether a permit refusal (None) is among the plays, as ``None in plays``:
    a play is a tuple of several fields, always true, so only None is false,
    and `all` tests that without comparing every play with None."""
    return not all(plays)


def softmax_index(rng: np.random.Generator, values: Sequence[float], temperature: float) -> int:
    """The index of one of `values`, drawn with probability proportional to
    exp(value / temperature); the first best one when `temperature` is 0 (so
    a deterministic strategy draws nothing from its generator)."""
    if temperature <= 0 or len(values) == 1:
        return int(np.argmax(values))
    scaled = np.asarray(values, dtype=float)
    weights = np.exp((scaled - scaled.max()) / temperature)
    return int(rng.choice(len(weights), p=weights / weights.sum()))


def refused(sheet: Sheet) -> Sheet:
    """A copy of the sheet with one more permit refusal, at most the track's
    last box (as the engine counts them), so that searches may also judge a
    refusal on a sheet whose refusals are full."""
    copy = sheet.copy()
    copy.refusals = min(copy.refusals + 1, copy.data.max_refusals)
    return copy


class GreedyStrategy(Strategy):
    name = "greedy"
    defaults = {
        "weights": {
            "points": 1.0,
            "temp": 0.5,
            "estate_potential": 0.5,
            "flexibility": 1.5,
            "plan_progress": 0.5,
            "board": 1.0,
        },
        "shortlist": 4,
        "temperature": 0.0,
    }

    def __init__(self, rng, params=None) -> None:
        super().__init__(rng, params)
        self._planned_effect: Effect | None = None

    @classmethod
    def check_params(cls, params: dict) -> None:
        if params["shortlist"] < 1:
            raise ValueError(f"parameter 'shortlist' must be at least 1, got {params['shortlist']}")
        if params["temperature"] < 0:
            raise ValueError(f"parameter 'temperature' must be at least 0, got {params['temperature']}")

    def value(self, terms: Terms) -> float:
        """The weighted sum of the evaluation terms."""
        w = self.params["weights"]
        return (
            w["points"] * terms.points
            + w["estate_potential"] * terms.estate_potential
            + w["flexibility"] * terms.flexibility
            + w["plan_progress"] * terms.plan_progress
            + w["board"] * terms.board
        )

    def linear_weights(self) -> tuple[float, float, float, float, float]:
        """The weights of `value` in the order of `MoveEvaluator.write_scores`."""
        w = self.params["weights"]
        return w["points"], w["estate_potential"], w["flexibility"], w["plan_progress"], w["board"]

    def _scores_in_bulk(self) -> bool:
        """True when this class judges moves with greedy's own weighted sum (it
        overrides none of `value`, `_play_value`, `_effect_value`): the move
        evaluator then scores all writes or effect uses in one call, with the
        same numbers and much less overhead per move."""
        cls = type(self)
        return (cls.value is GreedyStrategy.value and cls._play_value is GreedyStrategy._play_value
                and cls._effect_value is GreedyStrategy._effect_value)

    def evaluate(self, sheet: Sheet, view: PlayerView) -> float:
        terms = sheet_terms(sheet, view.plans, view.plan_first_turn, self.params["weights"]["temp"])
        return self.value(terms)

    def _evaluator(self, sheet: Sheet, view: PlayerView) -> MoveEvaluator | None:
        """Moves are scored without copying the sheet, except on thematic boards
        (whose points the move evaluator does not model)."""
        if sheet.board is not None:
            return None
        return MoveEvaluator(sheet, view.plans, view.plan_first_turn, self.params["weights"]["temp"])

    def _play_value(self, view: PlayerView, play: Play, evaluator: MoveEvaluator | None) -> float:
        if evaluator is not None:
            return self.value(evaluator.after_write(play.street, play.house, play.number, False, play.temp))
        after = view.sheet.copy()
        apply_play(after, play)
        return self.evaluate(after, view)

    def ranked_moves(self, view: PlayerView, plays: list[Play | None]
                     ) -> list[tuple[float, Play, Effect | None]]:
        """The candidate moves, best first: (value, play, best effect use or None).
        Every write is scored; effects are tried for the `_candidates` only."""
        evaluator = self._evaluator(view.sheet, view)
        if evaluator is not None and self._scores_in_bulk():
            candidates = self._candidates_in_bulk(view, plays, evaluator)
            best_effects = self._best_effects_in_bulk(view, candidates, evaluator)
        else:
            candidates = self._candidates(view, self._scored_one_at_a_time(view, plays, evaluator))
            best_effects = [self._best_effect(view, play, value, evaluator) for value, _, play in candidates]
        moves = [(value, -order, play, effect)
                 for order, ((_, _, play), (effect, value)) in enumerate(zip(candidates, best_effects))]
        moves.sort(reverse=True)  # (value, -order) never ties
        return [(value, play, effect) for value, _, play, effect in moves]

    def _scored_one_at_a_time(self, view: PlayerView, plays: list[Play | None],
                              evaluator: MoveEvaluator | None) -> list[tuple[float, int, Play]]:
        """(value, -index in `plays`, play) of every write, best first, each
        valued by `_play_value`."""
        scored = []
        seen: dict[tuple, float] = {}
        for index, play in enumerate(plays):
            if play is None:
                continue
            key = play[1:]  # the same write from two offers evaluates the same
            if key not in seen:
                seen[key] = self._play_value(view, play, evaluator)
            scored.append((seen[key], -index, play))
        scored.sort(reverse=True)  # by value, then offer order: (value, -index) never ties
        return scored

    def _candidates_in_bulk(self, view: PlayerView, plays: list[Play | None], evaluator: MoveEvaluator
                            ) -> list[tuple[float, int, Play]]:
        """`_candidates` of the writes, all scored by one call of
        `MoveEvaluator.write_scores` (see `_scores_in_bulk`), ranked like
        `_scored_one_at_a_time` ranks them. The plays are sorted by score
        alone, which keeps plays of equal score in offer order, as (value,
        -index) does; and when the class keeps greedy's own `_candidates` (the
        `shortlist` best), only those are made into (value, -index, play)."""
        if has_refusal(plays):
            legal = [play for play in plays if play is not None]
            order = [-index for index, play in enumerate(plays) if play is not None]
        else:
            legal, order = plays, range(0, -len(plays), -1)  # type: ignore[assignment]
        scores = evaluator.write_scores(legal, self.linear_weights())
        ranked = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)  # a stable sort
        if type(self)._candidates is GreedyStrategy._candidates:
            ranked = ranked[:self.params["shortlist"]]
        return self._candidates(view, [(scores[i], order[i], legal[i]) for i in ranked])  # type: ignore[misc]

    def refusal_value(self, view: PlayerView) -> float:
        """The evaluation of the sheet after a permit refusal."""
        return self.evaluate(refused(view.sheet), view)

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        """The best move, or with `temperature` > 0 one drawn by its value."""
        moves = self.ranked_moves(view, plays)
        if self.params["temperature"] > 0:
            if has_refusal(plays):
                moves.append((self.refusal_value(view), None, None))
            if not moves:
                return None
            _value, play, effect = moves[softmax_index(self.rng, [m[0] for m in moves], self.params["temperature"])]
            self._planned_effect = effect
            return play
        best_value, best_play, best_effect = moves[0] if moves else (float("-inf"), None, None)
        if has_refusal(plays) and (best_play is None or self.refusal_value(view) > best_value):
            return None
        self._planned_effect = best_effect
        return best_play

    def _candidates(self, view: PlayerView, scored: list[tuple[float, int, Play]]
                    ) -> list[tuple[float, int, Play]]:
        """The plays (best first) whose effects are worth trying: the `shortlist` best writes."""
        return scored[: self.params["shortlist"]]

    def _best_effect(self, view: PlayerView, play: Play, value: float,
                     evaluator: MoveEvaluator | None = None) -> tuple[Effect | None, float]:
        """The effect use (or None) that evaluates best after the play, and its
        value; `evaluator` is the one that scored the play (see `_scores_in_bulk`)."""
        best: Effect | None = None
        if play.temp:
            return best, value
        offer = view.offers[play.offer]
        if evaluator is not None and self._scores_in_bulk():
            return self._best_effects_in_bulk(view, [(value, 0, play)], evaluator)[0]
        after = view.sheet.copy()
        apply_play(after, play)
        options = effect_options(after, offer, play)
        if not options:
            return best, value
        evaluator = self._evaluator(after, view)
        for effect in options:
            effect_value = self._effect_value(view, after, effect, evaluator)
            if effect_value > value:
                best, value = effect, effect_value
        return best, value

    def _best_effects_in_bulk(self, view: PlayerView, candidates: list[tuple[float, int, Play]],
                              evaluator: MoveEvaluator) -> list[tuple[Effect | None, float]]:
        """`_best_effect` of each candidate (value, _, play) for greedy's own
        evaluation, without copying the sheet: the evaluator that scored the
        writes scores the effect uses after each of them, so an effect's value
        is the write's value plus what the effect changes."""
        weights = self.linear_weights()
        options_by_kind: dict[str, list[Effect]] = {}
        best_effects: list[tuple[Effect | None, float]] = []
        for value, _, play in candidates:
            best: Effect | None = None
            if not play.temp:
                offer = view.offers[play.offer]
                options = self._options_after_write(view, play, offer, options_by_kind)
                if options:
                    scores = self._effect_scores_after_write(evaluator, play, offer.effect, options, weights)
                    top = max(scores)
                    if top > value:
                        best, value = options[scores.index(top)], top  # the first of the best
            best_effects.append((best, value))
        return best_effects

    @staticmethod
    def _options_after_write(view: PlayerView, play: Play, offer: Offer,
                             options_by_kind: dict[str, list[Effect]]) -> list[Effect]:
        """The uses of the offer's effect after `play`. A plain write changes
        the options of no effect but the bis (which may copy the number just
        written), and those are worked out for the write without copying the
        sheet; fence and real-estate options do not depend on the write at all
        and are listed once for all candidates (kept in `options_by_kind`)."""
        kind = offer.effect
        if kind == BIS:
            return bis_uses_after_write(view.sheet, play.street, play.house, play.number)
        if kind in _OPTIONS_OF_THE_SHEET:
            options = options_by_kind.get(kind)
            if options is None:
                options = options_by_kind[kind] = effect_options(view.sheet, offer, play)
            return options
        return effect_options(view.sheet, offer, play)

    @staticmethod
    def _effect_scores_after_write(evaluator: MoveEvaluator, play: Play, kind: str, options: list[Effect],
                                   weights: tuple[float, ...]) -> list[float]:
        """The scores of the effect uses `options` (all of `kind`) after the
        write `play`, from the evaluator that scored the write."""
        if kind in SHIFTING_EFFECTS:
            return evaluator.shifting_effect_scores_after_write(play.street, play.house, play.number, options,
                                                                weights)
        return evaluator.after_write_evaluator(play.street, play.house, play.number).effect_scores(options, weights)

    def _effect_value(self, view: PlayerView, after: Sheet, effect: Effect,
                      evaluator: MoveEvaluator | None) -> float:
        if evaluator is None:
            trial = after.copy()
            apply_effect(trial, effect)
            return self.evaluate(trial, view)
        terms = evaluator.after_effect(effect)
        return self.value(terms)

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        planned, self._planned_effect = self._planned_effect, None
        return planned if planned in options else None

    def _best_write(self, sheet: Sheet, view: PlayerView) -> float | None:
        """Value of the best non-temp play on `sheet` (None when nothing fits)."""
        best = None
        for play in legal_plays(sheet, view.offers):
            if not play.temp:
                after = sheet.copy()
                apply_play(after, play)
                value = self.evaluate(after, view)
                best = value if best is None else max(best, value)
        return best

    def choose_roundabout(self, view: PlayerView, houses: list) -> tuple[int, int] | None:
        if self._best_write(view.sheet, view) is not None:
            return None
        best_value, best_house = self.evaluate(refused(view.sheet), view), None
        for house in houses:
            if house is None:
                continue
            trial = view.sheet.copy()
            trial.build_roundabout(*house)
            value = self._best_write(trial, view)
            if value is not None and value > best_value:
                best_value, best_house = value, house
        return best_house
