"""Intervals of the summary tables: t for means, Wilson for rates, games keyed by match."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from welcometo_sim.analysis.stats import mean_interval, rate_interval, t_value, wilson_interval
from welcometo_sim.analysis.tables import game_summary, score_distribution


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_t_value_matches_scipy_for_every_degree_of_freedom(confidence):
    for df in [*range(1, 260), 1000, 100_000]:
        expected = scipy_stats.t.ppf(0.5 + confidence / 2, df)
        assert t_value(confidence, df) == pytest.approx(expected, rel=1e-9), df


def test_mean_interval_is_the_t_interval_and_says_nothing_about_one_value():
    values = np.array([3.0, 7.0, 8.0, 12.0])
    mean, low, high = mean_interval(values)
    half = scipy_stats.t.ppf(0.975, 3) * values.std(ddof=1) / 2
    assert (mean, low, high) == pytest.approx((7.5, 7.5 - half, 7.5 + half))
    one = mean_interval([4.0])
    assert one[0] == 4.0 and math.isnan(one[1]) and math.isnan(one[2])
    assert all(math.isnan(v) for v in mean_interval([]))
    assert all(math.isnan(v) for v in rate_interval(0, 0))
    assert rate_interval(3, 10)[1:] == wilson_interval(3, 10)


def compare_like_table() -> pd.DataFrame:
    """Two matches that both number their games 0 and 1 (as `compare --out` writes)."""
    rows = []
    for match, (a, b) in enumerate((("x", "y"), ("x", "z"))):
        for game in (0, 1):
            for seat, (player, total) in enumerate(((a, 50 + game), (b, 40 + match))):
                rows.append({"match": match, "game": game, "seat": seat, "player": player,
                             "strategy": player, "total": total, "rank": seat + 1, "won": seat == 0,
                             "end_reason": "refusals" if match else "plans"})
    return pd.DataFrame(rows)


def test_games_of_different_matches_are_not_merged():
    frame = compare_like_table()
    scores = score_distribution(frame)
    assert scores.loc["x", "games"] == 4 and scores.loc["y", "games"] == 2
    assert scores.loc["x", "win_rate"] == 1.0
    assert scores.loc["x", "win_rate_low"] == pytest.approx(wilson_interval(4, 4)[0])
    assert scores.loc["x", "mean_low"] < scores.loc["x", "mean"] < scores.loc["x", "mean_high"]
    endings = game_summary(frame)
    assert endings["games"].to_dict() == {"plans": 2, "refusals": 2}
    assert endings.loc["plans", "share"] == 0.5
    assert endings.loc["plans", ["share_low", "share_high"]].tolist() == pytest.approx(wilson_interval(2, 4))


def test_games_of_different_forced_plans_are_not_merged():
    frame = compare_like_table().drop(columns="match")
    frame["forced_plan"] = np.repeat(["p", "q"], 4)
    scores = score_distribution(frame)
    assert scores.loc["x", "games"] == 4
    assert game_summary(frame)["games"].sum() == 4


def test_pair_differences_are_paired_per_game_with_ties_counting_half():
    from welcometo_sim.analysis.tables import pair_differences

    rows = []
    for game, (x, y, rank_x, rank_y) in enumerate([(50, 40, 1, 2), (45, 45, 1, 1), (30, 41, 2, 1), (60, 52, 1, 2)]):
        rows += [{"game": game, "player": "x", "total": x, "rank": rank_x},
                 {"game": game, "player": "y", "total": y, "rank": rank_y}]
    table = pair_differences(pd.DataFrame(rows))
    row = table.loc[("x", "y")]
    assert row["games"] == 4
    assert row["a_win_rate"] == pytest.approx(2.5 / 4)
    assert (row["a_win_rate_low"], row["a_win_rate_high"]) == pytest.approx(wilson_interval(2.5, 4))
    assert (row["mean_diff"], row["mean_diff_low"], row["mean_diff_high"]) == pytest.approx(
        mean_interval([10, 0, -11, 8]))
    assert row["verdict"] == "not significant"


def test_category_means_keep_their_intervals_within_the_values_seen():
    from welcometo_sim.analysis.tables import category_means
    from welcometo_sim.games.welcome_to.scoring import SCORE_FIELDS

    frame = pd.DataFrame({"player": ["x"] * 6, **{field: [0] * 6 for field in SCORE_FIELDS}})
    frame["plans"] = [0, 0, 0, 0, 0, 8]
    frame["total"] = frame["plans"]
    table = category_means(frame)
    assert table.loc["x", "plans"] == pytest.approx(8 / 6)
    assert table.loc["x", "plans_low"] == 0.0 < table.loc["x", "plans_high"]
    assert (table.loc["x", "parks_low"], table.loc["x", "parks_high"]) == (0.0, 0.0)
