"""Strategy comparison: pairwise win rates, paired score differences, ratings.

Works on any result table: two players are compared over the games they
shared. Round-robin tables (from :func:`welcometo_sim.sim.tournament.round_robin`)
carry a `match` column, and a game is identified by (match, game).
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from .stats import bradley_terry, compare_pair, pairwise_wins
from .tables import category_breakdown

VERDICT_TIE = "not significant"


def with_game_key(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose `game` column identifies a game uniquely (match and game)."""
    if "match" not in frame.columns:
        return frame
    keyed = frame.copy()
    keyed["game"] = keyed.groupby(["match", "game"], sort=True).ngroup()
    return keyed


def players_of(frame: pd.DataFrame) -> list[str]:
    """Players in order of first appearance."""
    return list(dict.fromkeys(frame["player"]))


def shared_games(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The rows of a and b in the games both played."""
    a_games = set(frame.loc[frame["player"] == a, "game"])
    b_games = set(frame.loc[frame["player"] == b, "game"])
    both = a_games & b_games
    return frame[frame["game"].isin(both) & frame["player"].isin((a, b))]


def pair_table(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """One row per pair of players: games, win rate of `a` against `b` with its
    Wilson interval, mean score difference a − b with a paired bootstrap
    interval, and a verdict that says when the difference is not significant."""
    keyed = with_game_key(frame)
    rows = []
    for a, b in combinations(players_of(keyed), 2):
        games = shared_games(keyed, a, b)
        if games.empty:
            continue
        result = compare_pair(games, a, b, seed=seed)
        better = a if result["mean_diff"] > 0 else b
        rows.append({
            "a": a, "b": b, "games": result["games"],
            "a_win_rate": result["win_rate"], "win_low": result["win_low"], "win_high": result["win_high"],
            "mean_diff": result["mean_diff"], "diff_low": result["diff_low"], "diff_high": result["diff_high"],
            "verdict": f"{better} scores more" if result["significant"] else VERDICT_TIE,
        })
    return pd.DataFrame(rows)


def win_matrix(pairs: pd.DataFrame, players: list[str]) -> pd.DataFrame:
    """Row player's win rate against the column player, as 'rate [low, high]' text."""
    matrix = pd.DataFrame("", index=players, columns=players)
    for row in pairs.itertuples():
        matrix.loc[row.a, row.b] = f"{row.a_win_rate:.3f} [{row.win_low:.3f}, {row.win_high:.3f}]"
        matrix.loc[row.b, row.a] = f"{1 - row.a_win_rate:.3f} [{1 - row.win_high:.3f}, {1 - row.win_low:.3f}]"
    for player in players:
        matrix.loc[player, player] = "-"
    matrix.index.name = "row vs column"
    return matrix


PSEUDO_WINS = 0.5


def ratings(frame: pd.DataFrame) -> pd.DataFrame:
    """Bradley–Terry ratings with intervals, best first. When some player never
    lost (or never won) against the rest the maximum-likelihood ratings are
    infinite; then every pair that met gets 0.5 virtual wins each way, and the
    `fit` column says so."""
    wins = pairwise_wins(frame)
    try:
        table = bradley_terry(wins)
        table["fit"] = "maximum likelihood"
    except ValueError:
        met = (wins + wins.T) > 0
        table = bradley_terry(wins + PSEUDO_WINS * met)
        table["fit"] = f"regularised (+{PSEUDO_WINS} win each way)"
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
