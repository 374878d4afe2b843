"""Shake That City through the generic commands: `wtsim run` end to end (the
`game:` key), the same table for any number of workers, records that verify and
show, compare, resume, and strategy names resolved within the config's game."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim.config import ConfigError, load_config, parse_config
from welcometo_sim.games import load_game
from welcometo_sim.games.config import GameStrategy
from welcometo_sim.sim.results import read_table

ROOT = Path(__file__).resolve().parents[1]
STC = ROOT / "configs" / "shake-that-city.yaml"
CATEGORIES = load_game("shake-that-city").categories


def run_folder(capsys, tmp_path: Path, name: str, *extra: str, config: Path = STC) -> Path:
    out = tmp_path / name
    code, stdout, err = wtsim(["run", str(config), "--games", "6", "--seed", "5", "--records", "--quiet",
                               "--format", "csv", "--out", str(out), *extra], capsys)
    assert code == 0, err
    assert stdout.strip() == str(out)
    return out


def test_a_game_key_selects_the_game_and_its_own_strategies():
    spec = load_config(STC)
    assert spec.game == "shake-that-city"
    assert all(isinstance(p.strategy, GameStrategy) for p in spec.players)
    assert load_config(ROOT / "configs" / "base.yaml").game == "welcome-to"
    again = parse_config(yaml.safe_load(yaml.safe_dump(spec.to_dict())))
    assert again.game == spec.game and again.game_params == spec.game_params
    assert [p.strategy for p in again.players] == [p.strategy for p in spec.players]


def test_every_bundled_shake_that_city_config_loads_as_that_game():
    paths = sorted((ROOT / "configs").glob("shake-that-city*.yaml"))
    assert len(paths) == 7
    assert {load_config(path).game for path in paths} == {"shake-that-city"}


def test_run_writes_the_games_table_and_jobs_do_not_change_it(capsys, tmp_path):
    one = read_table(run_folder(capsys, tmp_path, "one", "--jobs", "1", "--chunk-size", "6"))
    two = read_table(run_folder(capsys, tmp_path, "two", "--jobs", "2", "--chunk-size", "2"))
    assert list(one.columns) == ["game", *load_game("shake-that-city").columns]
    assert len(one) == 12 and sorted(one["game"].unique()) == list(range(6))
    assert one["qualified"].all() and (one[list(CATEGORIES)].sum(axis=1) == one["total"]).all()
    assert set(one["strategy"]) == {"greedy", "random"}
    pd.testing.assert_frame_equal(one, two)


def test_run_prints_the_games_own_categories(capsys, tmp_path):
    code, out, err = wtsim(["run", str(STC), "--games", "3", "--out", str(tmp_path / "r"), "--format", "csv"],
                           capsys)
    assert code == 0, err
    assert "breakdown" in out and "factories" in out and "plans" not in out
    code, summary, err = wtsim(["summarize", str(tmp_path / "r")], capsys)
    assert code == 0, err
    assert "factories" in summary and "greedy / random" in summary


def test_records_verify_and_a_tampered_one_does_not(capsys, tmp_path):
    records = run_folder(capsys, tmp_path, "rec") / "records.jsonl"
    lines = records.read_text().splitlines()
    assert [json.loads(line)["game"] for line in lines] == list(range(6))
    code, out, err = wtsim(["verify", str(records)], capsys)
    assert code == 0 and out.strip().endswith("6 records checked, 0 with problems"), (out, err)
    tampered = json.loads(lines[3])
    tampered["scores"][1]["total"] += 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps(tampered) + "\n")
    code, out, _err = wtsim(["verify", str(bad)], capsys)
    assert code == 1
    assert f"{bad}:2: game 3: the recorded scores differ" in out


def test_show_renders_a_board_of_the_game(capsys, tmp_path):
    records = run_folder(capsys, tmp_path, "show") / "records.jsonl"
    record = json.loads(records.read_text().splitlines()[2])
    code, out, err = wtsim(["show", str(records), "--game", "2", "--turn", "4"], capsys)
    assert code == 0, err
    assert out.startswith(f"shake-that-city, seed {record['seed']}, after round 4")
    assert out.count("seat ") == 2 and "total" not in out
    code, end, _ = wtsim(["show", str(records), "--game", "2"], capsys)
    assert code == 0 and f"total {record['scores'][0]['total']} " in end
    assert user_error(["show", str(records), "--game", "2", "--turn", "99"], capsys) \
        == "wtsim: error: --turn 99: game 2 has turns 0 to 15"


def test_compare_plays_the_configs_game(capsys):
    code, out, err = wtsim(["compare", "greedy", "lookahead:samples=2", "random", "--config", str(STC),
                            "--games", "2", "--quiet"], capsys)
    assert code == 0, err
    assert "factories" in out and "greedy" in out and "win_rates" in out


def test_resume_finishes_a_run_of_the_game(capsys, tmp_path):
    whole = read_table(run_folder(capsys, tmp_path, "whole", "--chunk-size", "2"))
    part = run_folder(capsys, tmp_path, "part", "--chunk-size", "2")
    manifest = json.loads((part / "manifest.json").read_text())
    (part / "results.csv").unlink()
    manifest["status"] = "running"
    (part / "manifest.json").write_text(json.dumps(manifest))
    code, _out, err = wtsim(["run", "--resume", str(part), "--quiet"], capsys)
    assert code == 0, err
    pd.testing.assert_frame_equal(read_table(part), whole)


@pytest.mark.parametrize("game, strategy, other", [
    ("shake-that-city", "heuristic", "welcome-to"),
    ("shake-that-city", "planner", "welcome-to"),
])
def test_a_strategy_of_the_other_game_is_one_line(capsys, tmp_path, game, strategy, other):
    config = tmp_path / "mixed.yaml"
    config.write_text(yaml.safe_dump({"game": game, "players": ["greedy", strategy]}))
    line = user_error(["run", str(config), "--games", "1"], capsys)
    assert line == (f"wtsim: error: {config}: players[1].strategy: {strategy!r} is a {other} strategy, "
                    f"not one of {game} (strategies of {game}: random, greedy, lookahead, learned)")
    assert "is a welcome-to strategy" in user_error(
        ["compare", "greedy", strategy, "--config", str(STC), "--games", "1"], capsys)


@pytest.mark.parametrize("raw, key", [
    ({"game": "shake-that-city", "variant": {"board": "base"}, "players": ["greedy"]}, "variant.board"),
    ({"game": "shake-that-city", "variant": {"solo": True}, "players": ["greedy", "random"]}, "variant.solo"),
    ({"game": "shake-it", "players": ["greedy"]}, "game"),
    ({"game": "shake-that-city", "players": [{"strategy": "greedy", "params": {"depth": 2}}, "random"]},
     "players[0].params"),
])
def test_config_errors_name_the_file_and_key(tmp_path, raw, key):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: {key}: ")
    assert "\n" not in str(caught.value)


def test_a_chunk_replayed_in_fresh_processes_gives_the_same_games():
    from welcometo_sim.sim.isolated import play_isolated
    from welcometo_sim.sim.runner import play_chunk

    spec = load_config(STC).with_overrides(games=3, seed=5)
    fresh, here = play_isolated(spec, 0, 3, True), play_chunk(spec, 0, 3, True)
    assert fresh.errors == [] and fresh.columns == here.columns and fresh.records == here.records
    assert len(fresh.columns["game"]) == 6


def test_a_strategy_that_raises_is_an_error_row_under_skip(monkeypatch):
    from welcometo_sim.games.shake_that_city.strategies import GreedyStrategy
    from welcometo_sim.sim.runner import play_chunk

    def broken(self, view, moves):
        if view.round == 3:
            raise RuntimeError("no")
        return moves[0]
    monkeypatch.setattr(GreedyStrategy, "choose", broken)
    spec = load_config(STC).with_overrides(games=2, seed=5, on_error="skip")
    chunk = play_chunk(spec, 0, 2, False)
    assert chunk.columns["game"] == [] and chunk.failure is None
    assert [(e["game"], e["seat"], e["strategy"], e["turn"]) for e in chunk.errors] == [(0, 0, "greedy", 3),
                                                                                       (1, 0, "greedy", 3)]
    assert chunk.errors[0]["message"] == "raised RuntimeError: no"


def test_a_move_timeout_is_refused_for_another_game(capsys, tmp_path):
    line = user_error(["run", str(STC), "--games", "1", "--move-timeout", "2", "--out", str(tmp_path / "x")],
                      capsys)
    assert line == "wtsim: error: --move-timeout: limits Welcome To strategies only (not shake-that-city's)"
    config = tmp_path / "t.yaml"
    config.write_text(yaml.safe_dump({"game": "shake-that-city", "move_timeout": 2, "players": ["greedy"]}))
    assert user_error(["run", str(config)], capsys).startswith(f"wtsim: error: {config}: move_timeout: ")


def test_a_sequential_compare_of_one_strategy_twice_plays_the_configs_game(capsys):
    code, out, err = wtsim(["compare", "lookahead:samples=1,candidates=1", "lookahead:samples=1,candidates=1",
                            "--config", str(STC), "--until-significant", "--max-games", "4", "--batch", "2",
                            "--quiet"], capsys)
    assert code == 0 and err == "", err
    assert "verdict:" in out and "factories" in out


@pytest.fixture(scope="module")
def stc_record(tmp_path_factory) -> dict:
    from welcometo_sim.sim.runner import play_chunk

    chunk = play_chunk(load_config(STC).with_overrides(games=1, seed=5), 0, 1, True)
    return json.loads(chunk.records[0])


MUTANTS = [None, 0, -1, 1.5, "x", [], {}, [1], {"a": 1}, True, 10**30, "shake-that-city"]


def _record_paths(obj, prefix=()):
    if prefix:
        yield prefix
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _record_paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj[:2]):
            yield from _record_paths(value, (*prefix, i))


def test_mutated_records_of_the_game_are_a_problem_line_never_a_crash(capsys, tmp_path, stc_record):
    import copy
    import random

    paths = list(_record_paths(stc_record))
    rng = random.Random(3)
    path = tmp_path / "m.jsonl"
    outcomes = set()
    for _ in range(60):
        record = copy.deepcopy(stc_record)
        where = rng.choice(paths)
        node = record
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = rng.choice(MUTANTS)
        path.write_text(json.dumps(record) + "\n")
        for argv in (["verify", str(path)], ["show", str(path), "--game", "0"]):
            code, out, err = wtsim(argv, capsys)
            assert "Traceback" not in out + err
            assert code in (0, 1, 2), (argv, code)
            if code == 2:
                assert err.count("\n") == 1 and err.startswith("wtsim: error: "), err
            outcomes.add((argv[0], code))
    assert {("verify", 0), ("verify", 1), ("show", 2)} <= outcomes


def test_report_of_a_run_and_a_compare_of_the_game_shows_its_own_tables(capsys, tmp_path):
    run = run_folder(capsys, tmp_path, "run")
    code, stdout, err = wtsim(["report", str(run)], capsys)
    assert code == 0, err
    text = (run / "report" / "report.md").read_text(encoding="utf-8")
    assert "shake-that-city, 2 players" in text and "### breakdown" in text
    assert all(category in text for category in CATEGORIES)
    assert sorted(p.name for p in (run / "report").glob("*.png")) == ["scores.png", "win_rates.png"]
    compare = tmp_path / "compare"
    code, _, err = wtsim(["compare", "greedy", "random", "--config", str(STC), "--games", "4", "--seed", "2",
                          "--out", str(compare)], capsys)
    assert code == 0, err
    code, stdout, err = wtsim(["report", str(compare)], capsys)
    assert code == 0, err
    assert "### ratings" in (compare / "report" / "report.md").read_text(encoding="utf-8")


# ---------------------------------------------- one behaviour for both games (issue 25, item 14)
@pytest.fixture(scope="module")
def welcome_to_record() -> dict:
    from welcometo_sim.games.welcome_to.game import Seat, play_game
    from welcometo_sim.games.welcome_to.variant import Variant
    from welcometo_sim.strategy import parse_strategy

    seats = [Seat("greedy", "greedy", parse_strategy("greedy"))] * 2
    record = play_game(Variant(), seats, 5, record=True).record
    return {"format": record["format"], "game": 0, **record}


@pytest.mark.parametrize("game", ["welcome-to", "shake-that-city"])
def test_show_past_the_last_turn_is_one_error_line_for_both_games(game, capsys, tmp_path, stc_record,
                                                                  welcome_to_record):
    record = stc_record if game == "shake-that-city" else welcome_to_record
    last = len(record["rounds"] if game == "shake-that-city" else record["turns"])
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, out, err = wtsim(["show", str(path), "--game", "0", "--turn", str(last)], capsys)
    assert code == 0 and out, err
    for turn in (last + 1, 9999):
        for extra in ([], ["--html"]):
            assert user_error(["show", str(path), "--game", "0", "--turn", str(turn), *extra], capsys) \
                == f"wtsim: error: --turn {turn}: game 0 has turns 0 to {last}"


@pytest.mark.parametrize("malformed", [
    lambda r: r.pop("rounds"),
    lambda r: r.update(seed="five"),
    lambda r: r.update(format="welcometo-sim/shake-that-city/game/3"),
    lambda r: r["rounds"][0].pop("moves"),
])
def test_verify_of_a_malformed_record_of_the_game_exits_2(malformed, capsys, tmp_path, stc_record):
    import copy

    record = copy.deepcopy(stc_record)
    malformed(record)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, out, err = wtsim(["verify", str(path)], capsys)
    assert code == 2 and out == "", (out, err)
    assert err.startswith(f"wtsim: error: {path}:1: game 0: malformed record: ") and err.count("\n") == 1, err
