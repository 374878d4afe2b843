"""Welcome To's objectives: its city plans (see welcometo_sim.games.objectives).

A module of its own, which `welcometo_sim.games.welcome_to` names as its
`OBJECTIVES`: it plays plan trials through the runner and reads them with the
plan tables' slot columns, which code that only plays or replays a game
does not load.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ...config import RunSpec
from ...sim.results import to_frame
from ...sim.runner import run_chunks
from .run_config import params_of
from ..objectives import merge_overrides


def slot_outcome(trial: pd.DataFrame, spec: Any) -> tuple[np.ndarray, np.ndarray]:
    """A Welcome To plan's outcome, read from its deck slot's `plan<D>_turn` and `plan<D>_first`."""
    turns = trial[f"plan{spec.deck}_turn"].to_numpy(dtype=float, na_value=np.nan)
    return turns, trial[f"plan{spec.deck}_first"].astype(bool).to_numpy()


class CityPlans:
    """Welcome To's objectives: the city plans of the config's variant, in
    their three decks; a plan is forced into its deck slot (the other two
    drawn at random) and completed at the turn in its slot's `plan<D>_turn`
    column, at the high value when `plan<D>_first` says so."""

    noun = "plan"
    races = True

    def decks(self, spec: RunSpec) -> dict[int, str]:
        return {1: "plans n°1", 2: "plans n°2", 3: "plans n°3"}

    def deck(self, spec: RunSpec, deck: int) -> tuple:
        return spec.rules.variant.plan_deck(deck)

    def catalogue(self, spec: RunSpec) -> dict:
        return {plan.id: plan for plan in spec.rules.variant.data.all_plans()}

    def trial_games(self, spec: RunSpec, games: int, decks: Sequence[int]) -> int:
        return sum(len(spec.rules.variant.plan_deck(d)) for d in decks) * games

    def trials(self, spec: RunSpec, games: int, decks: Sequence[int], progress: Any) -> Any:
        return plan_trials(spec, games, tuple(decks), progress)

    def outcome(self, trial: Any, plan: Any) -> tuple:
        return slot_outcome(trial, plan)

    def with_points(self, spec: RunSpec, points: Mapping[str, tuple[int, int]]) -> RunSpec:
        overrides = merge_overrides(spec.rules.variant.overrides, self.overrides(points))
        return replace(spec, game_params=params_of(spec.rules.variant, spec.rules.plans) | {"overrides": overrides})

    def overrides(self, points: Mapping[str, tuple[int, int]]) -> dict:
        return {"plans": {plan: {"points": [int(high), int(low)]} for plan, (high, low) in points.items()}}


OBJECTIVES = CityPlans()
"""The objectives capability (see welcometo_sim.games.objectives)."""


def plan_trials(spec: RunSpec, games_per_plan: int, decks: tuple[int, ...] = (1, 2, 3),
                progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """For every plan of the chosen decks, play `games_per_plan` games with that plan
    forced into its deck slot and the other two drawn at random; every plan
    plays the same seeds. Adds `forced_deck` and `forced_plan` columns."""
    frames = []
    for deck in decks:
        for plan in spec.rules.variant.plan_deck(deck):
            fixed = [None, None, None]
            fixed[deck - 1] = plan.id
            trial = replace(spec, game_params=with_plans(spec, fixed), games=games_per_plan)
            columns, _seconds = run_chunks(
                trial, on_chunk=(lambda chunk: progress(chunk.stop - chunk.start)) if progress else None)
            frame = to_frame(columns)
            frame.insert(0, "forced_plan", plan.id)
            frame.insert(0, "forced_deck", deck)
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def with_plans(spec: RunSpec, plans: Sequence[str | None]) -> dict:
    """The run's game parameters with these plans fixed (None: drawn from the seed)."""
    params = params_of(spec.rules.variant, spec.rules.plans)
    return params | {"variant": params["variant"] | {"plans": list(plans)}}
