"""The printed tables of a run of any game: Welcome To's as in
:mod:`welcometo_sim.analysis.tables`; another game's with its own score
categories in the breakdown, and no endings table (its games always last
their rounds)."""

from __future__ import annotations

import pandas as pd

from ..analysis import compare
from ..analysis import tables as welcome_to
from ..sim.rows import categories_of, game_of_columns


def summary_tables(frame: pd.DataFrame, by: str = "player", pairs: bool = False) -> dict[str, pd.DataFrame]:
    """The tables printed after a run (and by `summarize`), for the game the table is of."""
    game = game_of_columns(frame.columns)
    if game == "welcome-to":
        return welcome_to.summary_tables(frame, by, pairs)
    frame = welcome_to.keyed(frame)
    tables = {
        "scores": welcome_to.score_distribution(frame, by),
        "breakdown": welcome_to.category_means(frame, by, categories_of(game)),
    }
    if pairs and "rank" in frame.columns and frame["player"].nunique() > 1:
        tables["pairs"] = welcome_to.pair_differences(frame)
    return tables


def comparison_tables(frame: pd.DataFrame, seed: int = 0) -> dict[str, pd.DataFrame]:
    """The tables of `wtsim compare`, for the game the table is of (another game's
    breakdown is the mean of each of its own score categories)."""
    game = game_of_columns(frame.columns)
    if game == "welcome-to":
        return compare.comparison_tables(frame, seed)
    keyed = compare.with_game_key(frame)
    pairs = compare.pair_table(keyed, seed)
    means = keyed.groupby("player", sort=False)[[*categories_of(game), "total"]].mean()
    return {
        "win_rates": compare.win_matrix(pairs, compare.players_of(keyed)),
        "pairs": pairs.set_index(["a", "b"]) if not pairs.empty else pairs,
        "ratings": compare.ratings(keyed),
        "breakdown": means.sort_values("total", ascending=False),
    }
