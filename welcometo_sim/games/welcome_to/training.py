"""Welcome To's side of `wtsim train`: its seats, games and model file.

The training loop (:mod:`.train`) knows no game; it asks the game's
learning object (`LEARNING`, registered as the game module's `LEARNING`)
for the size of the weights, a shard of training games, the evaluation
games and the model file. Here the learner is `learned` on a
:class:`~.model.ValueModel` whose weights the shard updates in place.
"""

from __future__ import annotations

import numpy as np

from ...learning.features import FEATURE_GROUPS, Layout
from ...learning.model import ModelError, ValueModel, layout_for
from ...learning.train import SELF, EvaluationRow, Learner, TrainSettings, learn_from_traces
from ...strategies.learned import LearnedStrategy, model_family
from ...strategy import builtin_strategies, parse_strategy
from .game import Game, Seat
from .variant import Variant


def variant_from_record(record: dict) -> Variant:
    """The Variant of a record's `variant` block (Variant.to_record's inverse)."""
    switches = {key: record[key] for key in ("advanced", "expert", "solo", "board") if key in record}
    return Variant.with_overrides(record.get("overrides"), **switches)


def _layout(settings: TrainSettings) -> Layout:
    return layout_for(variant_from_record(settings.variant).data, settings.features)


def _seats(model: ValueModel, players: int, trace: bool, opponents: tuple[str, ...] = (), game: int = 0
           ) -> list[Seat]:
    """The seats of training or evaluation game `game`: the learner everywhere
    without `opponents`, else the learner at seat 0 and the opponents in turn."""
    learners = players if not opponents else 1
    seats = [Seat(f"learned-{i}", "learned", lambda rng: LearnedStrategy(rng, None, model, trace=trace))
             for i in range(learners)]
    for seat in range(learners, players):
        name = opponents[(game + seat - 1) % len(opponents)]
        seats.append(Seat(f"{name}-{seat}", name, parse_strategy(name)))
    return seats


def seat_traces(game: Game, result) -> tuple[list, list[float]]:
    """Each seat's trace (None for a seat that keeps none: the opponents) and final score."""
    return ([getattr(strategy, "trace", None) for strategy in game.strategies],
            [float(score["total"]) for score in result.scores])


def learn_from_game(weights: np.ndarray, game: Game, result, rate: float, trace_decay: float) -> None:
    """Move each learning seat's visited weights toward their TD(lambda) returns (in place, fixed step sizes)."""
    learn_from_traces(weights, *seat_traces(game, result), rate, trace_decay)
    weights[0] = 0.0


class WelcomeToLearning:
    """Welcome To's learning object (see :mod:`welcometo_sim.learning.train`)."""

    default_eval_opponent = "heuristic"
    default_rate = 0.3
    feature_groups = FEATURE_GROUPS

    def strategy_names(self) -> tuple[str, ...]:
        return tuple(builtin_strategies())

    def variant_record(self, spec) -> dict:
        """A run's variant as a checkpoint keeps it (Variant.to_record)."""
        return spec.rules.variant.to_record()

    def check(self, settings: TrainSettings) -> None:
        variant_from_record(settings.variant).check(settings.players)

    def size(self, settings: TrainSettings) -> int:
        return _layout(settings).size

    def play_shard(self, weights: np.ndarray, settings: TrainSettings, games: list[tuple[int, int]],
                   learner: Learner) -> None:
        """Play `games` (training game index, seed) in order on `weights`, which `learner` moves after each."""
        variant = variant_from_record(settings.variant)
        model = ValueModel(_layout(settings), weights)
        for index, seed in games:
            game = Game(variant, _seats(model, settings.players, True, settings.opponents, index), seed)
            result = game.play()
            learner.learn(*seat_traces(game, result))
            weights[0] = 0.0  # the layout's unused index

    def evaluate(self, weights: np.ndarray, settings: TrainSettings, seeds: list[int],
                 opponent: str) -> list[EvaluationRow]:
        model = ValueModel(_layout(settings), np.asarray(weights, dtype=np.float64))
        seats = _seats(model, settings.players, False, () if opponent == SELF else (opponent,))
        variant = variant_from_record(settings.variant)
        out = []
        for seed in seeds:
            result = Game(variant, seats, seed).play()
            out.append(EvaluationRow([float(s["total"]) for s in result.scores], result.turns,
                                     "refusals" in result.end_reasons))
        return out

    def initial_weights(self, path: str, settings: TrainSettings) -> np.ndarray:
        """The weights of a `learned` model file, which must be made for this
        variant's sheet; a model without some of the training's feature
        groups starts them at zero (their tables follow the others', so its
        weights are the layout's first ones)."""
        model = ValueModel.load(path)
        layout = _layout(settings)
        fewer = Layout(layout.street_houses, layout.plan_ids, model.layout.groups)
        if model.layout != fewer or layout.groups[:len(model.layout.groups)] != model.layout.groups:
            hint = (f"; add --features {','.join(model.layout.groups)} to train on from it"
                    if model.layout == Layout(layout.street_houses, layout.plan_ids, model.layout.groups) else "")
            raise ModelError(f"made for another feature layout (streets of {model.layout.street_houses} houses, "
                             f"{len(model.layout.plan_ids)} plans, groups {list(model.layout.groups)}) than this "
                             f"training's (streets of {layout.street_houses} houses, {len(layout.plan_ids)} plans, "
                             f"groups {list(layout.groups)}){hint}")
        weights = np.zeros(layout.size, dtype=np.float64)
        weights[:model.layout.size] = model.weights
        return weights

    def save(self, path, settings: TrainSettings, weights: np.ndarray, meta: dict) -> None:
        meta = {**meta, "family": model_family(variant_from_record(settings.variant))}
        ValueModel(_layout(settings), weights, meta).save(path)


LEARNING = WelcomeToLearning()
