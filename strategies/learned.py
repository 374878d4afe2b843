"""`learned`: one-ply search on a value function learned from self-play.

Every candidate of a turn (a play with one use of its effect, or a refusal
when one is allowed) is scored by the value of the sheet it leaves: the
sheet's exact points so far plus the sum of the learned table weights its
features index (`welcometo_sim.learning`). The weights come from
`wtsim train` (temporal-difference learning in self-play); the shipped
models are package data, one per variant family (`solo` for solo mode,
`ice-cream` and `christmas` for games of two or more on those boards, trained
on from the base model, `base` for every other game of two or more players), and
`weights=PATH` plays any other model file.

`temperature` > 0 samples candidates with probability proportional to
exp(value / temperature) instead of always taking the best (seeded by the
seat's generator), for tables where several seats play this strategy and
should not play one game several times.

`lookahead` > 0 searches one turn ahead (`welcometo_sim.learning.search`):
the `lookahead_width` best candidates are judged again by the best value
the next turn can reach, averaged over `lookahead` samples of its cards
drawn by the seat's generator from the cards the seat cannot see. It plays
stronger and costs about `lookahead_width × lookahead` decisions a move.

Plans: every plan it can complete, the most valuable first (the default).
Advanced variant: it builds a roundabout only when no offer fits its sheet
otherwise, on the house whose best play then scores most.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from welcometo_sim.learning.evaluator import Evaluator
from welcometo_sim.learning.model import ModelError, ValueModel
from welcometo_sim.learning.search import lookahead_values
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
from welcometo_sim.strategy import Effect, Play, PlayerView, Strategy, legal_plays

SHIPPED = {"base": "base.npz", "solo": "solo.npz", "ice-cream": "ice-cream.npz", "christmas": "christmas.npz"}
"""The shipped model of each variant family, in `welcometo_sim/learning/weights/`."""


def model_family(variant) -> str:
    """The family a variant's games belong to, as a model names what it was
    trained on: `solo`, a thematic board's name, else `base`."""
    if variant.solo:
        return "solo"
    return variant.board if variant.board != "base" else "base"


def shipped_family(variant) -> str:
    """The shipped model a variant plays with by default: its family's own
    when one is shipped (measured better there), else the base model."""
    family = model_family(variant)
    return family if family in SHIPPED else "base"

_MODELS: dict[str, ValueModel] = {}


def shipped_path(family: str) -> Path:
    return Path(str(resources.files("welcometo_sim.learning") / "weights" / SHIPPED[family]))


def load_model(path: str | Path) -> ValueModel:
    """A model file, loaded once per process."""
    key = str(Path(path).resolve())
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = ValueModel.load(path)
    return model


def check_fits(model: ValueModel, path: str) -> None:
    """Refuse, when the config is read, a model made for other sheets than
    Welcome To's (whose streets no variant changes): it could not play turn
    1. Plans the model does not know only leave their features unused."""
    if model.layout.street_houses != DEFAULT_DATA.street_houses:
        raise ValueError(f"weights file {path!r} is for streets of {model.layout.street_houses} houses; "
                         f"Welcome To's sheet has streets of {DEFAULT_DATA.street_houses}")


class LearnedStrategy(Strategy):
    name = "learned"
    defaults: dict[str, Any] = {"weights": "", "temperature": 0.0, "lookahead": 0, "lookahead_width": 4}

    def __init__(self, rng, params=None, model: ValueModel | None = None, trace: bool = False) -> None:
        super().__init__(rng, params)
        self._model = model
        self._evaluator: Evaluator | None = None
        self._planned: Effect | None = None
        self.afterstates_scored = 0
        self.trace: list[tuple[np.ndarray, float]] | None = [] if trace else None
        """With `trace`, the afterstate of every decision: (active features, value), for training."""

    @classmethod
    def check_params(cls, params: dict) -> None:
        if params["temperature"] < 0:
            raise ValueError(f"parameter 'temperature' must be at least 0, got {params['temperature']}")
        if params["lookahead"] < 0:
            raise ValueError(f"parameter 'lookahead' must be at least 0 (samples of the next turn's cards; "
                             f"0: no lookahead), got {params['lookahead']}")
        if params["lookahead_width"] < 1:
            raise ValueError(f"parameter 'lookahead_width' must be at least 1, got {params['lookahead_width']}")
        if not isinstance(params["weights"], str):
            raise ValueError("parameter 'weights' must be a path (text)")
        if params["weights"]:
            try:
                model = load_model(params["weights"])
            except ModelError as exc:
                raise ValueError(str(exc)) from None
            check_fits(model, params["weights"])

    # --------------------------------------------------------------- model
    def evaluator(self, view: PlayerView) -> Evaluator:
        if self._evaluator is None:
            model = self._model
            if model is None:
                path = self.params["weights"] or shipped_path(shipped_family(view.variant))
                model = load_model(path)
            shape = tuple(view.sheet.data.street_houses)
            if model.layout.street_houses != shape:
                raise ModelError(f"weights for streets of {model.layout.street_houses} houses cannot play "
                                 f"streets of {shape}")
            self._evaluator = Evaluator(model.weights, model.layout)
        return self._evaluator

    # --------------------------------------------------------------- hooks
    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        evaluator = self.evaluator(view)
        draws = self.params["lookahead"]
        scored = evaluator.decision(view, plays) if draws > 0 else evaluator.values(view, plays)
        self.afterstates_scored += len(scored)
        if draws > 0 and len(scored) > 1:
            order, values = lookahead_values(evaluator, view, scored, self.params["lookahead_width"], draws,
                                             self.rng)
            best = int(order[self._pick(values)])
        else:
            best = self._pick(scored.values)
        if self.trace is not None:
            self.trace.append((scored.features(best), float(scored.values[best])))
        play, self._planned = scored.candidate(best)
        return play

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        planned, self._planned = self._planned, None
        return planned if planned in options else None

    def choose_roundabout(self, view: PlayerView, houses: list[tuple[int, int] | None]):
        if legal_plays(view.sheet, view.offers):
            return None
        best, best_value = None, None
        evaluator = self.evaluator(view)
        for house in houses:
            if house is None:
                continue
            sheet = view.sheet.copy()
            sheet.build_roundabout(*house)
            plays = legal_plays(sheet, view.offers)
            if not plays:
                continue
            value = float(evaluator.decision(replace(view, sheet=sheet), plays).values.max())
            if best_value is None or value > best_value:
                best, best_value = house, value
        return best

    def _pick(self, values: np.ndarray) -> int:
        """The index of the best value, or one sampled by temperature."""
        temperature = self.params["temperature"]
        if temperature <= 0 or len(values) == 1:
            return int(np.argmax(values))
        weights = np.exp((values - values.max()) / temperature)
        return int(self.rng.choice(len(values), p=weights / weights.sum()))

