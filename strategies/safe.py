"""`safe`: never runs out of room.

Refusals end the game and cost points; they come from streets whose empty
houses no longer fit the numbers that are still to come. `safe` weighs
flexibility (how many empty houses can still take a number) twice as much as
`heuristic` and counts it to the end of the game (no cap by turns left), uses
the temp agency to place numbers where they keep gaps open, and takes a bis
when it fills a house that fewer numbers could reach.
"""

from __future__ import annotations

from typing import Any

from .heuristic import HeuristicStrategy


class SafeStrategy(HeuristicStrategy):
    name = "safe"
    defaults: dict[str, Any] = {
        **HeuristicStrategy.defaults,
        "weights": {**HeuristicStrategy.defaults["weights"], "flexibility": 3.0, "temp": 0.8},
        "flex_margin": 40,
    }
