"""Strategy comparison: pairwise win rates, paired score differences, ratings.

Works on any result table: two players are compared over the games they
shared. Round-robin tables (from :func:`welcometo_sim.sim.tournament.round_robin`)
carry a `match` column, and a game is identified by (match, game).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .pairs import pair_table, players_of, with_game_key
from .stats import bradley_terry, pairwise_wins, result_counts
from .tables import category_breakdown


def win_matrix(pairs: pd.DataFrame, players: list[str]) -> pd.DataFrame:
    """Row player's win rate against each column player, as numbers: for every
    opponent X the columns X, X_low and X_high (the Wilson interval); a player
    against itself, and a pair that never met, is missing (NA)."""
    columns = [f"{player}{suffix}" for player in players for suffix in ("", "_low", "_high")]
    matrix = pd.DataFrame(np.nan, index=pd.Index(players, name="row vs column"), columns=columns)
    for row in pairs.itertuples():
        matrix.loc[row.a, [row.b, f"{row.b}_low", f"{row.b}_high"]] = (
            row.a_win_rate, row.a_win_rate_low, row.a_win_rate_high)
        matrix.loc[row.b, [row.a, f"{row.a}_low", f"{row.a}_high"]] = (
            1 - row.a_win_rate, 1 - row.a_win_rate_high, 1 - row.a_win_rate_low)
    return matrix


PSEUDO_WINS = 0.5


def ratings(frame: pd.DataFrame) -> pd.DataFrame:
    """Bradley–Terry ratings with intervals, best first. When some player never
    lost (or never won) against the rest the maximum-likelihood ratings are
    infinite; then every pair that met gets 0.5 virtual wins each way, and the
    `fit` column says so. `comparisons` counts each player's pairwise results
    (an integer)."""
    wins = pairwise_wins(frame)
    comparisons = result_counts(wins)
    try:
        table = bradley_terry(wins)
        table["fit"] = "maximum likelihood"
    except ValueError:
        met = (wins + wins.T) > 0
        table = bradley_terry(wins + PSEUDO_WINS * met)
        table["fit"] = f"regularised (+{PSEUDO_WINS} win each way)"
    table["comparisons"] = comparisons  # the games' results, not the virtual wins
    return table.sort_values("rating", ascending=False, kind="stable")


def comparison_tables(frame: pd.DataFrame, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Every table of a strategy comparison, by name."""
    keyed = with_game_key(frame)
    players = players_of(keyed)
    pairs = pair_table(keyed, seed)
    return {
        "win_rates": win_matrix(pairs, players),
        "pairs": pairs.set_index(["a", "b"]) if not pairs.empty else pairs,
        "ratings": ratings(keyed),
        "breakdown": category_breakdown(keyed, "player"),
    }
