"""`wtsim plans`: intervals, honest outlier flags, the high-value race, skill traces,
default seating and diverse tables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from welcometo_sim.analysis.plan_balance import (NEVER, flag_outliers, plan_balance_table, printed_tables,
                                                 skill_slope)
from welcometo_sim.config import parse_config, players_from_refs
from welcometo_sim.defaults import EXPLORATION_TEMPERATURE, STRONG_DEFAULT, diverse, random_warning
from welcometo_sim.games.welcome_to.data import BASIC_PLANS
from welcometo_sim.games.welcome_to.objectives import slot_outcome
from welcometo_sim.sim.runner import run_chunks
from welcometo_sim.sim.results import read_table, to_frame

from helpers import user_error, wtsim

PLANS = {p.id: p for p in BASIC_PLANS}


def write_config(tmp_path: Path, raw: dict) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(raw))
    return str(path)


def hand_made_trials() -> pd.DataFrame:
    """Two plans of deck 1, two games of two players each, with known completions:
    estates-4-4 is won at the high value by one seat in game 0 and by both in game 1."""
    rows = []
    for plan_id, turns, firsts in [("estates-4-4", [10, 12, 9, 9], [True, False, True, True]),
                                   ("estates-6-6", [None, None, None, None], [False] * 4)]:
        for i, (turn, first) in enumerate(zip(turns, firsts)):
            rows.append({"forced_deck": 1, "forced_plan": plan_id, "game": i // 2, "player": f"p{i % 2}",
                         "plan1_turn": turn, "plan1_first": first, "total": 40 + i, "turns": 20 + i // 2})
    trials = pd.DataFrame(rows)
    trials["plan1_turn"] = trials["plan1_turn"].astype("Int16")
    return trials


def test_every_rate_and_mean_has_an_interval_around_it():
    table = plan_balance_table(hand_made_trials(), PLANS, slot_outcome)
    row = table.loc["estates-4-4"]
    assert row["completion_rate"] == 1.0 and row["completion_rate_low"] < 1.0 == row["completion_rate_high"]
    assert row["high_share"] == 0.75
    assert row["high_won"] == 1.0 and row["high_seats"] == 1.5
    assert row["points_per_game"] == (6 + 3 + 6 + 6) / 4
    for column in ("completion_rate", "high_share", "high_won", "high_seats", "points_per_game", "mean_total",
                   "total_vs_deck"):
        assert row[f"{column}_low"] <= row[column] <= row[f"{column}_high"], column
    assert (row["high_points"], row["low_points"]) == (6, 3)  # the values as numbers, not '6/3'
    assert pd.api.types.is_integer_dtype(table["high_points"]) and table["outlier"].isna().all()
    never = table.loc["estates-6-6"]
    assert never["completion_rate"] == 0 and never["completion_rate_high"] > 0
    assert np.isnan(never["high_share"]) and np.isnan(never["median_turn"])
    # Paired over the same game seeds: each plan against the deck's average of that game.
    assert row["total_vs_deck"] == 0 == never["total_vs_deck"]


def test_printed_tables_say_never_completed_instead_of_nan():
    text = "\n".join(t.to_string() for t in printed_tables(plan_balance_table(hand_made_trials(), PLANS, slot_outcome)).values())
    assert NEVER in text
    assert "nan" not in text.lower() and "-0.000" not in text
    assert "75.0% [" in text  # the high-value share with its interval, in percent
    assert "6/3" in text  # the plan's high and low values


def outlier_table(rates: list[float], half_width: float) -> pd.DataFrame:
    table = pd.DataFrame({"deck": [1] * len(rates), "completion_rate": rates, "points_per_game": [2.0] * len(rates)})
    table["completion_rate_low"] = table["completion_rate"] - half_width
    table["completion_rate_high"] = table["completion_rate"] + half_width
    table["points_per_game_low"], table["points_per_game_high"] = 1.5, 2.5
    return table


def test_an_outlier_is_flagged_only_when_its_interval_excludes_the_decks_median():
    rates = [0.5, 0.52, 0.48, 0.51, 0.49, 0.95]
    flags = flag_outliers(outlier_table(rates, half_width=0.1))
    assert flags.iloc[5] == "high completion_rate" and flags.iloc[:5].isna().all()  # no flag: missing
    noisy = flag_outliers(outlier_table(rates, half_width=0.5))  # 30-game noise: the interval covers 0.5
    assert noisy.isna().all()


def test_skill_slope_is_the_least_squares_slope_with_a_paired_interval():
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 5, size=200)  # shared by every level: the same seeds
    matrix = np.vstack([luck + 2 * level for level in range(3)])
    slope, low, high = skill_slope(matrix)
    assert slope == pytest.approx(2.0)
    assert low == pytest.approx(2.0) and high == pytest.approx(2.0)  # pairing removes the shared luck
    flat = np.vstack([rng.normal(0, 5, size=200) for _ in range(3)])
    slope, low, high = skill_slope(flat)
    assert low < 0 < high


def test_skill_trace_on_a_small_run(tmp_path, capsys):
    out = tmp_path / "skill"
    code, stdout, err = wtsim(["plans", "--strategies", "random,greedy", "--deck", "1", "--games-per-plan", "3",
                               "--seed", "2", "-q", "--out", str(out)], capsys)
    assert code == 0, err
    assert "skill slope" in stdout and "plans (greedy)" in stdout
    assert "nan" not in stdout.lower()
    trials = read_table(out)
    assert list(dict.fromkeys(trials["skill"])) == ["random", "greedy"]
    seeds = trials.groupby(["skill", "forced_plan"])["seed"].apply(lambda s: tuple(sorted(set(s))))
    assert seeds.nunique() == 1  # every level plays the same seeds
    skill = pd.read_csv(out / "skill.csv").set_index(["plan", "skill"])
    deck1 = [p.id for p in BASIC_PLANS if p.deck == 1]
    assert set(skill.index) == {(plan, level) for plan in deck1 for level in ("random", "greedy")}
    for (plan, level), row in skill.iterrows():
        block = trials[(trials["skill"] == level) & (trials["forced_plan"] == plan)]
        done = block["plan1_turn"].notna()
        high = block["plan1_first"].astype(bool) & done
        expected = (np.where(high, PLANS[plan].points[0], np.where(done, PLANS[plan].points[1], 0))).mean()
        assert row["points_per_game"] == pytest.approx(expected)
        assert row["completion_rate"] == pytest.approx(done.mean())
    slopes = pd.read_csv(out / "skill_slope.csv").set_index("plan")
    for plan in deck1:  # two levels: the slope is the difference greedy - random
        levels = skill.loc[plan, "points_per_game"]
        assert slopes.loc[plan, "slope"] == pytest.approx(levels["greedy"] - levels["random"])
        assert slopes.loc[plan, "with_skill"] in ("rises", "falls", "no clear trend")
    again_code, again, _ = wtsim(["plans", "--results", str(out), "--deck", "1"], capsys)
    assert again_code == 0 and "skill slope" in again


def test_bad_skill_lists_are_user_errors(capsys):
    assert "at least two" in user_error(["plans", "--strategies", "greedy"], capsys)
    assert "exclude each other" in user_error(["plans", "--strategies", "greedy,random", "--strategy", "greedy"],
                                              capsys)
    assert "gredy" in user_error(["plans", "--strategies", "greedy,gredy"], capsys)


def test_a_random_seat_prints_one_warning_line(tmp_path, capsys):
    config = write_config(tmp_path, {"players": ["random", "random"]})
    code, out, err = wtsim(["plans", config, "--games-per-plan", "2", "-q", "--deck", "3"], capsys)
    assert code == 0
    assert len(err.splitlines()) == 1 and "warning" in err and "random" in err
    for plan in (p for p in BASIC_PLANS if p.deck == 3):
        assert plan.id in out
    code, _, err = wtsim(["plans", config, "--strategy", "greedy", "--games-per-plan", "1", "-q", "--deck", "3"],
                         capsys)
    assert code == 0 and err == ""


def test_the_bundled_configs_seat_the_strong_default():
    config_dir = Path(__file__).resolve().parents[1] / "configs"
    for path in config_dir.glob("*.yaml"):
        raw = yaml.safe_load(path.read_text())
        if "game" in raw:  # another game's config
            continue
        players = raw["players"]
        strategies = {p["strategy"] if isinstance(p, dict) else p for p in players}
        if "baseline" in path.stem:
            assert "random" in strategies
        elif path.stem == "base":  # the first run shows a contest: the strong default against another
            assert STRONG_DEFAULT in strategies and len(strategies) == len(players) == 2, path.name
        else:
            assert strategies == {STRONG_DEFAULT}, path.name


def test_one_strategy_in_several_seats_explores_unless_told_otherwise():
    players = players_from_refs(["heuristic", "heuristic", "greedy", "learned:temperature=0"])
    seated = diverse(players)
    assert [p.strategy.params.get("temperature") for p in seated] == [
        EXPLORATION_TEMPERATURE["heuristic"], EXPLORATION_TEMPERATURE["heuristic"], None, 0]
    assert diverse(players_from_refs(["heuristic", "greedy"])) == players_from_refs(["heuristic", "greedy"])
    assert random_warning(players) is None
    assert "random" in random_warning(players_from_refs(["greedy", "random"]))


@pytest.mark.parametrize("ref", ["greedy", "heuristic"])
def test_exploring_seats_play_different_games_on_the_same_cards(ref):
    players = diverse(players_from_refs([ref, ref]))
    spec = parse_config({"games": 6, "seed": 3, "players": [ref, ref]})
    same = to_frame(run_chunks(spec)[0]).groupby("game")["total"].nunique()
    assert (same == 1).all()  # deterministic seats: one game played twice
    explored = to_frame(run_chunks(replace(spec, players=players))[0]).groupby("game")["total"].nunique()
    assert (explored > 1).sum() >= 4


@pytest.mark.parametrize("ref", ["greedy", "heuristic", "lookahead"])
def test_a_negative_temperature_is_a_user_error(ref, capsys):
    line = user_error(["compare", f"{ref}:temperature=-1", "random", "--games", "1"], capsys)
    assert "temperature" in line and "at least 0" in line


def test_lookahead_explores_legally_and_differently():
    """The engine raises on any illegal answer; two exploring seats part ways."""
    players = players_from_refs(["lookahead:temperature=0.1,samples=2", "lookahead:temperature=0.1,samples=2"])
    spec = parse_config({"games": 2, "seed": 5, "players": ["random", "random"]})
    frame = to_frame(run_chunks(replace(spec, players=players))[0])
    assert (frame.groupby("game")["total"].nunique() > 1).any()
