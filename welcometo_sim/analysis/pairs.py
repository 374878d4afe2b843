"""Head-to-head pairs: which players met, over which games, and how each pair compares.

Below both the comparison tables (:mod:`.compare`) and the tables printed
after a run (:mod:`.tables`), which each show the pair table. Round-robin
tables carry a `match` column, and a game is identified by (match, game).
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from .stats import compare_pair

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
    Wilson interval (a_win_rate, a_win_rate_low, a_win_rate_high), mean score
    difference a − b with a paired bootstrap interval (mean_diff, mean_diff_low,
    mean_diff_high), and a verdict that says when the difference is not significant."""
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
            "a_win_rate": result["win_rate"], "a_win_rate_low": result["win_low"],
            "a_win_rate_high": result["win_high"], "mean_diff": result["mean_diff"],
            "mean_diff_low": result["diff_low"], "mean_diff_high": result["diff_high"],
            "verdict": f"{better} scores more" if result["significant"] else VERDICT_TIE,
        })
    return pd.DataFrame(rows)
