"""Welcome To…'s strategy toolkit (part of the strategy API): terms for
judging a sheet, and a move evaluator that gives them after a hypothetical
move without copying the sheet. One module per kind of fact:

- `streets`: number weights, gaps and the cached per-street facts the rest adds up;
- `terms`: the sheet's terms as it stands (:class:`Terms`, :func:`sheet_terms`);
- `plan_progress`: points in reach on unfinished estate plans;
- `fences`: what a fence on each slot of a run changes;
- `moves`: :class:`MoveEvaluator`, the terms after one write, fence or effect;
- `outlook`: terms about the future (parks, pools, fitting numbers, refusal
  chance, the temp race, turns left).

The names below are the public ones, importable from here or from
``welcometo_sim.evaluation``.
"""

from .fences import FenceChange, run_fence_changes
from .moves import SHIFTING_EFFECTS, MoveEvaluator
from .outlook import (Coverage, fitting_numbers, fitting_share, is_pool_chance, park_potential, park_potential_gain,
                      pool_chances, refusal_chance, temp_race_value, turns_left, urgency)
from .plan_progress import plan_progress, plan_progress_from
from .streets import (NUMBER_RANGE, StreetFacts, StreetFeatures, number_weights, sheet_features, street_facts,
                      street_features, street_flexibility, street_gaps)
from .terms import (Terms, board_value, estate_potential, estate_projection, estate_values, flexibility, linear_score,
                    points_now, sheet_terms)

__all__ = [
    "NUMBER_RANGE", "StreetFeatures", "StreetFacts", "number_weights", "street_gaps", "street_flexibility",
    "street_facts", "street_features", "sheet_features",
    "estate_values", "points_now", "estate_potential", "estate_projection", "flexibility", "board_value",
    "Terms", "sheet_terms", "linear_score", "plan_progress", "plan_progress_from",
    "FenceChange", "run_fence_changes", "MoveEvaluator", "SHIFTING_EFFECTS",
    "park_potential", "park_potential_gain", "pool_chances", "is_pool_chance", "fitting_numbers",
    "fitting_share", "Coverage", "refusal_chance", "temp_race_value", "turns_left", "urgency",
]
