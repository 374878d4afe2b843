"""`benchmarks/bench_games.py`: lines, quiet rounds and the verdicts on the speed targets."""

from __future__ import annotations

import pytest

from helpers import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("bench_games")


def rounds_of(bench, *figures):
    """Rounds from (games/s, reference before, reference after) triples."""
    return [bench.Round(100, rate, 20.0, before, after) for rate, before, after in figures]


def test_quiet_rounds_are_those_whose_both_reference_loops_ran_near_the_fastest(bench):
    rounds = rounds_of(bench, (900.0, 10.0, 11.0), (700.0, 10.0, 13.0), (950.0, 12.0, 12.0))
    assert bench.quiet_rates(rounds, 10.0) == [900.0, 950.0]  # 13.0 > 1.2 * 10.0


def test_verdicts_judge_both_medians_of_the_lines_with_a_target(bench):
    rounds = {
        ("random", "solo"): rounds_of(bench, (900.0, 10.0, 10.0), (1100.0, 10.0, 11.0), (800.0, 20.0, 20.0)),
        ("random", 1): rounds_of(bench, (1200.0, 10.0, 10.0)),
        ("greedy", 4): rounds_of(bench, (29.0, 20.0, 20.0), (31.0, 20.0, 20.0)),
    }
    assert bench.target_verdicts(rounds, 10.0) == [
        "random:solo target 1000: all rounds 900.0 (below), quiet rounds 1000.0 (met)",
        "greedy:4 target 30: all rounds 30.0 (met), no quiet round",
    ]


@pytest.mark.parametrize("text, message", [
    ("random", "expected STRATEGY:PLAYERS"),
    ("random:9", "1 to 5 players or solo"),
    (":solo", "expected STRATEGY:PLAYERS"),
])
def test_bad_lines_are_one_line_errors(bench, text, message):
    with pytest.raises(ValueError, match=message):
        bench.parse_only(text)


def test_lines_parse_with_solo_and_default_to_all(bench):
    assert bench.parse_only("random:solo,greedy:4") == [("random", "solo"), ("greedy", 4)]
    assert bench.parse_only(None) == list(bench.LINES)
