"""Objectives as a game capability on Shake That City: `wtsim plans`, `balance`
and `sweep` on its bonus tiles (and construction pairs), checked against the
games' own records and scores on a few seeded games."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim import analyses
from welcometo_sim.config import load_config
from welcometo_sim.games import GAMES
from welcometo_sim.games.objectives import NoObjectives, objectives_of
from welcometo_sim.games.shake_that_city import load_rules, play_game
from welcometo_sim.games.shake_that_city.objectives import OBJECTIVES, completion_rounds
from welcometo_sim.sim.runner import run_chunks

ROOT = Path(__file__).resolve().parents[1]
STC = ROOT / "configs" / "shake-that-city.yaml"
POINTS = {2: 5, 7: 1}
"""Tile points of their own, so that a tile's points are not its count times 3."""


def stc_config(tmp_path: Path, name: str = "c.yaml", **changes) -> Path:
    document = {**yaml.safe_load(STC.read_text(encoding="utf-8")), **changes}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", [3, 11])
def test_completion_read_from_a_record_agrees_with_the_games_scores(seed):
    params = {"variant": {"construction": True}, "overrides": {"bonus": {"points": POINTS}}}
    result = play_game(["greedy", "random"], seed, params)
    rules = load_rules(params, 2)
    done = completion_rounds(result.record, rules)
    for seat, score in enumerate(result.record["scores"]):
        tiles = [int(k[len("tile-"):]) for k in done[seat] if k.startswith("tile-")]
        pairs = [k for k in done[seat] if k.startswith("pair-")]
        assert len(tiles) == score["flipped"]
        assert sum(rules.data.tile_value(t) for t in tiles) == score["bonus"]
        assert len(pairs) == len(rules.data.construction_pairs) - score["construction_left"]
        assert all(1 <= r <= rules.data.rounds for r in done[seat].values())


def test_every_tile_is_in_every_trial_game_and_its_round_is_the_records():
    spec = replace(load_config(STC), seed=7, jobs=1, game_params={"variant": {}, "overrides":
                                                                  {"bonus": {"points": POINTS}}})
    trials = OBJECTIVES.trials(spec, 3, (1,), None)
    records: dict[int, dict] = {}

    def keep(chunk) -> None:
        for line in chunk.records:
            record = json.loads(line)
            records[record["game"]] = record
    columns, _ = run_chunks(replace(spec, games=3), record=True, on_chunk=keep)
    rules = load_rules(spec.game_params, 2)
    tiles = sorted(f"tile-{t}" for t in rules.data.tile_ids)
    assert sorted(trials["forced_plan"].unique()) == tiles
    for tile, block in trials.groupby("forced_plan"):
        assert sorted(block["game"].unique()) == [0, 1, 2]          # forced: in play in every trial game
        for game, seat, completed in zip(block["game"], block["seat"], block["objective_round"]):
            assert int(tile[len("tile-"):]) in records[game]["tiles"]
            expected = completion_rounds(records[game], rules)[seat].get(tile)
            assert (None if pd.isna(completed) else int(completed)) == expected
    per_seat = trials.assign(done=trials["objective_round"].notna(),
                             points=[rules.data.tile_value(int(t[len("tile-"):])) if d else 0 for t, d in
                                     zip(trials["forced_plan"], trials["objective_round"].notna())])
    sums = per_seat.groupby(["game", "seat"]).agg(flipped=("done", "sum"), bonus=("points", "sum"),
                                                   scored=("bonus", "first"), counted=("flipped", "first"))
    assert (sums["flipped"] == sums["counted"]).all() and (sums["bonus"] == sums["scored"]).all()
    assert columns["game"] == [0, 0, 1, 1, 2, 2]


def test_plans_on_shake_that_city_prints_tiles_with_a_skill_trace_and_rebuilds_from_out(capsys, tmp_path):
    out = tmp_path / "plans"
    argv = ["plans", str(STC), "--games-per-plan", "2", "--strategies", "random,greedy", "-q", "--json"]
    code, printed, err = wtsim([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    document = json.loads(printed)
    assert sorted(document["plans"]) == [f"tile-{t}" for t in range(1, 8)]
    assert {row["deck"] for row in document["plans"].values()} == {1}
    assert all(row["high_points"] == row["low_points"] == 3 for row in document["plans"].values())
    assert document["skills"] == ["random", "greedy"] and document["skill_slope"]
    code, again, err = wtsim(["plans", str(STC), "--results", str(out), "-q", "--json"], capsys)
    assert code == 0, err
    assert json.loads(again)["plans"] == document["plans"]
    code, text, _ = wtsim(["plans", str(STC), "--results", str(out), "-q"], capsys)
    assert "tile-7" in text and "high_share" not in text and "skill slope" in text


def test_construction_pairs_are_deck_two_and_score_nothing(tmp_path, capsys):
    config = stc_config(tmp_path, variant={"construction": True})
    study = analyses.plans(str(config), games_per_plan=2, seed=2, jobs=1, decks=[2], strategy="greedy")
    assert sorted(study.plans.index) == ["pair-factory-road", "pair-home-park", "pair-home-shop",
                                         "pair-shop-road"]
    assert (study.plans["points_per_game"] == 0).all() and (study.plans["deck"] == 2).all()
    line = user_error(["balance", str(config), "--deck", "2", "--games", "1", "--out", str(tmp_path / "b.yaml")],
                      capsys)
    assert line == "wtsim: error: --deck 2: the construction pairs score no points; nothing to balance"


@pytest.mark.parametrize("argv, message", [
    (["plans", str(STC), "--deck", "2", "-n", "1", "-q"],
     "--deck 2: this config's objectives come in deck 1 (bonus tiles)"),
    (["balance", str(STC), "--deck", "3", "--games", "1", "--out", "never-written.yaml"],
     "--deck 3: this config's objectives come in deck 1 (bonus tiles)"),
])
def test_a_deck_the_game_does_not_have_is_one_line(capsys, argv, message):
    assert user_error(argv, capsys) == f"wtsim: error: {message}"


def test_a_bonus_tile_points_key_that_is_no_tile_is_one_line(capsys, tmp_path):
    config = stc_config(tmp_path, overrides={"bonus": {"points": {9: 4}}})
    line = user_error(["run", str(config), "--games", "1", "--out", str(tmp_path / "r")], capsys)
    assert line.endswith("bonus.points.9: not a bonus tile (known: 1, 2, 3, 4, 5, 6, 7)"), line


def test_a_results_folder_of_other_objectives_is_one_line(capsys, tmp_path):
    out = tmp_path / "plans"
    code, _, err = wtsim(["plans", str(STC), "-n", "1", "-q", "--out", str(out)], capsys)
    assert code == 0, err
    table = (out / "results.csv").read_text(encoding="utf-8").replace("tile-3", "tile-9")
    (out / "results.csv").write_text(table, encoding="utf-8")
    line = user_error(["plans", str(STC), "--results", str(out), "-q"], capsys)
    assert line == "wtsim: error: plans: tile-9 not in the config's variant"


def test_a_game_without_objectives_says_so(monkeypatch):
    monkeypatch.setitem(GAMES, "objectiveless", "json")  # a module with none of a game's objectives
    with pytest.raises(NoObjectives, match="objectiveless defines no objectives to balance"):
        objectives_of("objectiveless")


def test_balance_lowers_an_over_strong_tile_and_writes_a_config_that_runs(capsys, tmp_path):
    config = stc_config(tmp_path, overrides={"bonus": {"points": {3: 12}}}, players=["greedy", "greedy"])
    balanced = analyses.balance(str(config), deck=1, games=3, rounds=2, final_games=3, seed=4, jobs=1)
    first, second = balanced.result.rounds
    assert first.points["tile-3"] == (12, 12) and second.points["tile-3"][0] < 12
    assert second.means["tile-3"] < first.means["tile-3"]
    assert all(high == low for high, low in second.points.values())
    points = balanced.config["overrides"]["bonus"]["points"]
    assert points[3] == balanced.result.best.points["tile-3"][0]
    written = tmp_path / "balanced.yaml"
    written.write_text(yaml.safe_dump(balanced.config), encoding="utf-8")
    code, _, err = wtsim(["run", str(written), "--games", "1", "--out", str(tmp_path / "run"), "-q"], capsys)
    assert code == 0, err


def test_sweep_over_a_tiles_points_moves_the_bonus_category(capsys):
    code, out, err = wtsim(["sweep", str(STC), "--set", "overrides.bonus.points.4=3,9", "--games", "2", "-q",
                            "--json"], capsys)
    assert code == 0, err
    rows = {(row["point"], row["measure"]): row for row in json.loads(out)["rows"]}
    bonus0, bonus1 = rows[(0, "bonus per player-game")], rows[(1, "bonus per player-game")]
    flipped0, flipped1 = (rows[(p, "bonus tiles flipped per player-game")] for p in (0, 1))
    assert bonus1["value"] > bonus0["value"] and bonus1["diff"] > 0
    assert flipped0["n"] == flipped1["n"] == 4 and ("score greedy" in {m for _p, m in rows})
