"""`wtsim sweep`: every grid point compared with the first on the same games."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from helpers import user_error, wtsim
from welcometo_sim.analysis.sweep import BASELINE, NO_CHANGE, SAME, sweep

SETTING = "plans.estates-2-2-2-2.points=[2,1],[16,8]"


def fake_results(shift: int, games: int = 40) -> pd.DataFrame:
    """A two-player result table whose first player's totals are raised by `shift`
    (the same games otherwise: what paired seeds give)."""
    rng = np.random.default_rng(7)
    rows = []
    for game in range(games):
        base = int(rng.integers(20, 80))
        for seat, player in enumerate(("a", "b")):
            total = base + (shift if player == "a" else -seat * int(rng.integers(0, 30)))
            rows.append({"game": game, "player": player, "total": total, "turns": 30 + game % 5,
                         "end_reason": "refusals" if game % 2 else "plans", "plans": seat * 3,
                         "plan1": "p1", "plan2": "p2", "plan3": "p3",
                         "plan1_turn": pd.NA if game % 3 else 10, "plan2_turn": pd.NA, "plan3_turn": 5})
    frame = pd.DataFrame(rows)
    frame["won"] = frame.groupby("game")["total"].transform("max") == frame["total"]
    return frame


def test_differences_are_paired_game_by_game_against_the_first_point():
    table = sweep({"x": 0}, ["x=0,3,-2"], lambda config: fake_results(config["x"]))
    score = table[table["measure"] == "score a"].set_index("point")
    assert list(score["change"]) == [BASELINE, "higher", "lower"]
    # the same shift in every game: the paired difference has no spread at all,
    # though each point's own interval is wide (the deal's luck)
    assert score.loc[1, ["diff", "diff_low", "diff_high"]].tolist() == [3.0, 3.0, 3.0]
    assert score.loc[2, ["diff", "diff_low", "diff_high"]].tolist() == [-2.0, -2.0, -2.0]
    assert score.loc[1, "value_high"] - score.loc[1, "value_low"] > 10
    other = table[table["measure"] == "score b"].set_index("point")
    assert list(other["change"]) == [BASELINE, SAME, SAME]
    completion = table[table["measure"] == "plan 1 completed (p1)"].set_index("point")
    assert completion.loc[0, "value"] == 28 / 80  # games 0, 3, …, 39, both seats
    assert 0 <= completion.loc[0, "value_low"] < completion.loc[0, "value"] < completion.loc[0, "value_high"] <= 1


def test_a_noisy_difference_is_not_called_a_change():
    def run(config: dict) -> pd.DataFrame:
        frame = fake_results(0)
        if config["x"]:
            noise = np.random.default_rng(1).choice([-1, 1], size=len(frame))
            frame["total"] = frame["total"] + noise
        return frame

    table = sweep({"x": 0}, ["x=0,1"], run)
    row = table[(table["measure"] == "score a") & (table["point"] == 1)].iloc[0]
    assert row["diff_low"] < 0 < row["diff_high"] and row["change"] == NO_CHANGE


def config_file(tmp_path: Path) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"games": 6, "seed": 3, "players": ["greedy", "random"],
                                    "variant": {"plans": ["estates-2-2-2-2", None, None]}}))
    return str(path)


def test_printed_sweep_fits_100_columns_without_nan(tmp_path, capsys):
    code, out, _ = wtsim(["sweep", config_file(tmp_path), "--set", SETTING, "--quiet"], capsys)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "nan" not in out.lower() and "-0.00" not in out
    assert "score greedy" in out and "baseline" in out and "[" in out


def test_json_and_csv_are_one_document_on_stdout(tmp_path, capsys):
    config = config_file(tmp_path)
    code, out, err = wtsim(["sweep", config, "--set", SETTING, "--json", "--out", str(tmp_path / "o")], capsys)
    assert code == 0
    document = json.loads(out)
    assert document["baseline"] == 0 and document["seed"] == 3 and document["games"] == 6
    assert [p["set"] for p in document["points"]] == [{"plans.estates-2-2-2-2.points": [2, 1]},
                                                      {"plans.estates-2-2-2-2.points": [16, 8]}]
    assert {row["point"] for row in document["rows"]} == {0, 1}
    assert "tables written" in err
    code, out, _ = wtsim(["sweep", config, "--set", SETTING, "--csv"], capsys)
    table = pd.read_csv(io.StringIO(out))
    assert {"point", "measure", "value", "value_low", "diff", "diff_low", "change"} <= set(table.columns)
    written = pd.read_csv(tmp_path / "o" / "sweep.csv")
    assert written["value"].tolist() == table["value"].tolist()


def test_json_with_csv_is_a_user_error(tmp_path, capsys):
    assert "choose one" in user_error(["sweep", config_file(tmp_path), "--set", SETTING, "--json", "--csv"],
                                      capsys)


def test_the_progress_bar_counts_every_game_of_every_grid_point(tmp_path, capsys, monkeypatch):
    import welcometo_sim.cli.common as commands

    seen: dict[str, object] = {"ticks": []}

    class Bar:
        def close(self) -> None:
            seen["closed"] = True

    def progress(total: int, quiet: bool):
        seen["total"], seen["quiet"] = total, quiet
        return seen["ticks"].append, Bar()

    monkeypatch.setattr(commands, "make_progress", progress)
    code, _, _ = wtsim(["sweep", config_file(tmp_path), "--set", "games=2,5", "--csv"], capsys)
    assert code == 0
    assert seen["total"] == sum(seen["ticks"]) == 7 and seen["closed"] and seen["quiet"] is False
    wtsim(["sweep", config_file(tmp_path), "--set", "games=2,5", "--csv", "--quiet"], capsys)
    assert seen["quiet"] is True


def test_a_renamed_player_is_compared_with_the_player_in_its_place():
    def run(config: dict) -> pd.DataFrame:
        frame = fake_results(config["x"])
        frame["seat"] = frame["player"].map({"a": 0, "b": 1})
        if config["x"]:
            frame["player"] = frame["player"].map({"a": "c", "b": "b"})
        return frame

    table = sweep({"x": 0}, ["x=0,4"], run)
    renamed = table[(table["measure"] == "score c") & (table["point"] == 1)].iloc[0]
    assert renamed[["diff", "diff_low", "diff_high"]].tolist() == [4.0, 4.0, 4.0]
    assert list(table.loc[table["point"] == 0, "measure"][:4]) == ["score a", "win a", "score b", "win b"]


def test_long_grid_values_are_wrapped_within_100_columns():
    bis = "[" + ",".join(["12"] * 30) + "]"
    table = sweep({"x": 0, "y": 0}, [f"x={bis},{bis}", "y=1,2"], lambda config: fake_results(config["y"]))
    from welcometo_sim.analysis.sweep import sweep_text

    text = sweep_text(table)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "point 3: x=" in text
