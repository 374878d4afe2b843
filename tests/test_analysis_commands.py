"""compare, plans and sweep: tournaments, plan balance and what-if grids."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from welcometo_sim.analysis.compare import comparison_tables
from welcometo_sim.analysis.plan_balance import flag_outliers, plan_balance_table
from welcometo_sim.analysis.sweep import SweepError, grid, parse_setting
from welcometo_sim.config import parse_config
from welcometo_sim.games.welcome_to.data import BASIC_PLANS
from welcometo_sim.games.welcome_to.objectives import plan_trials, slot_outcome
from welcometo_sim.sim.tournament import matches, round_robin

from helpers import user_error, wtsim


def write_config(tmp_path: Path, raw: dict, name: str = "c.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw))
    return str(path)


# ----------------------------------------------------------------- compare
def test_round_robin_plays_every_pair_on_the_same_seeds_with_rotated_seats():
    spec = parse_config({"games": 4, "seed": 5, "players": ["random", "random", "random"]})
    assert len(matches(spec.players, table=False)) == 3
    frame = round_robin(spec)
    assert sorted(frame["match"].unique()) == [0, 1, 2]
    seeds = frame.groupby("match")["seed"].apply(lambda s: sorted(set(s)))
    assert seeds[0] == seeds[1] == seeds[2]          # common random numbers
    first = frame[(frame["match"] == 0)].sort_values(["game", "seat"])
    seat0 = first[first["seat"] == 0]["player"].tolist()
    assert seat0 == ["random", "random-2", "random", "random-2"]   # seats alternate


def test_table_mode_seats_everybody_together():
    spec = parse_config({"games": 3, "seed": 1, "players": ["random", "random", "random"]})
    frame = round_robin(spec, table=True)
    assert frame.groupby("game").size().eq(3).all()
    assert frame["match"].eq(0).all()


def test_solo_strategies_are_compared_alone_on_the_same_cards():
    raw = {"games": 4, "seed": 3, "variant": {"solo": True}}
    players = parse_config({"players": ["random", "greedy"]}).players  # as `compare random greedy` names them
    frame = round_robin(replace(parse_config({**raw, "players": ["random"]}), players=players))
    assert frame.groupby("game").size().eq(2).all()  # each game: both strategies, each alone
    assert frame["match"].eq(0).all() and frame["n_players"].eq(1).all()
    assert frame.groupby("game")["seed"].nunique().eq(1).all()  # the same cards
    for strategy in ("random", "greedy"):  # each scored what it scores playing those seeds alone
        alone = round_robin(parse_config({**raw, "players": [strategy]}))
        assert frame[frame["strategy"] == strategy]["total"].tolist() == alone["total"].tolist()
    for _, game in frame.groupby("game"):  # the rank says who scored more on those cards
        best = game.loc[game["total"].idxmax()]
        assert best["rank"] == 1
        assert (game["rank"] == 1).sum() == (game["total"] == best["total"]).sum()
    pairs = comparison_tables(frame)["pairs"]
    totals = frame.pivot(index="game", columns="player", values="total")
    assert pairs.loc[("random", "greedy"), "mean_diff"] == pytest.approx((totals["random"] - totals["greedy"]).mean())
    assert pairs.loc[("random", "greedy"), "a_win_rate"] < 0.5


def test_shake_that_city_solo_strategies_are_compared_alone_too(capsys):
    code, out, err = wtsim(["compare", "random", "greedy", "--config", "configs/shake-that-city-solo.yaml",
                            "--games", "3", "--seed", "2", "--quiet", "--json"], capsys)
    assert code == 0, err
    pairs = json.loads(out)["pairs"]
    assert pairs["random vs greedy"]["games"] == 3


def test_comparison_tables_say_when_a_difference_is_not_significant():
    spec = parse_config({"games": 40, "seed": 2, "players": ["random", "random", "greedy"]})
    tables = comparison_tables(round_robin(spec), seed=0)
    pairs = tables["pairs"]
    assert pairs.loc[("random", "random-2"), "verdict"] == "not significant"
    assert pairs.loc[("random", "greedy"), "verdict"] == "greedy scores more"
    assert pairs.loc[("random", "greedy"), "mean_diff_high"] < 0
    assert list(tables["ratings"].index)[0] == "greedy"
    rates = tables["win_rates"]
    assert pd.isna(rates.loc["greedy", "greedy"])  # a player against itself: missing, not "-"
    against = pairs.loc[("random", "greedy")]
    assert rates.loc["random", "greedy"] == against["a_win_rate"]
    assert rates.loc["greedy", ["random", "random_low", "random_high"]].tolist() == pytest.approx(
        [1 - against["a_win_rate"], 1 - against["a_win_rate_high"], 1 - against["a_win_rate_low"]])
    assert pd.api.types.is_integer_dtype(tables["ratings"]["comparisons"])
    assert tables["ratings"].loc["greedy", "comparisons"] == 2 * 40  # 40 games against each other player
    assert set(tables) == {"win_rates", "pairs", "ratings", "breakdown"}


def test_compare_output_is_identical_for_the_same_seed(capsys):
    argv = ["compare", "random", "random:roundabout_rate=0.5", "--games", "12", "--seed", "4", "-q"]
    first = wtsim(argv, capsys)
    second = wtsim(argv, capsys)
    assert first[0] == 0 and first == second
    assert "win_rates" in first[1] and "ratings" in first[1]


def test_compare_writes_tables_and_reads_them_back(tmp_path, capsys):
    out = tmp_path / "cmp"
    code, printed, _ = wtsim(["compare", "random", "random", "--games", "6", "--seed", "1", "-q",
                              "--out", str(out), "--format", "json"], capsys)
    assert code == 0
    for name in ("win_rates", "pairs", "ratings", "breakdown"):
        assert (out / f"{name}.json").is_file()
    code, again, _ = wtsim(["compare", "--results", str(out)], capsys)
    assert code == 0
    assert again.split("\n\ntables written")[0].strip() == printed.split("\n\ntables written")[0].strip()


def test_compare_needs_two_strategies(capsys):
    assert "at least two" in user_error(["compare", "random", "--games", "2"], capsys)


# ------------------------------------------------------------------- plans
def test_plan_trials_force_each_plan_into_its_slot_on_common_seeds():
    spec = parse_config({"games": 1, "seed": 3, "players": ["random", "random"]})
    trials = plan_trials(spec, games_per_plan=3, decks=(2,))
    assert sorted(trials["forced_plan"].unique()) == sorted(p.id for p in BASIC_PLANS if p.deck == 2)
    assert (trials["plan2"] == trials["forced_plan"]).all()
    seeds = trials.groupby("forced_plan")["seed"].apply(lambda s: tuple(sorted(set(s))))
    assert seeds.nunique() == 1


def test_plan_balance_metrics_on_a_hand_made_table():
    """Two plans of deck 1, two games of two players each, with known completions."""
    plans = {p.id: p for p in BASIC_PLANS}
    rows = []
    for plan_id, turns, firsts in [("estates-4-4", [10, 12, None, None], [True, False, False, False]),
                                   ("estates-6-6", [None, None, None, None], [False] * 4)]:
        for i, (turn, first) in enumerate(zip(turns, firsts)):
            rows.append({"forced_deck": 1, "forced_plan": plan_id, "game": i // 2, "player": f"p{i % 2}",
                         "plan1_turn": turn, "plan1_first": first, "total": 40 + i, "turns": 20 + i // 2})
    trials = pd.DataFrame(rows)
    trials["plan1_turn"] = trials["plan1_turn"].astype("Int16")
    table = plan_balance_table(trials, plans, slot_outcome)
    row = table.loc["estates-4-4"]
    assert row["completion_rate"] == 0.5
    assert row["median_turn"] == 11
    assert row["high_share"] == 0.5
    assert row["points_per_game"] == (6 + 3) / 4
    assert table.loc["estates-6-6", "points_per_game"] == 0
    assert list(table.index) == ["estates-4-4", "estates-6-6"]


def test_outliers_are_plans_far_from_their_decks_median():
    table = pd.DataFrame({"deck": [1] * 6, "completion_rate": [0.5, 0.52, 0.48, 0.51, 0.49, 0.95],
                          "points_per_game": [2.0] * 6})
    for metric in ("completion_rate", "points_per_game"):  # intervals narrow enough to exclude the median
        table[f"{metric}_low"], table[f"{metric}_high"] = table[metric] - 0.05, table[metric] + 0.05
    flags = flag_outliers(table)
    assert flags.iloc[5] == "high completion_rate"
    assert flags.iloc[:5].isna().all()


def test_plans_command_ranks_every_plan(tmp_path, capsys):
    config = write_config(tmp_path, {"players": ["random", "random"]})
    code, out, _ = wtsim(["plans", config, "--games-per-plan", "2", "--seed", "1", "-q", "--deck", "3"], capsys)
    assert code == 0
    for plan in (p for p in BASIC_PLANS if p.deck == 3):
        assert plan.id in out


# ------------------------------------------------------------------- sweep
def test_settings_parse_as_yaml_and_go_to_overrides():
    path, values = parse_setting("plans.estates-4-4.points=[7,4],[8,4]")
    assert path == ["overrides", "plans", "estates-4-4", "points"]
    assert values == [[7, 4], [8, 4]]
    assert parse_setting("games=10,20") == (["games"], [10, 20])
    points = grid({"games": 1}, ["games=1,2", "seed=5,6"])
    assert [chosen for chosen, _ in points] == [
        {"games": 1, "seed": 5}, {"games": 1, "seed": 6}, {"games": 2, "seed": 5}, {"games": 2, "seed": 6}]
    with pytest.raises(SweepError):
        parse_setting("games")


def test_more_plan_points_raise_the_scores_of_players_who_complete_it(tmp_path, capsys):
    config = write_config(tmp_path, {
        "games": 25, "seed": 3, "players": ["greedy", "random"],
        "variant": {"plans": ["estates-2-2-2-2", None, None]},
    })
    out = tmp_path / "sweep"
    code, _, _ = wtsim(["sweep", config, "--set", "plans.estates-2-2-2-2.points=[2,1],[16,8]",
                        "--out", str(out)], capsys)
    assert code == 0
    table = pd.read_csv(out / "sweep.csv")
    assert sorted(set(table["point"])) == [0, 1]
    points = table[table["measure"] == "plan points per player-game"].set_index("point")
    assert points.loc[1, "value"] > points.loc[0, "value"]
    assert points.loc[1, "diff"] > 0 and points.loc[0, "change"] == "baseline"


def test_bad_sweep_settings_are_user_errors(tmp_path, capsys):
    config = write_config(tmp_path, {"games": 2, "players": ["random"]})
    assert "unknown plan id" in user_error(["sweep", config, "--set", "plans.nope.points=[1,1]"], capsys)
    assert "KEY=VALUE" in user_error(["sweep", config, "--set", "games"], capsys)
