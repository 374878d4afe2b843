"""Objective balance: how often, how fast and for how much each plan (or another
game's objective, see welcometo_sim.games.objectives) is completed.

Input: the trial table of a game's objectives (for Welcome To
:func:`welcometo_sim.games.welcome_to.objectives.plan_trials`: one block of
games per forced plan, same seeds for every plan) and how to read a row's
outcome (the game's `OBJECTIVES.outcome`). Output: one row
per plan, ranked, with 95% intervals on every rate and mean (Wilson for
rates, a bootstrap over games for means, paired over the shared seeds for
differences to the deck's average) and outliers flagged against the other
plans of its deck only when the interval says it is no noise.

:func:`skill_tables` does the same per skill level (one strategy in every
seat, the same seeds at every level) and fits how each plan's worth moves
with skill.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from .formatting import RATE_COLUMNS, format_table
from .stats import paired_bootstrap_ci, wilson_interval

OUTLIER_IQR = 1.5
FLAGGED_METRICS = ("completion_rate", "points_per_game")
BOOTSTRAP_RESAMPLES = 1000
SLOPE_RESAMPLES = 1000
NEVER = "never completed"
"""What a completion turn or high-value share of a plan nobody completed prints as."""


Outcome = Callable[[pd.DataFrame, Any], tuple[np.ndarray, np.ndarray]]
"""Per row of a trial block: the turn (or round) the objective was completed
(NaN: never) and whether at its high value."""


def plan_points(trial: pd.DataFrame, spec: Any, outcome: Outcome) -> np.ndarray:
    """The points each player-game of `trial` got from the objective `spec`
    (high value when completed first, low value when later, else 0)."""
    turns, first = outcome(trial, spec)
    done = ~np.isnan(turns)
    return np.where(first & done, spec.points[0], np.where(done, spec.points[1], 0)).astype(float)


def mean_ci(values: pd.Series | np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """(mean, low, high): the mean with a 95% bootstrap interval (NaN bounds
    with fewer than two values: nothing is known of the spread)."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return (np.nan, np.nan, np.nan)
    if array.size == 1:
        return (float(array[0]), np.nan, np.nan)
    return paired_bootstrap_ci(array, resamples=BOOTSTRAP_RESAMPLES, seed=seed)


def _with_interval(row: dict, name: str, estimate: tuple[float, float, float]) -> None:
    row[name], row[f"{name}_low"], row[f"{name}_high"] = estimate


def _rate(successes: float, n: int) -> tuple[float, float, float]:
    if n == 0:
        return (np.nan, np.nan, np.nan)
    return (successes / n, *wilson_interval(successes, n))


def plan_metrics(trial: pd.DataFrame, spec: Any, outcome: Outcome) -> dict:
    """Metrics of one forced plan from its block of games. Means are taken
    over games (the per-game mean of the seats), so that the seats of one
    game, which share its cards, count as one observation."""
    slot = spec.deck
    turn_values, first_values = outcome(trial, spec)
    turns = pd.Series(turn_values, index=trial.index)
    done = turns.notna()
    first = pd.Series(first_values, index=trial.index) & done
    completed_turns = turns[done].astype(float)
    per_game = pd.DataFrame({"game": trial["game"].to_numpy(), "points": plan_points(trial, spec, outcome),
                             "total": trial["total"].to_numpy(dtype=float), "high": first.to_numpy()})
    games = per_game.groupby("game").agg(points=("points", "mean"), total=("total", "mean"),
                                         high=("high", "sum"))
    game_turns = trial.drop_duplicates("game").set_index("game")["turns"].astype(float)
    high_games = games["high"] > 0
    row = {"deck": slot, "plan": spec.id, "high_points": int(spec.points[0]), "low_points": int(spec.points[1]),
           "games": len(games), "player_games": len(trial)}
    _with_interval(row, "completion_rate", _rate(float(done.sum()), len(trial)))
    row["median_turn"] = float(completed_turns.median()) if len(completed_turns) else np.nan
    row["turn_q1"] = float(completed_turns.quantile(0.25)) if len(completed_turns) else np.nan
    row["turn_q3"] = float(completed_turns.quantile(0.75)) if len(completed_turns) else np.nan
    _with_interval(row, "high_share", _rate(float(first.sum()), int(done.sum())))
    _with_interval(row, "high_won", _rate(float(high_games.sum()), len(games)))
    _with_interval(row, "high_seats", mean_ci(games.loc[high_games, "high"]))
    _with_interval(row, "points_per_game", mean_ci(games["points"]))
    _with_interval(row, "mean_total", mean_ci(games["total"]))
    _with_interval(row, "mean_turns", mean_ci(game_turns))
    return row


def _vs_deck(trials: pd.DataFrame, table: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per plan, its per-game mean of `column` minus the deck's average over
    its plans on the same game seed, with a paired 95% interval."""
    per_game = trials.groupby(["forced_plan", "game"])[column].mean().unstack("game")
    rows = {}
    for _deck, block in table.groupby("deck"):
        games = per_game.loc[list(block.index)].dropna(axis=1)
        deck_mean = games.mean(axis=0)
        for plan in block.index:
            rows[plan] = mean_ci((games.loc[plan] - deck_mean).to_numpy())
    return pd.DataFrame.from_dict(rows, orient="index", columns=["value", "low", "high"])


def flag_outliers(table: pd.DataFrame) -> pd.Series:
    """For each plan, the metrics more than 1.5 IQR from its deck's median
    whose 95% interval also excludes that median: a flag is never noise.
    A plan with no flag is missing (NA), not an empty string."""
    flags = pd.Series("", index=table.index, dtype=object)
    for _deck, block in table.groupby("deck"):
        for metric in FLAGGED_METRICS:
            values = block[metric]
            median = values.median()
            spread = OUTLIER_IQR * (values.quantile(0.75) - values.quantile(0.25))
            if spread == 0:
                continue
            high = (values > median + spread) & (block[f"{metric}_low"] > median)
            low = (values < median - spread) & (block[f"{metric}_high"] < median)
            for index in block.index[high]:
                flags[index] += f"high {metric}; "
            for index in block.index[low]:
                flags[index] += f"low {metric}; "
    flags = flags.str.rstrip("; ")
    return flags.where(flags != "", None).astype("string")


def plan_balance_table(trials: pd.DataFrame, plans: dict[str, Any], outcome: Outcome
                       ) -> pd.DataFrame:
    """One row per plan: completion rate, completion turn (median and IQR),
    share completed at the high value, share of games where the high value
    was won and by how many seats on average, points per player-game, mean
    final score and game length (also relative to the deck's average, paired
    over the shared seeds), each with its 95% interval, and outlier flags.
    Sorted by deck, then points per game."""
    rows = [plan_metrics(block, plans[plan_id], outcome)
            for plan_id, block in trials.groupby("forced_plan", sort=False)]
    table = pd.DataFrame(rows).set_index("plan")
    for column, source in (("total_vs_deck", "total"), ("turns_vs_deck", "turns")):
        diff = _vs_deck(trials, table, source)
        table[column], table[f"{column}_low"], table[f"{column}_high"] = diff["value"], diff["low"], diff["high"]
    table["outlier"] = flag_outliers(table)
    table = table.sort_values(["deck", "points_per_game"], ascending=[True, False])
    table["rank_in_deck"] = table.groupby("deck").cumcount() + 1
    return table


PRINTED = {
    "plans": ["deck", "points", "player_games", "completion_rate", "turns", "high_share", "high_won",
              "high_seats", "points_per_game", "outlier"],
    "plan scores": ["deck", "mean_total", "total_vs_deck", "mean_turns", "turns_vs_deck"],
}


RACE_COLUMNS = ("high_share", "high_won", "high_seats")
"""The printed columns about the high value, which objectives with no race do not have."""


def printed_tables(table: pd.DataFrame, races: bool = True) -> dict[str, pd.DataFrame]:
    """The plan table as printed: two tables of text (rates and points; scores
    and game length), every interval as 'value [low, high]', rates in percent,
    the values as 'high/low' (one value, and no high-value columns, for
    objectives with no race), a plan nobody completed says so instead of NaN."""
    shown = table.copy()
    shown["points"] = [f"{high}/{low}" if races else f"{high}"
                       for high, low in zip(table["high_points"], table["low_points"])]
    shown["turns"] = [NEVER if np.isnan(m) else f"{m:g} [{q1:g}, {q3:g}]"
                      for m, q1, q3 in zip(table["median_turn"], table["turn_q1"], table["turn_q3"])]
    missing = {"high_share": NEVER, "high_seats": "-", "outlier": ""}
    out = {}
    for name, columns in PRINTED.items():
        columns = [c for c in columns if races or c not in RACE_COLUMNS]
        keep = [name for column in columns
                for name in (column, f"{column}_low", f"{column}_high") if name in shown.columns]
        out[name] = format_table(shown[keep], 2, percent=RATE_COLUMNS, signed=("total_vs_deck", "turns_vs_deck"),
                                 missing=missing)
    return out


# ------------------------------------------------------------------- skill
def _per_game_points(trials: pd.DataFrame, plans: dict[str, Any], outcome: Outcome) -> pd.DataFrame:
    """Per (skill, plan, game): the plan's mean points per seat and completion share."""
    parts = []
    for (skill, plan_id), block in trials.groupby(["skill", "forced_plan"], sort=False):
        spec = plans[plan_id]
        parts.append(pd.DataFrame({
            "skill": skill, "plan": plan_id, "deck": spec.deck, "game": block["game"].to_numpy(),
            "points": plan_points(block, spec, outcome),
            "done": (~np.isnan(outcome(block, spec)[0])).astype(float)}))
    return pd.concat(parts).groupby(["skill", "plan", "deck", "game"], sort=False).mean().reset_index()


def skill_slope(matrix: np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """(slope, low, high): the least-squares slope of the per-level mean over
    skill levels 0, 1, 2, … (`matrix` is levels × games on shared seeds),
    with a paired bootstrap interval that resamples whole games at every level."""
    levels, games = matrix.shape
    x = np.arange(levels, dtype=float) - (levels - 1) / 2
    weights = x / (x * x).sum()
    slope = float(weights @ matrix.mean(axis=1))
    if games < 2:
        return (slope, np.nan, np.nan)
    rng = np.random.Generator(np.random.PCG64(seed))
    index = rng.integers(0, games, size=(SLOPE_RESAMPLES, games))
    slopes = matrix[:, index].mean(axis=2).T @ weights
    low, high = np.quantile(slopes, [0.025, 0.975])
    return (slope, float(low), float(high))


def skill_tables(trials: pd.DataFrame, plans: dict[str, Any], skills: list[str],
                 outcome: Outcome) -> dict[str, pd.DataFrame]:
    """`skill`: per plan and skill level (in the order given, weakest first),
    completion rate and points per player-game with 95% intervals; `skill
    slope`: per plan, the change of points per player-game from one level to
    the next (least squares) with its paired interval, and whether the plan's
    worth rises or falls with skill."""
    per_game = _per_game_points(trials, plans, outcome)
    rows, slopes = [], []
    for plan, block in per_game.groupby("plan", sort=False):
        deck = int(block["deck"].iloc[0])
        for skill in skills:
            level = block[block["skill"] == skill]
            done = trials[(trials["skill"] == skill) & (trials["forced_plan"] == plan)]
            done = ~np.isnan(outcome(done, plans[plan])[0])
            row = {"deck": deck, "plan": plan, "skill": skill}
            _with_interval(row, "completion_rate", _rate(float(done.sum()), len(done)))
            _with_interval(row, "points_per_game", mean_ci(level["points"]))
            rows.append(row)
        matrix = block.pivot(index="skill", columns="game", values="points").loc[skills].dropna(axis=1)
        slope = {"deck": deck, "plan": plan}
        _with_interval(slope, "slope", skill_slope(matrix.to_numpy()))
        slope["with_skill"] = ("rises" if slope["slope_low"] > 0 else "falls" if slope["slope_high"] < 0
                               else "no clear trend")
        slopes.append(slope)
    trace = pd.DataFrame(rows).sort_values(["deck", "plan"], kind="stable").set_index(["plan", "skill"])
    slope_table = pd.DataFrame(slopes).sort_values(["deck", "slope"], ascending=[True, False]).set_index("plan")
    return {"skill": trace, "skill slope": slope_table}
