"""The first tables of a run: score distributions and per-category breakdowns.

Every mean comes with its 95% Student t interval (``mean_low``, ``mean_high``)
and every rate with its Wilson interval (``win_rate_low``/``_high``,
``share_low``/``_high``). Tables from a `wtsim compare --out` folder, where
game numbers repeat in every match, are keyed by (match, game) first, so
games of different matches are never taken for one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..sim.rows import categories_of, game_of_columns
from ..sim.results import ResultsError, read_summary_frame, table_path
from .pairs import pair_table
from .stats import mean_interval, rate_interval

DISTRIBUTION_COLUMNS = ["games", "mean", "mean_low", "mean_high", "std", "min", "p10", "median", "p90",
                        "max", "win_rate", "win_rate_low", "win_rate_high"]
BLOCK_COLUMNS = ("match", "skill", "forced_plan")
"""Columns of analysis tables whose blocks each number their games from 0."""
MATCH_COLUMNS = ("rank", "player")
"""What the head-to-head tables need besides the summary columns."""


def group_key(frame: pd.DataFrame, by: str) -> str:
    """`by` checked as a column that tables and figures group a run's rows by
    (player, strategy or seat); a ValueError names the choices."""
    if by not in ("player", "strategy", "seat"):
        raise ValueError(f"cannot group by {by!r} (use player, strategy or seat)")
    return by


def keyed(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with one `game` number per game. A compare table numbers its
    games again in every match, a plans table in every forced plan (and skill
    level): there (match, game), or (skill, forced plan, game), becomes the game,
    as `pairs.with_game_key` does for matches."""
    blocks = [c for c in BLOCK_COLUMNS if c in frame.columns]
    if not blocks:
        return frame
    out = frame.copy()
    out["game"] = out.groupby([*blocks, "game"], sort=True).ngroup()
    return out


def score_distribution(frame: pd.DataFrame, by: str = "player") -> pd.DataFrame:
    """Per player (or strategy, or seat): games played and the distribution of totals
    with the mean's 95% interval, and the share of player-games won (rank 1, ties
    included) with its Wilson interval."""
    frame = keyed(frame)
    grouped = frame.groupby(group_key(frame, by), sort=False)
    totals = grouped["total"]
    rows = {}
    for group, block in grouped:
        mean, low, high = mean_interval(block["total"].to_numpy(dtype=float))
        rate, rate_low, rate_high = rate_interval(int(block["won"].sum()), len(block))
        rows[group] = {"mean": mean, "mean_low": low, "mean_high": high, "win_rate": rate,
                       "win_rate_low": rate_low, "win_rate_high": rate_high}
    intervals = pd.DataFrame.from_dict(rows, orient="index")
    table = pd.DataFrame({
        "games": grouped["game"].nunique(),
        "std": totals.std(ddof=1),
        "min": totals.min(),
        "p10": totals.quantile(0.10),
        "median": totals.median(),
        "p90": totals.quantile(0.90),
        "max": totals.max(),
    }).join(intervals)
    table.index.name = by
    return table[DISTRIBUTION_COLUMNS].sort_values("mean", ascending=False)


def table_categories(frame: pd.DataFrame) -> list[str]:
    """The score categories of the game whose result table `frame` is."""
    return categories_of(game_of_columns(frame.columns))


def category_breakdown(frame: pd.DataFrame, by: str = "player") -> pd.DataFrame:
    """Per player (or strategy, or seat): mean of every score component and the total."""
    grouped = frame.groupby(group_key(frame, by), sort=False)
    # Column by column: pandas converts every column to float64 at once otherwise,
    # which is the largest allocation when summarising a million-game table.
    table = pd.DataFrame({column: grouped[column].mean() for column in [*table_categories(frame), "total"]})
    return table.sort_values("total", ascending=False)


def category_means(frame: pd.DataFrame, by: str = "player",
                   categories: list[str] | tuple[str, ...] | None = None) -> pd.DataFrame:
    """Per player (or strategy, or seat): the mean of every score category
    (the table's game's unless `categories` names them) and of the total,
    each with its 95% t interval kept within the values seen (columns X, X_low,
    X_high), best total first. Printed transposed: one row per category."""
    grouped = frame.groupby(group_key(frame, by), sort=False)
    columns: dict[str, pd.Series] = {}
    for column in [*(table_categories(frame) if categories is None else categories), "total"]:
        # column by column, one group at a time: a million-game table stays small
        estimates = grouped[column].agg(lambda values: mean_interval(values.to_numpy(dtype=float), clip=True))
        for i, suffix in enumerate(("", "_low", "_high")):
            columns[column + suffix] = estimates.map(lambda estimate, i=i: estimate[i])
    table = pd.DataFrame(columns)
    table.index.name = by
    return table.sort_values("total", ascending=False)


def game_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """How games ended: per end reason, the number of games and their share with
    its Wilson interval."""
    games = keyed(frame).drop_duplicates("game")
    counts = games["end_reason"].value_counts()
    rows = {reason: rate_interval(int(count), len(games)) for reason, count in counts.items()}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["share", "share_low", "share_high"])
    table.insert(0, "games", counts)
    table.index.name = "end_reason"
    return table


def summary_tables(frame: pd.DataFrame, by: str = "player", pairs: bool = False) -> dict[str, pd.DataFrame]:
    """The tables printed after a run, by name. A compare table (with a `match`
    column) also gets `pairs`, the head-to-head table `wtsim compare` prints;
    with `pairs`, a run's table (with `rank`) gets the paired differences of
    its players (:func:`pair_differences`)."""
    frame = keyed(frame)
    tables = {
        "scores": score_distribution(frame, by),
        "breakdown": category_means(frame, by),
        "endings": game_summary(frame),
    }
    if "match" in frame.columns and {"rank", "player"} <= set(frame.columns):
        table = pair_table(frame, seed=0)
        tables["pairs"] = table.set_index(["a", "b"]) if not table.empty else table
    elif pairs and "rank" in frame.columns and frame["player"].nunique() > 1:
        tables["pairs"] = pair_differences(frame)
    return tables


def pair_differences(frame: pd.DataFrame) -> pd.DataFrame:
    """Per pair of players (best mean first), over the games both played: a's win
    rate against b (lower rank wins, a tie counts 1/2) with its Wilson interval,
    and the mean score difference a − b with a paired t interval.

    Why paired: both players are dealt the same cards in a game, so the
    difference per game removes the luck of the deal; two overlapping
    per-player intervals can hide a clear difference. A t interval (not a
    bootstrap) so that a million-game run is summarised in one pass."""
    from itertools import combinations

    totals = frame.pivot_table(index="game", columns="player", values="total", aggfunc="first")
    ranks = frame.pivot_table(index="game", columns="player", values="rank", aggfunc="first")
    order = totals.mean().sort_values(ascending=False).index
    rows = []
    for a, b in combinations(order, 2):
        both = totals[a].notna() & totals[b].notna()
        if not both.any():
            continue
        diff, low, high = mean_interval((totals.loc[both, a] - totals.loc[both, b]).to_numpy(dtype=float))
        rank_a, rank_b = ranks.loc[both, a], ranks.loc[both, b]
        wins = float((rank_a < rank_b).sum() + 0.5 * (rank_a == rank_b).sum())
        rate, r_low, r_high = rate_interval(wins, int(both.sum()))
        clear = low > 0 or high < 0
        rows.append({"a": a, "b": b, "games": int(both.sum()), "a_win_rate": rate, "a_win_rate_low": r_low,
                     "a_win_rate_high": r_high, "mean_diff": diff, "mean_diff_low": low, "mean_diff_high": high,
                     "verdict": f"{a if diff > 0 else b} scores more" if clear else "not significant"})
    return pd.DataFrame(rows).set_index(["a", "b"]) if rows else pd.DataFrame()


def table_columns(path: Path) -> list[str]:
    """The column names of a result table file, without reading its rows."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return list(pq.ParquetFile(path).schema_arrow.names)
    return list(pd.read_csv(path, nrows=0).columns)


def read_summary(folder: str | os.PathLike, by: str = "player") -> pd.DataFrame:
    """The columns the summary tables need (see `read_summary_frame`), plus each
    player's rank (for the pairs table) and the block columns of a compare or
    plans folder, keyed so that games of different blocks stay apart."""
    frame = read_summary_frame(folder, by)
    path = table_path(folder)
    try:
        columns = table_columns(path)
        wanted = [*(c for c in BLOCK_COLUMNS if c in columns), *MATCH_COLUMNS]
        extra = [c for c in dict.fromkeys(wanted) if c not in frame.columns]
        more = (pd.read_parquet(path, columns=extra) if path.suffix == ".parquet"
                else pd.read_csv(path, usecols=extra)[extra])
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: cannot read the result table: {exc}") from None
    for column in extra:
        frame[column] = more[column].to_numpy()
    return keyed(frame)
