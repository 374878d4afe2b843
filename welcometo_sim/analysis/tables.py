"""The first tables of a run: score distributions and per-category breakdowns."""

from __future__ import annotations

import pandas as pd

from ..rules.scoring import SCORE_FIELDS

DISTRIBUTION_COLUMNS = ["games", "mean", "std", "min", "p10", "median", "p90", "max", "win_rate"]


def _group_key(frame: pd.DataFrame, by: str) -> str:
    if by not in ("player", "strategy", "seat"):
        raise ValueError(f"cannot group by {by!r} (use player, strategy or seat)")
    return by


def score_distribution(frame: pd.DataFrame, by: str = "player") -> pd.DataFrame:
    """Per player (or strategy, or seat): games played and the distribution of totals,
    with the share of games won (rank 1, ties included)."""
    grouped = frame.groupby(_group_key(frame, by), sort=False)
    totals = grouped["total"]
    table = pd.DataFrame({
        "games": grouped["game"].nunique(),
        "mean": totals.mean(),
        "std": totals.std(ddof=1),
        "min": totals.min(),
        "p10": totals.quantile(0.10),
        "median": totals.median(),
        "p90": totals.quantile(0.90),
        "max": totals.max(),
        "win_rate": grouped["won"].mean(),
    })
    return table[DISTRIBUTION_COLUMNS].sort_values("mean", ascending=False)


def category_breakdown(frame: pd.DataFrame, by: str = "player") -> pd.DataFrame:
    """Per player (or strategy, or seat): mean of every score component and the total."""
    grouped = frame.groupby(_group_key(frame, by), sort=False)
    # Column by column: pandas converts every column to float64 at once otherwise,
    # which is the largest allocation when summarising a million-game table.
    table = pd.DataFrame({column: grouped[column].mean() for column in [*SCORE_FIELDS, "total"]})
    return table.sort_values("total", ascending=False)


def game_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game facts: mean game length and how often each end reason occurred."""
    games = frame.drop_duplicates("game")
    reasons = games["end_reason"].value_counts(normalize=True).rename("share")
    return pd.DataFrame({"games": games["end_reason"].value_counts(), "share": reasons})


def summary_tables(frame: pd.DataFrame, by: str = "player") -> dict[str, pd.DataFrame]:
    """The tables printed after a run, by name."""
    return {
        "scores": score_distribution(frame, by),
        "breakdown": category_breakdown(frame, by),
        "endings": game_summary(frame),
    }
