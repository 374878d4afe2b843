"""`benchmarks/bench_instructions.py`: reading valgrind's count, and playing a fixed number of games."""

from __future__ import annotations

import pytest

from helpers import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("bench_instructions")


CACHEGRIND_SUMMARY = """==10391== 
==10391== I   refs:      2,999,828,902
"""


def test_the_instruction_count_is_read_from_cachegrinds_summary(bench):
    assert bench.instructions_of(CACHEGRIND_SUMMARY) == 2_999_828_902


def test_output_without_a_count_is_an_error_not_a_zero(bench):
    with pytest.raises(ValueError, match="no instruction count"):
        bench.instructions_of("==1== valgrind: failed to start tool 'cachegrind'")


def test_the_played_games_are_bench_games_seeds(bench, monkeypatch):
    played = []
    import welcometo_sim.games.welcome_to.game as game

    original = game.play_game
    monkeypatch.setattr(game, "play_game", lambda *a, **k: played.append(a[2]) or original(*a, **k))
    bench.play("random", "solo", 3)
    bench.play("random", "2", 0)
    assert played == [0, 1, 2]


def test_no_valgrind_is_one_line_and_exit_code_2(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    monkeypatch.setattr("sys.argv", ["bench_instructions.py"])
    with pytest.raises(SystemExit) as stopped:
        bench.main()
    assert stopped.value.code == 2
    assert "valgrind not found" in capsys.readouterr().err
