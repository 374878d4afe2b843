"""`planner`: commits early to the estates the three city plans ask for.

It plays like `heuristic`, but with the plans first: an unfinished fenced run
of a size some open plan still needs is worth the plan's full share
(`plan_commitment` 1 instead of heuristic's 0.3), and completed estates count
twice as much towards plans. So its fences cut streets into the plans'
estate sizes from the first turns, and it races for the plans' high values
instead of waiting for estates to appear.
"""

from __future__ import annotations

from typing import Any

from .heuristic import HeuristicStrategy


class PlannerStrategy(HeuristicStrategy):
    name = "planner"
    defaults: dict[str, Any] = {
        **HeuristicStrategy.defaults,
        "weights": {**HeuristicStrategy.defaults["weights"], "plan_progress": 1.0},
        "plan_commitment": 1.0,
    }
