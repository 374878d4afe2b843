"""`specialist`: pools, parks and the temp agency before estates.

The same evaluation as `heuristic` with the weights turned towards the
scoring columns that do not depend on fences: it keeps pool houses free for
pool cards (`pool_chance`), pushes park tracks to their big final box
(`park_potential`), races for the most temps (`temp`, `temp_race`), and
values unfinished estates less.
"""

from __future__ import annotations

from typing import Any

from .heuristic import HeuristicStrategy


class SpecialistStrategy(HeuristicStrategy):
    name = "specialist"
    defaults: dict[str, Any] = {
        **HeuristicStrategy.defaults,
        "weights": {**HeuristicStrategy.defaults["weights"], "pool_chance": 1.6, "park_potential": 1.2,
                    "temp": 1.0, "temp_race": 1.0, "estate_potential": 0.3, "built_share": 0.3,
                    "open_estates": 0.0},
    }
