"""Statistics core (welcometo_sim.analysis.stats) against independent references.

Reference values come from published numbers (Newcombe 1998, Table I), closed
forms derived by hand in this file, scipy (``binomtest(...).proportion_ci(
method="wilson")`` for the Wilson interval the module writes out,
``stats.bootstrap`` and ``stats.t`` it calls, and ``optimize.minimize`` of
the Bradley–Terry negative log-likelihood written out below), and
statistical properties checked on seeded synthetic data.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy
import scipy.optimize
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from welcometo_sim.analysis import stats
from welcometo_sim.analysis.stats import (
    ELO_SCALE,
    bradley_terry,
    compare_pair,
    paired_bootstrap_ci,
    pairwise_wins,
    rating_table,
    wilson_interval,
)

Z95 = 1.959963984540054  # standard-normal 97.5 % quantile


# ------------------------------------------------------------------ Wilson

# Newcombe (1998), "Two-sided confidence intervals for the single proportion:
# comparison of seven methods", Stat. Med. 17, Table I, method 3 (score, no
# continuity correction), 95 %, given to four decimals.
NEWCOMBE = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), NEWCOMBE)
def test_wilson_matches_newcombe_table(k, n, low, high):
    got = wilson_interval(k, n)
    assert got[0] == pytest.approx(low, abs=5e-5)
    assert got[1] == pytest.approx(high, abs=5e-5)


def test_wilson_zero_and_all_successes_closed_form():
    # With x = 0 the score equation gives upper = z²/(n+z²); with x = n, lower = n/(n+z²).
    assert wilson_interval(0, 10) == (0.0, pytest.approx(Z95**2 / (10 + Z95**2), rel=1e-12))
    assert wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=5e-5)
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + Z95**2), rel=1e-12), 1.0)


def test_wilson_empty_sample_is_whole_range():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, 0, confidence=0.5) == (0.0, 1.0)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_wilson_matches_scipy_binomtest(confidence):
    for n in (1, 2, 7, 30, 263, 5000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            expected = scipy.stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
            got = wilson_interval(k, n, confidence)
            assert got[0] == pytest.approx(expected.low, abs=1e-12), (k, n)
            assert got[1] == pytest.approx(expected.high, abs=1e-12), (k, n)


def test_scipys_wilson_interval_takes_whole_successes_only():
    # Why the module writes the Wilson interval out: a win rate counts a tie as
    # half a win. Should scipy accept 2.5 successes one day, use it instead.
    with pytest.raises((TypeError, ValueError)):
        scipy.stats.binomtest(2.5, 4)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=10_000),
    frac=st.floats(min_value=0.0, max_value=1.0),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_wilson_bounds_solve_the_score_equation(n, frac, confidence):
    # Definition of the Wilson interval: its interior ends p0 satisfy
    # (p - p0)² = z² p0 (1 - p0) / n. Half successes (ties) are allowed.
    x = round(frac * n * 2) / 2
    p = x / n
    z = scipy.stats.norm.ppf(0.5 + confidence / 2)
    low, high = wilson_interval(x, n, confidence)
    assert 0.0 <= low <= p <= high <= 1.0
    for bound, is_edge in ((low, x == 0), (high, x == n)):
        if not is_edge:
            assert (p - bound) ** 2 == pytest.approx(z * z * bound * (1 - bound) / n, rel=1e-9, abs=1e-15)


def test_wilson_half_successes_symmetric_and_between_neighbours():
    low, high = wilson_interval(3.5, 10)
    mirror = wilson_interval(6.5, 10)
    assert (low, high) == (pytest.approx(1 - mirror[1]), pytest.approx(1 - mirror[0]))
    below, above = wilson_interval(3, 10), wilson_interval(4, 10)
    assert below[0] < low < above[0]
    assert below[1] < high < above[1]


def test_wilson_narrows_with_n_and_widens_with_confidence():
    widths = [np.subtract(*wilson_interval(n // 4, n)[::-1]) for n in (40, 400, 4000)]
    assert widths[0] > widths[1] > widths[2]
    assert widths[1] / widths[2] == pytest.approx(math.sqrt(10), rel=0.02)
    w90 = np.subtract(*wilson_interval(30, 100, 0.90)[::-1])
    w99 = np.subtract(*wilson_interval(30, 100, 0.99)[::-1])
    assert w99 > w90


@pytest.mark.parametrize(
    ("k", "n", "confidence"),
    [(-1, 10, 0.95), (11, 10, 0.95), (1, -1, 0.95), (1, 2.5, 0.95), (1, 10, 0.0), (1, 10, 1.0), (math.nan, 10, 0.95)],
)
def test_wilson_rejects_bad_input(k, n, confidence):
    with pytest.raises(ValueError):
        wilson_interval(k, n, confidence)


# --------------------------------------------------------------- bootstrap


def test_bootstrap_is_deterministic_for_a_seed():
    data = np.random.default_rng(3).normal(2.0, 5.0, 300)
    first = paired_bootstrap_ci(data, seed=11)
    assert paired_bootstrap_ci(data, seed=11) == first
    assert paired_bootstrap_ci(list(data), seed=11) == first
    other = paired_bootstrap_ci(data, seed=12)
    assert other[0] == first[0]
    assert other[1:] != first[1:]


def scipy_rng_keyword() -> str:
    """The name of scipy.stats.bootstrap's generator argument: ``rng`` from
    scipy 1.15, ``random_state`` before (the lowest supported is 1.10)."""
    major, minor = (int(part) for part in scipy.__version__.split(".")[:2])
    return "rng" if (major, minor) >= (1, 15) else "random_state"


@pytest.mark.parametrize(("size", "confidence", "resamples", "seed"),
                         [(2, 0.95, 300, 0), (40, 0.90, 999, 7), (500, 0.99, 2000, 123), (3000, 0.95, 1500, 5)])
def test_bootstrap_is_scipys_percentile_bootstrap_with_the_seed(size, confidence, resamples, seed):
    # The written-out bootstrap makes scipy's draws and interval (to rounding
    # in the quantile); it is kept only to spare commands scipy.stats' import.
    data = np.random.default_rng(size).normal(1.0, 3.0, size).round()
    expected = scipy.stats.bootstrap((data,), np.mean, n_resamples=resamples, confidence_level=confidence,
                                     method="percentile",
                                     **{scipy_rng_keyword(): np.random.Generator(np.random.PCG64(seed))})
    mean, low, high = paired_bootstrap_ci(data, confidence, resamples, seed)
    assert mean == data.mean()
    interval = expected.confidence_interval
    assert (low, high) == (pytest.approx(interval.low, rel=1e-12, abs=1e-12),
                           pytest.approx(interval.high, rel=1e-12, abs=1e-12))


def test_t_value_is_scipys_t_quantile():
    for confidence in (0.5, 0.9, 0.95, 0.999):
        for df in (1, 2, 3, 9, 30, 250, 10**6):
            assert stats.t_value(confidence, df) == scipy.stats.t.ppf(0.5 + confidence / 2, df)
    assert stats._z_value(0.95) == scipy.stats.norm.ppf(0.975)


def test_importing_the_statistics_does_not_import_scipy():
    # scipy.stats takes about a second to import; every wtsim command imports
    # this module, most without computing an interval.
    code = ("import sys, welcometo_sim.cli, welcometo_sim.analysis.stats; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bootstrap_result_does_not_depend_on_memory_blocks(monkeypatch):
    data = np.random.default_rng(4).normal(0.0, 1.0, 37)
    whole = paired_bootstrap_ci(data, resamples=501, seed=5)
    monkeypatch.setattr(stats, "_BOOTSTRAP_BLOCK_ELEMENTS", 37 * 3 + 1)  # blocks of 3 resamples
    assert paired_bootstrap_ci(data, resamples=501, seed=5) == whole
    monkeypatch.setattr(stats, "_BOOTSTRAP_BLOCK_ELEMENTS", 1)  # one resample per block
    assert paired_bootstrap_ci(data, resamples=501, seed=5) == whole


def test_bootstrap_matches_a_hand_written_percentile_bootstrap():
    # The same draws (one row of n indices per resample, one stream) with a loop.
    data = np.random.default_rng(10).normal(0.0, 1.0, 25)
    rng = np.random.Generator(np.random.PCG64(9))
    means = [data[rng.integers(0, data.size, data.size)].mean() for _ in range(400)]
    expected = np.quantile(means, [0.05, 0.95])
    mean, low, high = paired_bootstrap_ci(data, confidence=0.90, resamples=400, seed=9)
    assert mean == pytest.approx(data.mean())
    assert (low, high) == (pytest.approx(expected[0]), pytest.approx(expected[1]))


def test_bootstrap_interval_contains_mean_and_shrinks_with_n():
    rng = np.random.default_rng(8)
    widths = []
    for n in (50, 500, 5000):
        data = rng.exponential(3.0, n) - 1.0  # skewed, like score differences
        mean, low, high = paired_bootstrap_ci(data, seed=1)
        assert mean == pytest.approx(data.mean())
        assert low < mean < high
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] / widths[2] == pytest.approx(10.0, rel=0.3)  # ~ 1/sqrt(n)


def test_bootstrap_close_to_normal_theory_for_large_samples():
    data = np.random.default_rng(21).normal(1.5, 4.0, 10_000)
    mean, low, high = paired_bootstrap_ci(data, resamples=3000, seed=2)
    half = Z95 * data.std(ddof=1) / math.sqrt(data.size)
    # Monte Carlo error of the 2.5 %/97.5 % quantiles with 3000 resamples is
    # about 3 % of the half-width; allow 12 %.
    assert low == pytest.approx(mean - half, abs=0.12 * half)
    assert high == pytest.approx(mean + half, abs=0.12 * half)
    assert (high - low) == pytest.approx(2 * half, rel=0.08)


def test_bootstrap_coverage_is_near_nominal():
    # 200 seeded samples of 60 normal differences with true mean 1:
    # the 90 % interval should cover it about 90 % of the time.
    rng = np.random.default_rng(1234)
    covered = 0
    for rep in range(200):
        data = rng.normal(1.0, 3.0, 60)
        _, low, high = paired_bootstrap_ci(data, confidence=0.90, resamples=500, seed=rep)
        covered += low <= 1.0 <= high
    assert 0.82 <= covered / 200 <= 0.96


def test_bootstrap_degenerate_samples():
    assert paired_bootstrap_ci([4.0, 4.0, 4.0]) == (4.0, 4.0, 4.0)
    assert paired_bootstrap_ci([-2.5]) == (-2.5, -2.5, -2.5)


@pytest.mark.parametrize("bad", [[], [1.0, math.nan], [math.inf, 1.0]])
def test_bootstrap_rejects_bad_data(bad):
    with pytest.raises(ValueError):
        paired_bootstrap_ci(bad)


def test_bootstrap_rejects_bad_parameters():
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0, 2.0], confidence=1.5)
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0, 2.0], resamples=0)


# ----------------------------------------------------------- Bradley–Terry


def expected_wins(strengths, games_per_pair):
    """W[i, j] = N · s_i / (s_i + s_j): the exact expected win counts."""
    s = np.asarray(strengths, dtype=float)
    w = games_per_pair * s[:, None] / (s[:, None] + s[None, :])
    np.fill_diagonal(w, 0.0)
    return w


def sampled_wins(rng, strengths, games_per_pair):
    s = np.asarray(strengths, dtype=float)
    k = s.size
    w = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            w[i, j] = rng.binomial(games_per_pair, s[i] / (s[i] + s[j]))
            w[j, i] = games_per_pair - w[i, j]
    return w


def negative_log_likelihood(free, w):
    """-log L with the first log-strength pinned at 0, written out pair by pair."""
    theta = np.concatenate([[0.0], free])
    total = 0.0
    for i in range(len(theta)):
        for j in range(len(theta)):
            if i != j and w[i, j]:
                total -= w[i, j] * (theta[i] - np.logaddexp(theta[i], theta[j]))
    return total


def test_bt_recovers_true_strengths_from_expected_counts():
    truth = np.array([1.0, 2.0, 4.0, 0.5, 3.0, 0.1])
    names = list("ABCDEF")
    table = bradley_terry(expected_wins(truth, 1000), players=names)
    normalised = truth / np.exp(np.log(truth).mean())
    assert list(table.index) == names
    assert table["strength"].to_numpy() == pytest.approx(normalised, rel=1e-9)
    assert table["rating"].to_numpy() == pytest.approx(400 * np.log10(normalised), abs=1e-7)
    assert table["rating"].mean() == pytest.approx(0.0, abs=1e-9)
    assert np.exp(np.log(table["strength"]).mean()) == pytest.approx(1.0)
    assert table["comparisons"].to_numpy() == pytest.approx(np.full(6, 5 * 1000.0))
    assert set(table.columns) >= {"rating", "rating_low", "rating_high", "strength"}


def test_bt_elo_scale_predicts_win_probability():
    truth = np.array([1.0, 9.0])  # P(B beats A) = 0.9
    table = bradley_terry(expected_wins(truth, 10), players=["A", "B"])
    gap = table.loc["B", "rating"] - table.loc["A", "rating"]
    assert 1 / (1 + 10 ** (-gap / 400)) == pytest.approx(0.9)


def test_bt_two_players_closed_form():
    # 30 wins to 10: s_a/s_b = 3. Var(theta_a - theta_b) = 1/(N p q) = 1/7.5,
    # and each centred log-strength is half the difference: Var = 1/30.
    table = bradley_terry([[0, 30], [10, 0]], players=["a", "b"])
    assert table.loc["a", "rating"] == pytest.approx(200 * math.log10(3))
    assert table.loc["b", "rating"] == pytest.approx(-200 * math.log10(3))
    se = 400 / math.log(10) * math.sqrt(1 / 30)
    assert table.loc["a", "rating_se"] == pytest.approx(se)
    assert table.loc["a", "rating_low"] == pytest.approx(200 * math.log10(3) - Z95 * se)
    assert table.loc["b", "rating_high"] == pytest.approx(-200 * math.log10(3) + Z95 * se)


def test_bt_matches_direct_optimisation_and_numerical_hessian():
    rng = np.random.default_rng(7)
    w = rng.integers(1, 12, size=(5, 5)).astype(float)
    w[1, 3] += 0.5  # a tie between 1 and 3, half a win each way
    w[3, 1] += 0.5
    np.fill_diagonal(w, 0.0)
    table = bradley_terry(w)

    result = scipy.optimize.minimize(negative_log_likelihood, np.zeros(4), args=(w,),
                                     method="BFGS", options={"gtol": 1e-10})
    theta = np.concatenate([[0.0], result.x])
    centred = theta - theta.mean()
    assert table["rating"].to_numpy() == pytest.approx(ELO_SCALE * centred, abs=1e-4)

    # Covariance of the pinned parameters from a finite-difference Hessian of the
    # negative log-likelihood, then mapped to the mean-zero parametrisation.
    h, m = 1e-4, result.x.size
    hessian = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            e_i, e_j = np.eye(m)[i] * h, np.eye(m)[j] * h
            hessian[i, j] = (negative_log_likelihood(result.x + e_i + e_j, w)
                             - negative_log_likelihood(result.x + e_i - e_j, w)
                             - negative_log_likelihood(result.x - e_i + e_j, w)
                             + negative_log_likelihood(result.x - e_i - e_j, w)) / (4 * h * h)
    pinned = np.zeros((m + 1, m + 1))
    pinned[1:, 1:] = np.linalg.inv(hessian)
    centre = np.eye(m + 1) - 1.0 / (m + 1)
    se = ELO_SCALE * np.sqrt(np.diag(centre @ pinned @ centre.T))
    assert table["rating_se"].to_numpy() == pytest.approx(se, rel=1e-4)
    assert (table["rating_high"] - table["rating"]).to_numpy() == pytest.approx(Z95 * se, rel=1e-4)


def test_bt_invariant_to_player_order():
    rng = np.random.default_rng(2)
    names = ["greedy", "random", "planner", "cautious", "bold"]
    w = pd.DataFrame(sampled_wins(rng, [1, 0.3, 2, 1.2, 0.8], 40), index=names, columns=names)
    base = bradley_terry(w)
    order = ["bold", "planner", "greedy", "cautious", "random"]
    shuffled = bradley_terry(w.loc[order, order])
    assert list(shuffled.index) == order
    pd.testing.assert_frame_equal(shuffled.loc[names], base, rtol=1e-9, atol=1e-9)
    # Columns in another order than the index are matched by name.
    columns_shuffled = bradley_terry(w[order])
    pd.testing.assert_frame_equal(columns_shuffled, base, rtol=1e-9, atol=1e-9)


def test_bt_intervals_narrow_with_more_games():
    truth = np.array([1.0, 2.0, 0.5, 4.0])
    few = bradley_terry(expected_wins(truth, 20))
    many = bradley_terry(expected_wins(truth, 2000))
    # Same probabilities, 100 times the games: information x100, widths /10.
    ratio = (few["rating_high"] - few["rating_low"]) / (many["rating_high"] - many["rating_low"])
    assert ratio.to_numpy() == pytest.approx(np.full(4, 10.0), rel=1e-6)


def test_bt_intervals_cover_the_truth_at_nominal_rate():
    truth = np.array([1.0, 2.5, 0.4, 1.6])
    true_rating = 400 * np.log10(truth / np.exp(np.log(truth).mean()))
    rng = np.random.default_rng(99)
    covered = trials = 0
    for _ in range(150):
        table = bradley_terry(sampled_wins(rng, truth, 60))
        inside = (table["rating_low"] <= true_rating) & (true_rating <= table["rating_high"])
        covered += int(inside.sum())
        trials += truth.size
    assert 0.92 <= covered / trials <= 0.98


def test_bt_handles_far_apart_strengths():
    truth = np.array([1.0, 1e3, 1e-3, 30.0])
    table = bradley_terry(expected_wins(truth, 500))
    normalised = truth / np.exp(np.log(truth).mean())
    assert table["strength"].to_numpy() == pytest.approx(normalised, rel=1e-8)


def test_bt_rejects_non_estimable_matrices():
    # C never lost: its strength would be infinite.
    w = np.array([[0, 3, 0], [2, 0, 0], [4, 5, 0]], dtype=float)
    with pytest.raises(ValueError, match="not estimable"):
        bradley_terry(w, players=["A", "B", "C"])
    # Two groups that never met.
    w = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 2, 0]], dtype=float)
    with pytest.raises(ValueError, match="not estimable"):
        bradley_terry(w)
    # A single tie makes the pair estimable (equal strengths).
    table = bradley_terry([[0, 0.5], [0.5, 0]])
    assert table["rating"].to_numpy() == pytest.approx([0.0, 0.0])


@pytest.mark.parametrize(
    "bad",
    [
        np.ones((2, 3)),
        np.array([[0.0, -1.0], [1.0, 0.0]]),
        np.array([[0.0, math.nan], [1.0, 0.0]]),
        np.zeros((1, 1)),
        pd.DataFrame([[0, 1], [1, 0]], index=["a", "b"], columns=["a", "c"]),
    ],
)
def test_bt_rejects_malformed_input(bad):
    with pytest.raises(ValueError):
        bradley_terry(bad)


def test_bt_ignores_the_diagonal():
    w = expected_wins([1.0, 2.0, 3.0], 10)
    noisy = w.copy()
    np.fill_diagonal(noisy, 99.0)
    pd.testing.assert_frame_equal(bradley_terry(noisy), bradley_terry(w))


# ------------------------------------------------------------ result tables


def results(rows):
    """A result table from (game, player, total, rank) tuples."""
    return pd.DataFrame(rows, columns=["game", "player", "total", "rank"])


# Hand-built 3-player field with a tie and one 2-player game:
#   g0: A 1st, B 2nd, C 3rd      -> A>B, A>C, B>C
#   g1: A and B tie 1st, C 3rd   -> A=B, A>C, B>C
#   g2: C 1st, A 2nd, B 3rd      -> C>A, C>B, A>B
#   g3: B 1st, C 2nd, A 3rd      -> B>C, B>A, C>A
#   g4: A vs C only, C wins      -> C>A
THREE = results([
    (0, "A", 80, 1), (0, "B", 70, 2), (0, "C", 60, 3),
    (1, "A", 75, 1), (1, "B", 75, 1), (1, "C", 50, 3),
    (2, "C", 90, 1), (2, "A", 85, 2), (2, "B", 40, 3),
    (3, "B", 88, 1), (3, "C", 70, 2), (3, "A", 65, 3),
    (4, "A", 55, 2), (4, "C", 72, 1),
])
THREE_WINS = np.array([
    # vs A  B    C
    [0.0, 2.5, 2.0],  # A: beat B in g0, g2, half in g1; beat C in g0, g1
    [1.5, 0.0, 3.0],  # B: beat A in g3, half in g1; beat C in g0, g1, g3
    [3.0, 1.0, 0.0],  # C: beat A in g2, g3, g4; beat B in g2
])


def test_pairwise_wins_from_hand_built_table():
    matrix = pairwise_wins(THREE)
    assert list(matrix.index) == ["A", "B", "C"]
    assert list(matrix.columns) == ["A", "B", "C"]
    np.testing.assert_array_equal(matrix.to_numpy(), THREE_WINS)
    # Every pair of players in a game is one comparison: 3+3+3+3+1.
    assert matrix.to_numpy().sum() == 13


def test_rating_table_equals_bradley_terry_on_hand_matrix():
    table = rating_table(THREE)
    expected = bradley_terry(THREE_WINS, players=["A", "B", "C"])
    pd.testing.assert_frame_equal(table.loc[["A", "B", "C"]], expected, check_names=False)
    assert list(table["rating"]) == sorted(table["rating"], reverse=True)  # best first
    # Row order of the result table must not matter.
    shuffled = rating_table(THREE.sample(frac=1.0, random_state=0))
    pd.testing.assert_frame_equal(shuffled.loc[["A", "B", "C"]], table.loc[["A", "B", "C"]])


def test_rating_table_two_player_field_matches_closed_form():
    # 12 games: X wins 9, Y wins 2, one tie -> 9.5 : 2.5.
    rows = []
    for game in range(12):
        rank_x, rank_y = (1, 2) if game < 9 else ((2, 1) if game < 11 else (1, 1))
        rows += [(game, "X", 50, rank_x), (game, "Y", 40, rank_y)]
    table = rating_table(results(rows))
    assert list(table.index) == ["X", "Y"]
    assert table.loc["X", "rating"] == pytest.approx(200 * math.log10(9.5 / 2.5))


def test_result_table_validation():
    with pytest.raises(ValueError, match="column"):
        pairwise_wins(THREE.drop(columns="rank"))
    with pytest.raises(ValueError, match="twice"):
        pairwise_wins(pd.concat([THREE, THREE.iloc[[0]]]))


def test_compare_pair_on_hand_built_table():
    out = compare_pair(THREE, "A", "B", seed=3)
    # A vs B: g0 win, g1 tie, g2 win, g3 loss (g4 has no B) -> 2.5 of 4.
    assert out["games"] == 4
    assert out["wins"] == 2.5
    assert out["win_rate"] == 0.625
    assert (out["win_low"], out["win_high"]) == wilson_interval(2.5, 4)
    diffs = [80 - 70, 75 - 75, 85 - 40, 65 - 88]
    assert out["mean_diff"] == pytest.approx(np.mean(diffs))
    assert (out["mean_diff"], out["diff_low"], out["diff_high"]) == paired_bootstrap_ci(diffs, seed=3)
    assert out["a_mean"] == pytest.approx(np.mean([80, 75, 85, 65]))
    assert out["b_mean"] == pytest.approx(np.mean([70, 75, 40, 88]))
    assert out["significant"] is False
    assert out["win_significant"] is False
    # Swapping the players mirrors the result.
    back = compare_pair(THREE, "B", "A", seed=3)
    assert back["wins"] == 1.5
    assert back["mean_diff"] == pytest.approx(-out["mean_diff"])


def test_compare_pair_detects_a_clear_difference():
    rng = np.random.default_rng(5)
    rows = []
    for game in range(200):
        base = rng.integers(40, 90)
        strong, weak = base + rng.integers(5, 20), base - rng.integers(0, 10)
        rows += [(game, "strong", strong, 1), (game, "weak", weak, 2)]
    frame = results(rows)
    out = compare_pair(frame, "strong", "weak")
    assert out["win_rate"] == 1.0
    assert out["win_significant"] is True
    assert out["significant"] is True
    assert out["diff_low"] > 0
    reverse = compare_pair(frame, "weak", "strong")
    assert reverse["significant"] is True and reverse["diff_high"] < 0
    assert reverse["win_significant"] is True and reverse["win_high"] < 0.5


def test_compare_pair_even_match_is_not_significant():
    rng = np.random.default_rng(6)
    rows = []
    for game in range(300):
        x, y = rng.normal(70, 10, 2).round()
        rx, ry = (1, 2) if x > y else ((2, 1) if y > x else (1, 1))
        rows += [(game, "x", x, rx), (game, "y", y, ry)]
    frame = results(rows)
    out = compare_pair(frame, "x", "y")
    assert out["games"] == 300
    # The bootstrap sees the games in `game` order whatever the row order.
    assert compare_pair(frame.sample(frac=1.0, random_state=4), "x", "y") == out
    assert out["win_low"] < 0.5 < out["win_high"]
    assert out["diff_low"] < 0 < out["diff_high"]
    assert out["significant"] is False and out["win_significant"] is False


def test_compare_pair_errors():
    with pytest.raises(ValueError):
        compare_pair(THREE, "A", "A")
    with pytest.raises(ValueError, match="not in the result table"):
        compare_pair(THREE, "A", "Z")
    apart = results([(0, "A", 50, 1), (0, "B", 40, 2), (1, "C", 60, 1), (1, "D", 30, 2)])
    with pytest.raises(ValueError, match="never played"):
        compare_pair(apart, "A", "C")
