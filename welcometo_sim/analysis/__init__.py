"""Tables, statistics, comparisons and reports made from result tables.

Plots and reports need matplotlib and are imported from their modules
(`welcometo_sim.analysis.plots`, `welcometo_sim.analysis.report`).
"""

from .compare import comparison_tables, pair_table, ratings
from .plan_balance import plan_balance_table
from .stats import bradley_terry, compare_pair, paired_bootstrap_ci, pairwise_wins, rating_table, wilson_interval
from .sweep import sweep
from .tables import category_breakdown, game_summary, score_distribution, summary_tables

__all__ = [
    "score_distribution", "category_breakdown", "game_summary", "summary_tables",
    "wilson_interval", "paired_bootstrap_ci", "bradley_terry", "pairwise_wins", "rating_table",
    "compare_pair", "comparison_tables", "pair_table", "ratings", "plan_balance_table", "sweep",
]
