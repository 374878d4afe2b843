"""Welcome To's objectives: its city plans (see welcometo_sim.games.objectives).

A module of its own, which `welcometo_sim.games.welcome_to` names as its
`OBJECTIVES`: it plays plan trials through the runner and reads them with the
plan tables' slot columns, which code that only plays or replays a game
does not load.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from ...analysis.plan_balance import slot_outcome
from ...config import RunSpec
from .variant import Variant
from ...sim.tournament import plan_trials
from ..objectives import merge_overrides


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
        return spec.variant.plan_deck(deck)

    def catalogue(self, spec: RunSpec) -> dict:
        return {plan.id: plan for plan in spec.variant.data.all_plans()}

    def trial_games(self, spec: RunSpec, games: int, decks: Sequence[int]) -> int:
        return sum(len(spec.variant.plan_deck(d)) for d in decks) * games

    def trials(self, spec: RunSpec, games: int, decks: Sequence[int], progress: Any) -> Any:
        return plan_trials(spec, games, tuple(decks), progress)

    def outcome(self, trial: Any, plan: Any) -> tuple:
        return slot_outcome(trial, plan)

    def with_points(self, spec: RunSpec, points: Mapping[str, tuple[int, int]]) -> RunSpec:
        variant = spec.variant
        overrides = merge_overrides(variant.overrides, self.overrides(points))
        return replace(spec, variant=Variant.with_overrides(overrides, advanced=variant.advanced,
                                                            expert=variant.expert, solo=variant.solo,
                                                            board=variant.board))

    def overrides(self, points: Mapping[str, tuple[int, int]]) -> dict:
        return {"plans": {plan: {"points": [int(high), int(low)]} for plan, (high, low) in points.items()}}


OBJECTIVES = CityPlans()
"""The objectives capability (see welcometo_sim.games.objectives)."""
