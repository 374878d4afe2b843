"""wtsim tune on a Shake That City config: that game's strategies, parameters and
opponents, its games played through the runner, and a YAML its configs seat."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import pandas as pd
import yaml

import welcometo_sim
from helpers import user_error, wtsim
from welcometo_sim.config import ConfigError, load_config
from welcometo_sim.games.config import GameStrategy
from welcometo_sim.games.shake_that_city.strategies import GreedyStrategy
from welcometo_sim.sim.results import read_table
from welcometo_sim.sim.runner import run_chunks
from welcometo_sim.tuning import TUNED_PLAYER, table_spec

ROOT = Path(__file__).resolve().parents[1]
STC = ROOT / "configs" / "shake-that-city.yaml"
SMALL = {"games": 3, "trials": 2, "top": 1, "final_games": 4, "seed": 7}


def test_tune_prints_trials_and_writes_params_a_run_of_the_game_seats(capsys, tmp_path):
    best = tmp_path / "best.yaml"
    code, out, err = wtsim(["tune", "greedy", "--config", str(STC), "--param", "open=0:1", "--param",
                            "space=0:0.2", "--opponent", "random", "--games", "3", "--trials", "2", "--top",
                            "1", "--final-games", "4", "--seed", "7", "-q", "--out", str(best)], capsys)
    assert code == 0, err
    assert out.startswith("tune greedy against random: objective diff, 3 games per trial, seed 7")
    assert "trials" in out and "best 1 and the start on 4 fresh games" in out
    *tables, written = out.splitlines()
    assert max(len(line) for line in tables) <= 100
    assert written == f"parameters written to {best}"
    document = yaml.safe_load(best.read_text())
    assert document["strategy"] == "greedy" and document["tuning"]["game"] == "shake-that-city"
    assert set(document["params"]) == set(GreedyStrategy.defaults)
    assert 0 <= document["params"]["open"] <= 1 and 0 <= document["params"]["space"] <= 0.2
    assert document["params"]["bonus"] == GreedyStrategy.defaults["bonus"]

    raw = yaml.safe_load(STC.read_text())
    raw["players"] = [{"name": "tuned", "params_file": best.name}, "random"]  # relative to the config
    config = tmp_path / "tuned.yaml"
    config.write_text(yaml.safe_dump(raw))
    assert load_config(config).players[0].strategy == GameStrategy("greedy", document["params"])
    folder = tmp_path / "run"
    code, _out, err = wtsim(["run", str(config), "--games", "2", "--quiet", "--format", "csv",
                             "--out", str(folder)], capsys)
    assert code == 0, err
    table = read_table(folder)
    assert sorted(table["player"]) == ["random", "random", "tuned", "tuned"]


def test_the_start_plays_the_configs_games_with_seats_rotated():
    tuned = welcometo_sim.tune("greedy", ["bonus=0:2"], objective="score", opponents=["random"], config=STC,
                               **SMALL)
    start = tuned.result.trials[0]
    assert start.values == (GreedyStrategy.defaults["bonus"],)
    spec = replace(load_config(STC), games=SMALL["games"], seed=SMALL["seed"])
    table = table_spec(spec, GameStrategy("greedy", dict(GreedyStrategy.defaults)), [GameStrategy("random")])
    columns, _seconds = run_chunks(table)
    frame = pd.DataFrame(columns)
    own = frame[frame["player"] == TUNED_PLAYER].sort_values("game")
    assert list(own["seat"]) == [0, 1, 0]
    np.testing.assert_array_equal(start.per_game, own["total"].to_numpy(dtype=float))


def test_an_unknown_parameter_of_the_games_strategy_is_one_line(capsys):
    line = user_error(["tune", "greedy", "--config", str(STC), "--param", "shortlist=1:4", "--games", "2"],
                      capsys)
    assert line == ("wtsim: error: --param 'shortlist=1:4': 'greedy' has no parameter 'shortlist' "
                    "(numeric parameters: open, bonus, construction, construction_growth, space)")


def test_a_bound_the_games_strategy_refuses_and_a_solo_table_are_one_line(capsys):
    line = user_error(["tune", "lookahead", "--config", str(STC), "--param", "candidates=0:3"], capsys)
    assert line == ("wtsim: error: --param 'candidates=0:3': "
                    "strategy 'lookahead': candidates and samples must be at least 1")
    solo = ROOT / "configs" / "shake-that-city-solo.yaml"
    line = user_error(["tune", "greedy", "--config", str(solo), "--param", "open=0:1"], capsys)
    assert line == "wtsim: error: tune: variant.solo: solo is for exactly 1 player, not 2"


def test_the_same_seed_gives_the_same_tune_for_one_and_two_workers():
    one = welcometo_sim.tune("greedy", {"open": "0:1"}, opponents=["random"], config=STC, jobs=1, **SMALL)
    two = welcometo_sim.tune("greedy", {"open": "0:1"}, opponents=["random"], config=STC, jobs=2, **SMALL)
    pd.testing.assert_frame_equal(one.trials, two.trials)
    pd.testing.assert_frame_equal(one.finalists, two.finalists)
    assert one.best == two.best


def test_a_params_file_in_a_shake_that_city_config(tmp_path):
    """The file's strategy and params seat the player; the entry's own params win;
    a file of another strategy or a missing file is one ConfigError line."""
    (tmp_path / "best.yaml").write_text(yaml.safe_dump(
        {"strategy": "greedy", "params": {"open": 0.25, "space": 0.1}, "tuning": {"game": "shake-that-city"}}))
    raw = yaml.safe_load(STC.read_text())

    def players(*entries):
        config = tmp_path / "c.yaml"
        config.write_text(yaml.safe_dump({**raw, "players": list(entries)}))
        return load_config(config).players

    seated = players({"params_file": "best.yaml", "params": {"space": 0.0}}, "random")
    assert seated[0].strategy == GameStrategy("greedy", {"open": 0.25, "space": 0.0})
    assert seated[0].name == "greedy"
    for entry, problem in [({"strategy": "random", "params_file": "best.yaml"}, "holds parameters of 'greedy', "
                                                                               "not of 'random'"),
                           ({"params_file": "nowhere.yaml"}, "nowhere.yaml: file not found")]:
        with pytest.raises(ConfigError) as caught:
            players(entry, "random")
        assert "players[0].params_file" in str(caught.value) and problem in str(caught.value)
