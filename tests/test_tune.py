"""wtsim tune: parameter ranges, the search, the objective, the command, params_file."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from welcometo_sim.config import ConfigError, load_config, parse_config
from welcometo_sim.strategy import load_strategy
from welcometo_sim.tuning import (CrossEntropySearch, ParamRange, Trial, TuneError, numeric_keys,
                                parse_param_range, parse_param_ranges, per_game_objective, with_values)

from helpers import run_cli, user_error

GREEDY = load_strategy("greedy")
BAD_START = ["tune", "greedy:weights.points=0", "--param", "weights.points=0:2", "--games", "4",
             "--trials", "2", "--top", "1", "--final-games", "8", "--seed", "3", "-q"]


@pytest.fixture(scope="module")
def bad_start(tmp_path_factory) -> dict:
    """One small tune from a deliberately bad start (greedy that ignores points)."""
    folder = tmp_path_factory.mktemp("tune")
    out = folder / "best.yaml"
    code, printed, err = run_cli(BAD_START + ["--out", str(out)])
    assert code == 0, err
    return {"printed": printed, "yaml": out.read_text(), "folder": folder}


# ------------------------------------------------------------------ ranges
def test_ranges_take_the_type_of_the_parameter():
    points = parse_param_range("weights.points=0:2", GREEDY)
    assert points == ParamRange("weights.points", 0.0, 2.0, integer=False, log=False)
    shortlist = parse_param_range("shortlist=2:8", GREEDY)
    assert shortlist.integer and shortlist.from_unit(0.5) == 5 and shortlist.from_unit(1.0) == 8
    flexible = parse_param_range("weights.flexibility=0.1:10:log", GREEDY)
    assert flexible.log
    assert flexible.from_unit(0.5) == pytest.approx(1.0)
    assert flexible.to_unit(flexible.from_unit(0.25)) == pytest.approx(0.25, abs=1e-3)


def test_float_values_are_rounded_and_stay_inside_the_range():
    points = parse_param_range("weights.points=0:2", GREEDY)
    for u in np.linspace(0, 1, 17):
        value = points.from_unit(float(u))
        assert 0.0 <= value <= 2.0
        assert value == float(f"{value:.4g}")


@pytest.mark.parametrize("text, says", [
    ("weights.pointz=0:2", "no parameter 'weights.pointz'"),
    ("weights=0:2", "not a numeric parameter"),
    ("weights.points=2:1", "must be below"),
    ("weights.points=1:1", "must be below"),
    ("weights.points=a:2", "'a' is not a number"),
    ("weights.points=0:nan", "not a finite number"),
    ("weights.points=0-2", "expected LO:HI"),
    ("weights.points", "expected KEY=LO:HI"),
    ("shortlist=1.5:4", "integer parameter"),
    ("weights.points=0:2:log", "positive low bound"),
])
def test_bad_ranges_are_refused_with_what_is_wrong(text, says):
    with pytest.raises(TuneError, match=says.replace("(", r"\(")):
        parse_param_range(text, GREEDY)


def test_every_key_at_most_once_and_at_least_one():
    with pytest.raises(TuneError, match="more than once"):
        parse_param_ranges(["shortlist=2:4", "shortlist=3:5"], GREEDY)
    with pytest.raises(TuneError, match="at least one"):
        parse_param_ranges([], GREEDY)


def test_numeric_keys_and_with_values_follow_dotted_paths():
    assert "weights.points" in numeric_keys(GREEDY.defaults)
    assert "shortlist" in numeric_keys(GREEDY.defaults)
    ranges = [ParamRange("weights.points", 0, 2), ParamRange("shortlist", 2, 8, integer=True)]
    changed = with_values(GREEDY.defaults, ranges, (1.5, 6))
    assert changed["weights"]["points"] == 1.5 and changed["shortlist"] == 6
    assert changed["weights"]["flexibility"] == GREEDY.defaults["weights"]["flexibility"]
    assert GREEDY.defaults["weights"]["points"] == 1.0   # the defaults are not touched


# ------------------------------------------------------------------ search
def test_search_is_seeded_and_first_draws_cover_the_ranges():
    ranges = [ParamRange("a", 0, 1), ParamRange("b", 10, 20)]
    first = CrossEntropySearch(ranges, seed=5, elite=2).propose([], 50)
    again = CrossEntropySearch(ranges, seed=5, elite=2).propose([], 50)
    other = CrossEntropySearch(ranges, seed=6, elite=2).propose([], 50)
    assert first == again and first != other
    a = np.array([v[0] for v in first])
    assert a.min() < 0.2 and a.max() > 0.8 and all(10 <= v[1] <= 20 for v in first)


def test_later_generations_draw_around_the_best_trials():
    ranges = [ParamRange("a", 0, 10)]
    history = [Trial(0, 0, (5.0,), np.array([-3.0]))]
    history += [Trial(i, 1, (float(v),), np.array([-abs(v - 8.0)])) for i, v in enumerate(range(11), 1)]
    proposals = CrossEntropySearch(ranges, seed=1, elite=3).propose(history, 200)
    values = np.array([v[0] for v in proposals])
    assert abs(values.mean() - 8.0) < 0.5           # the elite is 7, 8, 9
    assert values.min() >= 0 and values.max() <= 10


# --------------------------------------------------------------- objective
def columns(rows: list[tuple[int, str, int, int]]) -> dict[str, list]:
    game, player, total, rank = zip(*rows)
    return {"game": list(game), "player": list(player), "total": list(total), "rank": list(rank)}


def test_objectives_per_game_in_game_order():
    cols = columns([
        (1, "opponent", 50, 1), (1, "tuned", 40, 2),
        (0, "tuned", 70, 1), (0, "opponent", 60, 2),
        (2, "tuned", 55, 1), (2, "opponent", 55, 1),
    ])
    assert per_game_objective(cols, "diff").tolist() == [10.0, -10.0, 0.0]
    assert per_game_objective(cols, "score").tolist() == [70.0, 40.0, 55.0]
    assert per_game_objective(cols, "winrate").tolist() == [1.0, 0.0, 0.5]


def test_objectives_against_several_opponents():
    cols = columns([
        (0, "tuned", 60, 2), (0, "opponent", 70, 1), (0, "opponent-2", 50, 3), (0, "opponent-3", 60, 2),
    ])
    assert per_game_objective(cols, "diff").tolist() == [0.0]
    assert per_game_objective(cols, "winrate").tolist() == [pytest.approx(0.5)]   # (0 + 1 + 0.5) / 3


# ----------------------------------------------------------------- command
def test_tuning_improves_a_bad_start(bad_start):
    document = yaml.safe_load(bad_start["yaml"])
    assert document["strategy"] == "greedy"
    assert document["params"]["weights"]["points"] > 0
    tuning = document["tuning"]
    assert tuning["gain_over_start_low"] > 0        # better than points=0 on paired fresh games
    assert tuning["gain_over_start_low"] <= tuning["gain_over_start"] <= tuning["gain_over_start_high"]
    assert document["tuning"]["start"] == "greedy:weights.points=0"
    assert "trials" in bad_start["printed"] and "against the start" in bad_start["printed"]


def test_same_seed_gives_the_same_table_and_yaml(bad_start, tmp_path):
    out = tmp_path / "again.yaml"
    code, printed, _ = run_cli(BAD_START + ["--out", str(out)])
    assert code == 0
    assert printed.replace(str(out), "X") == bad_start["printed"].replace(
        str(bad_start["folder"] / "best.yaml"), "X")
    assert out.read_text() == bad_start["yaml"]


def test_results_do_not_depend_on_jobs(bad_start, tmp_path):
    out = tmp_path / "parallel.yaml"
    code, _, err = run_cli(BAD_START + ["--jobs", "2", "--out", str(out)])
    assert code == 0, err
    assert out.read_text() == bad_start["yaml"]


@pytest.mark.parametrize("extra, says", [
    (["--param", "weights.nope=0:1"], "no parameter 'weights.nope'"),
    (["--param", "weights.points=3:1"], "must be below"),
    (["--param", "weights.points=x:1"], "'x' is not a number"),
    ([], "at least one --param"),
])
def test_bad_params_are_one_line_and_exit_2(extra, says, capsys):
    line = user_error(["tune", "greedy", "--games", "1", "--trials", "1", *extra], capsys)
    assert says in line


def test_unknown_strategy_or_opponent_is_a_user_error(capsys):
    assert "unknown strategy 'gredy'" in user_error(["tune", "gredy", "-p", "shortlist=1:3"], capsys)
    assert "unknown strategy 'rando'" in user_error(
        ["tune", "greedy", "-p", "shortlist=1:3", "--opponent", "rando"], capsys)


# ------------------------------------------------------------- params_file
def test_a_config_uses_the_tuned_parameters_through_params_file(bad_start, tmp_path):
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "greedy.yaml").write_text(bad_start["yaml"])
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump({"players": [
        {"params_file": "tuned/greedy.yaml", "name": "tuned"},
        {"strategy": "greedy", "params_file": "tuned/greedy.yaml", "params": {"shortlist": 2}},
    ]}))
    spec = load_config(config)
    tuned = yaml.safe_load(bad_start["yaml"])["params"]
    assert spec.players[0].name == "tuned"
    assert spec.players[0].strategy.ref == "greedy"
    assert spec.players[0].strategy.params == tuned
    assert spec.players[1].strategy.params["shortlist"] == 2            # the entry's params win
    assert spec.players[1].strategy.params["weights"] == tuned["weights"]


def test_params_file_problems_name_the_player_and_the_file(tmp_path):
    (tmp_path / "p.yaml").write_text("strategy: greedy\nparams: {weights: {points: 2.0}}\n")
    (tmp_path / "bad.yaml").write_text("strategy: greedy\nparms: {}\n")
    cases = [
        ({"params_file": "missing.yaml"}, "players[0].params_file: " + str(tmp_path / "missing.yaml") + ": file not found"),
        ({"strategy": "random", "params_file": "p.yaml"}, "holds parameters of 'greedy', not of 'random'"),
        ({"params_file": "bad.yaml"}, "bad.yaml: line 2: unknown key"),
        ({"params_file": 3}, "players[0].params_file: must be a file path"),
    ]
    for entry, says in cases:
        with pytest.raises(ConfigError) as info:
            parse_config({"players": [entry, "random"]}, where="c.yaml", base_dir=tmp_path)
        assert says in str(info.value)
        assert str(info.value).startswith("c.yaml: ")
