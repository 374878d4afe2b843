"""Built-in strategies for welcometo_sim, one module each.

`BUILTIN` maps each registered name to its 'module:Class'; installed packages
add names through the entry-point group ``welcometo_sim.strategies``.
"""

import welcometo_sim  # noqa: F401  (chooses compiled or source core modules before any strategy loads)

BUILTIN: dict[str, str] = {
    "random": "strategies.random:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
    "heuristic": "strategies.heuristic:HeuristicStrategy",
    "planner": "strategies.planner:PlannerStrategy",
    "specialist": "strategies.specialist:SpecialistStrategy",
    "safe": "strategies.safe:SafeStrategy",
    "lookahead": "strategies.lookahead:LookaheadStrategy",
    "learned": "strategies.learned:LearnedStrategy",
}
