"""Tables and statistics made from result tables."""

from .tables import category_breakdown, game_summary, score_distribution, summary_tables

__all__ = ["score_distribution", "category_breakdown", "game_summary", "summary_tables"]
