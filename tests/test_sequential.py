"""The sequential comparison controls its error rates (on simulated paired
differences: thousands of tests in seconds) and `wtsim compare
--until-significant` stops with a verdict."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from welcometo_sim.analysis.sequential import (NO_DIFFERENCE, UNDECIDED, SequentialError, SprtSettings,
                                               batch_seed, decide, log_likelihood_ratios, run_sequential)

from helpers import user_error, wtsim

RUNS = 1000


def game_like(rng: np.random.Generator, mean: float):
    """Paired differences shaped like game scores: a wide normal body and,
    one game in ten, a big swing (a game ended early on refusals)."""
    def batch(_number: int, size: int) -> np.ndarray:
        body = rng.normal(mean, 12.0, size)
        swings = rng.random(size) < 0.1
        return body + swings * rng.choice([-30.0, 30.0], size)
    return batch


def verdicts(mean: float, settings: SprtSettings, seed: int) -> tuple[list[str], list[int]]:
    rng = np.random.default_rng(seed)
    results = [run_sequential(game_like(rng, mean), settings) for _ in range(RUNS)]
    return [r.verdict for r in results], [r.games for r in results]


def upper_limit(rate: float, runs: int) -> float:
    """Three standard errors above `rate`: what RUNS tests at that rate stay under."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / runs)


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_equal_players_come_out_no_difference_at_the_stated_false_positive_rate(alpha):
    settings = SprtSettings(alpha=alpha, beta=0.1, effect=4.0, batch=50, max_games=20_000)
    found, games = verdicts(0.0, settings, seed=int(alpha * 100))
    false_positive = sum(v in ("A better", "B better") for v in found) / RUNS
    assert false_positive <= upper_limit(alpha, RUNS), false_positive
    assert found.count(UNDECIDED) == 0
    assert found.count(NO_DIFFERENCE) / RUNS >= 1 - upper_limit(alpha, RUNS)
    # Both directions share the error: neither side takes all of it.
    assert abs(found.count("A better") - found.count("B better")) <= 3 * math.sqrt(alpha * RUNS) + 5
    assert np.median(games) < 2000


def test_a_true_difference_of_the_effect_size_is_found_at_the_stated_power():
    settings = SprtSettings(alpha=0.05, beta=0.1, effect=4.0, batch=50, max_games=20_000)
    found, _games = verdicts(4.0, settings, seed=7)
    assert found.count(NO_DIFFERENCE) / RUNS <= upper_limit(0.1, RUNS)
    assert found.count("B better") == 0
    found, games = verdicts(-12.0, settings, seed=8)  # a big difference is clear after one batch or two
    assert found == ["B better"] * RUNS and max(games) <= 150


def test_the_ratios_and_bounds_are_walds():
    settings = SprtSettings(alpha=0.05, beta=0.05, effect=2.0)
    lower, upper = settings.bounds()
    assert upper == pytest.approx(math.log(0.95 / 0.025)) and lower == pytest.approx(math.log(0.05 / 0.975))
    plus, minus = log_likelihood_ratios(100, 100.0, 4.0, 2.0)  # mean 1 = half the effect: balanced
    assert plus == pytest.approx(0.0) and minus == pytest.approx(-100.0)
    assert decide(upper, -1, settings, "x", "y") == "x better"
    assert decide(lower, lower, settings) == NO_DIFFERENCE
    assert decide(0.0, lower, settings) is None
    # Identical totals in every game: no variance, no division by zero, no difference.
    assert run_sequential(lambda _n, size: np.zeros(size), settings).verdict == NO_DIFFERENCE


def test_batches_play_fresh_seeds_and_the_test_stops_at_max_games():
    assert batch_seed(5, 0) == 5 and len({batch_seed(5, k) for k in range(50)}) == 50
    settings = SprtSettings(effect=0.01, batch=10, max_games=35)
    result = run_sequential(lambda _n, size: np.random.default_rng(size).normal(0, 10, size), settings)
    assert result.verdict == UNDECIDED and result.games == 35 and [look.games for look in result.looks] == [
        10, 20, 30, 35]


@pytest.mark.parametrize("kwargs, fragment", [({"alpha": 0.0}, "--alpha"), ({"beta": 0.7}, "--beta"),
                                              ({"effect": -1.0}, "--effect"), ({"batch": 1}, "--batch"),
                                              ({"batch": 50, "max_games": 10}, "--max-games")])
def test_bad_settings_are_one_line(kwargs, fragment):
    with pytest.raises(SequentialError, match=fragment):
        SprtSettings(**kwargs)


def test_compare_until_significant_stops_with_a_verdict(tmp_path, capsys):
    out = tmp_path / "seq"
    code, stdout, err = wtsim(["compare", "random", "greedy", "--until-significant", "--batch", "20",
                               "--max-games", "200", "--seed", "3", "-q", "--out", str(out)], capsys)
    assert code == 0, err
    assert "verdict: greedy better after 20 games" in stdout
    results = pd.read_csv(out / "results.csv")
    assert results["game"].nunique() == 20
    looks = pd.read_csv(out / "looks.csv")
    assert list(looks["games"]) == [20]


def test_compare_until_significant_needs_two_strategies(capsys):
    assert "exactly two" in user_error(["compare", "random", "greedy", "heuristic", "--until-significant"], capsys)
    assert "--alpha" in user_error(["compare", "random", "greedy", "--until-significant", "--alpha", "0.9"], capsys)
