"""City-plan balance: how often, how fast and for how much each plan is completed.

Input: the table of :func:`welcometo_sim.sim.tournament.plan_trials` (one
block of games per forced plan, same seeds for every plan). Output: one row
per plan, ranked, with outliers flagged against the other plans of its deck.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rules.data import PlanSpec

OUTLIER_IQR = 1.5
FLAGGED_METRICS = ("completion_rate", "points_per_game", "median_turn")


def plan_metrics(trial: pd.DataFrame, spec: PlanSpec) -> dict:
    """Metrics of one forced plan from its block of games."""
    slot = spec.deck
    turns = trial[f"plan{slot}_turn"]
    done = turns.notna()
    first = trial[f"plan{slot}_first"].astype(bool) & done
    completed_turns = turns[done].astype(float)
    points = np.where(first, spec.points[0], np.where(done, spec.points[1], 0))
    games = trial.drop_duplicates("game")
    return {
        "deck": slot,
        "plan": spec.id,
        "points": f"{spec.points[0]}/{spec.points[1]}",
        "games": len(games),
        "completion_rate": float(done.mean()),
        "median_turn": float(completed_turns.median()) if len(completed_turns) else np.nan,
        "turn_q1": float(completed_turns.quantile(0.25)) if len(completed_turns) else np.nan,
        "turn_q3": float(completed_turns.quantile(0.75)) if len(completed_turns) else np.nan,
        "high_share": float(first.sum() / done.sum()) if done.any() else np.nan,
        "points_per_game": float(points.mean()),
        "mean_total": float(trial["total"].mean()),
        "mean_turns": float(games["turns"].mean()),
    }


def flag_outliers(table: pd.DataFrame) -> pd.Series:
    """For each plan, the metrics more than 1.5 IQR away from its deck's median."""
    flags = pd.Series("", index=table.index)
    for _deck, block in table.groupby("deck"):
        for metric in FLAGGED_METRICS:
            values = block[metric]
            q1, q3 = values.quantile(0.25), values.quantile(0.75)
            spread = OUTLIER_IQR * (q3 - q1)
            median = values.median()
            high = values > median + spread
            low = values < median - spread
            if spread == 0:
                continue
            for index in block.index[high]:
                flags[index] += f"high {metric}; "
            for index in block.index[low]:
                flags[index] += f"low {metric}; "
    return flags.str.rstrip("; ")


def plan_balance_table(trials: pd.DataFrame, plans: dict[str, PlanSpec]) -> pd.DataFrame:
    """One row per plan: completion rate, completion turn (median and IQR), share
    completed at the high value, points per player-game, mean final score and
    game length (also relative to the deck's average), and outlier flags.
    Sorted by deck, then points per game."""
    rows = [plan_metrics(block, plans[plan_id]) for plan_id, block in trials.groupby("forced_plan", sort=False)]
    table = pd.DataFrame(rows)
    deck_means = table.groupby("deck")[["mean_total", "mean_turns"]].transform("mean")
    table["total_vs_deck"] = table["mean_total"] - deck_means["mean_total"]
    table["turns_vs_deck"] = table["mean_turns"] - deck_means["mean_turns"]
    table["outlier"] = flag_outliers(table)
    table = table.sort_values(["deck", "points_per_game"], ascending=[True, False])
    table["rank_in_deck"] = table.groupby("deck").cumcount() + 1
    return table.set_index("plan")
