"""Shake That City's side of `wtsim train`: its seats, games and model file
(see welcometo_sim.learning.train). The learner is `learned` on a
:class:`~.learned.LearnedModel` whose weights a shard updates in place;
evaluation games seat it against the game's strongest hand-made player,
`lookahead`, unless told otherwise."""

from __future__ import annotations

import numpy as np

from ...learning.train import SELF, EvaluationRow, Learner, TrainSettings, TrainingError
from .game import load_rules, play_game
from .learned import LearnedModel, ModelFileError, TupleLayout
from .strategies import STRATEGIES, LearnedStrategy


def _rules_of(settings: TrainSettings):
    return load_rules(settings.variant, settings.players)


class ShakeThatCityLearning:
    """Shake That City's learning object (see welcometo_sim.learning.train)."""

    default_eval_opponent = "lookahead"
    default_rate = 0.03
    """Higher rates made the player worse in 4,000 training games (0.1: no gain, 0.3: -8 points)."""

    def strategy_names(self) -> tuple[str, ...]:
        return tuple(name for name in STRATEGIES if name != "replay")

    def variant_record(self, spec) -> dict:
        params = spec.game_params or {}
        return {"variant": dict(params.get("variant") or {}), "overrides": params.get("overrides") or None}

    def check(self, settings: TrainSettings) -> None:
        _rules_of(settings)

    def size(self, settings: TrainSettings) -> int:
        data = _rules_of(settings).data
        return TupleLayout(data.rows, data.cols).size

    def _seats(self, model: LearnedModel, settings: TrainSettings, trace: bool, opponents: tuple[str, ...],
               game: int) -> list:
        learners = settings.players if not opponents else 1
        seats: list = [LearnedStrategy(None, None, model, trace=trace) for _ in range(learners)]
        for seat in range(learners, settings.players):
            seats.append(opponents[(game + seat - 1) % len(opponents)])
        return seats

    def _play(self, seats: list, seed: int, rules) -> list[float]:
        result = play_game(seats, seed, rules)
        return [float(score["total"]) for score in result.record["scores"]]

    def play_shard(self, weights: np.ndarray, settings: TrainSettings, games: list[tuple[int, int]],
                   learner: Learner) -> None:
        """Play `games` (training game index, seed) in order on `weights`, which `learner` moves after each."""
        rules = _rules_of(settings)
        model = LearnedModel(rules.data.rows, rules.data.cols, weights)
        for index, seed in games:
            seats = self._seats(model, settings, True, settings.opponents, index)
            totals = self._play(seats, seed, rules)
            learner.learn([getattr(seat, "trace", None) for seat in seats], totals)

    def evaluate(self, weights: np.ndarray, settings: TrainSettings, seeds: list[int],
                 opponent: str) -> list[EvaluationRow]:
        rules = _rules_of(settings)
        model = LearnedModel(rules.data.rows, rules.data.cols, weights)
        out = []
        for seed in seeds:
            seats = self._seats(model, settings, False, () if opponent == SELF else (opponent,), 0)
            out.append(EvaluationRow(self._play(seats, seed, rules), rules.data.rounds, False))
        return out

    def initial_weights(self, path: str, settings: TrainSettings) -> np.ndarray:
        """The weights of a `learned` model file, which must be made for this variant's board."""
        model = LearnedModel.load(path)
        rules = _rules_of(settings)
        if (model.layout.rows, model.layout.cols) != (rules.data.rows, rules.data.cols):
            raise ModelFileError(f"made for a {model.layout.rows}x{model.layout.cols} board, "
                                 f"not this variant's {rules.data.rows}x{rules.data.cols}")
        return np.asarray(model.weights, dtype=np.float64)

    def save(self, path, settings: TrainSettings, weights: np.ndarray, meta: dict) -> None:
        rules = _rules_of(settings)
        try:
            LearnedModel(rules.data.rows, rules.data.cols, weights, {**meta, "side": rules.layout.side}).save(path)
        except ModelFileError as exc:
            raise TrainingError(str(exc)) from None


LEARNING = ShakeThatCityLearning()
