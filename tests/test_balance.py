"""`wtsim balance`: integer plan values that even out a deck, confirmed on fresh seeds,
written as a config `wtsim run` plays."""

from __future__ import annotations

import json
import pandas as pd
import pytest
import yaml

from welcometo_sim.analysis.balance import next_points, spread_interval, with_points
from welcometo_sim.config import load_config, parse_config
from welcometo_sim.sim.results import read_table

from helpers import user_error, wtsim


def test_values_move_towards_the_target_as_integers_keeping_their_ratio():
    points = {"a": (8, 4), "b": (10, 6), "c": (6, 3), "d": (8, 4)}
    worth = pd.Series({"a": 4.0, "b": 1.0, "c": 2.0, "d": 0.0})
    new = next_points(points, worth, target=2.0)
    assert new["a"] == (4, 2)          # worth twice the target: halved
    assert new["b"] == (20, 12)        # at most doubled in one round
    assert new["c"] == (6, 3)          # on target: unchanged
    assert new["d"] == (16, 8)         # never completed: doubled, not infinite
    assert next_points({"e": (2, 1)}, pd.Series({"e": 9.0}), 1.0) == {"e": (2, 1)}  # high above low, both >= 1


def test_overrides_set_the_points_and_keep_the_other_overrides():
    spec = parse_config({"players": ["random"], "overrides": {"tracks": {"bis_track": [0] * 10}}})
    changed = with_points(spec, {"estates-4-4": (9, 5)})
    plan = next(p for p in changed.rules.variant.plan_deck(1) if p.id == "estates-4-4")
    assert tuple(plan.points) == (9, 5)
    assert changed.rules.variant.overrides["tracks"] == {"bis_track": [0] * 10}


def test_spread_interval_resamples_game_seeds():
    worth = pd.DataFrame({"a": [2.0, 4.0] * 50, "b": [1.0, 1.0] * 50})
    spread, low, high = spread_interval(worth)
    assert spread == pytest.approx(2.0) and low < 2.0 < high
    even = pd.DataFrame({"a": [3.0] * 20, "b": [3.0] * 20})
    assert spread_interval(even) == (0.0, 0.0, 0.0)


def test_balance_writes_a_config_that_run_plays(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    # deterministic seats (greedy would explore at its default temperature here): 6 games move a value
    config.write_text(yaml.safe_dump({"name": "two", "seed": 4, "players": ["greedy:temperature=0"] * 2}))
    out = tmp_path / "balanced.yaml"
    code, stdout, err = wtsim(["balance", str(config), "--deck", "1", "--games", "6", "--rounds", "2",
                               "--final-games", "6", "-q", "--out", str(out)], capsys)
    assert code == 0, err
    assert "spread:" in stdout and "fresh games" in stdout and "nan" not in stdout.lower()
    document = yaml.safe_load(out.read_text())
    assert [p["strategy"] for p in document["players"]] == ["greedy", "greedy"]
    changed = document["overrides"]["plans"]
    assert changed and all(isinstance(v, int) and v >= 1 for c in changed.values() for v in c["points"])
    spec = load_config(out)
    for plan in spec.rules.variant.plan_deck(1):
        if plan.id in changed:
            assert list(plan.points) == changed[plan.id]["points"]
    code, _, err = wtsim(["run", str(out), "--games", "2", "-q", "--out", str(tmp_path / "run")], capsys)
    assert code == 0, err
    assert len(read_table(tmp_path / "run")) == 4


def test_balance_json_is_one_document_with_the_written_overrides(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"name": "two", "seed": 4, "players": ["greedy:temperature=0"] * 2}))
    out = tmp_path / "balanced.yaml"
    code, stdout, err = wtsim(["balance", str(config), "--deck", "1", "--games", "4", "--rounds", "2",
                               "--final-games", "4", "-q", "--json", "--out", str(out)], capsys)
    assert code == 0, err
    document = json.loads(stdout)  # the whole of stdout: nothing else is printed there
    assert document["command"] == "balance" and document["deck"] == 1 and document["seed"] == 4
    assert document["games"] == 4 and document["fresh_games"] == 4 and document["file"] == str(out)
    assert set(document["rounds"]) and "spread (best - worst)" in document["confirmation"]
    assert document["overrides"] == yaml.safe_load(out.read_text())["overrides"]
    assert f"balanced config written to {out}" in err


def test_balance_needs_a_deck(capsys):
    assert "--deck" in user_error(["balance"], capsys)
