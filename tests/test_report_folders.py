"""`wtsim summarize` and `wtsim report` on every kind of folder: compare, plans,
sweep, tune and train (tiny runs, seconds each)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim.analysis.report import folder_kind, plan_points_table
from welcometo_sim.config import parse_config
from welcometo_sim.games.welcome_to.objectives import plan_trials

STRATEGIES = ("greedy", "random", "heuristic")
GAMES = 6


def readable_png(path: Path) -> None:
    pixels = mpimg.imread(io.BytesIO(path.read_bytes()), format="png")
    assert pixels.shape[0] >= 300 and pixels.shape[1] >= 300
    assert float(pixels[..., :3].std()) > 0.01


def honest(text: str) -> None:
    """No NaN and no negative zero anywhere in a report."""
    assert re.search(r"\bnan\b", text, flags=re.I) is None
    assert re.search(r"-0\.0+(?!\d*[1-9])\b", text) is None


def report_of(folder: Path, capsys, *extra: str) -> tuple[Path, str]:
    code, out, err = wtsim(["report", str(folder), *extra], capsys)
    assert code == 0, err
    path = Path(out.strip())
    return path, path.read_text(encoding="utf-8")


# ----------------------------------------------------------------- compare

@pytest.fixture(scope="module")
def compare_dir(tmp_path_factory) -> Path:
    from welcometo_sim.cli import main

    folder = tmp_path_factory.mktemp("compare") / "cmp"
    try:
        main(["compare", *STRATEGIES, "--games", str(GAMES), "--seed", "3", "--quiet", "--out", str(folder)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    return folder


def test_summarize_of_a_compare_folder_counts_player_games_and_win_rates_as_compare(compare_dir, capsys):
    printed = pd.read_csv(compare_dir / "pairs.csv")  # the pairs table compare printed
    code, out, _ = wtsim(["summarize", str(compare_dir), "--json"], capsys)
    assert code == 0
    tables = json.loads(out)
    for player in STRATEGIES:
        mine = printed[(printed["a"] == player) | (printed["b"] == player)]
        assert tables["scores"][player]["games"] == mine["games"].sum() == 2 * GAMES
    assert sum(row["games"] for row in tables["endings"].values()) == len(STRATEGIES) * GAMES
    for row in printed.itertuples():
        pair = tables["pairs"][f"{row.a} vs {row.b}"]
        assert pair["games"] == row.games
        assert pair["a_win_rate"] == pytest.approx(row.a_win_rate)
        assert pair["mean_diff"] == pytest.approx(row.mean_diff)


def test_report_of_a_compare_folder_shows_the_same_numbers_and_its_header(compare_dir, capsys):
    path, text = report_of(compare_dir, capsys)
    assert folder_kind(compare_dir) == "compare" and path == compare_dir / "report" / "report.md"
    printed = pd.read_csv(compare_dir / "pairs.csv")
    for row in printed.itertuples():
        assert f"| {row.a} / {row.b} | {row.games} | {100 * row.a_win_rate:.1f}% [" in text.replace("\\", "")
    assert "- **seed**: 3" in text and f"- **games**: {len(STRATEGIES) * GAMES}" in text
    assert "- **strategies**: greedy, random, heuristic" in text and "- **engine**: " in text
    for png in ("scores.png", "breakdown.png", "win_rates.png", "plan_completion.png"):
        readable_png(compare_dir / "report" / png)
    honest(text)


# ------------------------------------------------------------------- plans

@pytest.fixture(scope="module")
def plans_dir(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    folder = tmp_path_factory.mktemp("plans") / "plans"
    folder.mkdir()
    spec = parse_config({"seed": 2, "players": ["greedy", "greedy"]})
    trials = plan_trials(spec, 3, (1,))
    trials.to_csv(folder / "results.csv", index=False)
    (folder / "analysis.json").write_text(json.dumps({"command": "plans", "seed": 2, "games_per_plan": 3}))
    return folder, trials


def test_plan_points_per_player_game_come_from_the_completions(plans_dir):
    from welcometo_sim.games.welcome_to.data import DEFAULT_DATA

    _, trials = plans_dir
    values = {p.id: tuple(p.points) for p in DEFAULT_DATA.all_plans()}
    table = plan_points_table(trials, values).set_index("plan")
    assert set(table.index) == set(trials["forced_plan"])
    for plan, block in trials.groupby("forced_plan"):
        high, low = values[plan]
        done = block["plan1_turn"].notna()
        points = np.where(block["plan1_first"] & done, high, np.where(done, low, 0))
        assert table.loc[plan, "points_per_game"] == pytest.approx(points.mean())
        assert table.loc[plan, "completion_rate"] == pytest.approx(done.mean())
        assert 0 <= table.loc[plan, "points_per_game_low"] <= table.loc[plan, "points_per_game"]
        assert table.loc[plan, "points_per_game"] <= table.loc[plan, "points_per_game_high"] <= high


def test_report_of_a_plans_folder_draws_plan_balance_per_deck(plans_dir, capsys):
    folder, trials = plans_dir
    path, text = report_of(folder, capsys)
    assert folder_kind(folder) == "plans"
    readable_png(path.parent / "plan_balance.png")
    for plan in set(trials["forced_plan"]):
        assert markdown(plan) in text
    assert "- **games per plan**: 3" in text and "- **engine**: " in text
    honest(text)


def markdown(name: str) -> str:
    from welcometo_sim.analysis.report import markdown_text

    return markdown_text(name)


# ------------------------------------------------------------------- sweep

def test_report_of_a_sweep_folder_has_a_table_per_measure_and_curves(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"games": 4, "seed": 3, "players": ["greedy", "random"]}))
    folder = tmp_path / "sweep"
    code, _, err = wtsim(["sweep", str(config), "--set", "tracks.bis_track=[0,1,3,6,9,12,16,20,24,28],"
                          "[0,0,0,0,0,0,0,0,0,0]", "--quiet", "--out", str(folder)], capsys)
    assert code == 0, err
    path, text = report_of(folder, capsys, "--html")
    assert folder_kind(folder) == "sweep" and path.name == "report.html"
    readable_png(path.parent / "sweep.png")
    assert "<h3>score greedy</h3>" in text and "baseline" in text and "data:image/png;base64," in text
    assert "<dt>seed</dt><dd>3</dd>" in text and "<dt>engine</dt>" in text
    honest(text)


# -------------------------------------------------------------------- tune

TUNE_RESULTS = {
    "flat": {"fresh_objective": 12.5, "fresh_objective_low": 10.0, "fresh_objective_high": 15.0,
             "gain_over_start": 1.5, "gain_over_start_low": -0.25, "gain_over_start_high": 3.0},
    "nested (files of earlier versions)": {"fresh_objective": {"mean": 12.5, "low": 10.0, "high": 15.0},
                                           "gain_over_start": {"mean": 1.5, "low": -0.25, "high": 3.0}},
}


@pytest.mark.parametrize("form", sorted(TUNE_RESULTS))
def test_report_of_a_tune_file_shows_parameters_and_the_gain_with_its_interval(tmp_path, capsys, form):
    path = tmp_path / "best.yaml"
    path.write_text(yaml.safe_dump({
        "strategy": "greedy", "params": {"shortlist": 5, "weights": {"points": 1.25}},
        "tuning": {"objective": "diff", "opponents": ["random"], "config": "c.yaml", "seed": 4, "games": 10,
                   "trials": 3, "fresh_games": 40, "ranges": ["shortlist=2:8"], "start": "greedy",
                   "best_trial": 2, **TUNE_RESULTS[form]}}))
    report, text = report_of(path, capsys)
    assert folder_kind(path) == "tune" and report == tmp_path / "best-report" / "report.md"
    readable_png(report.parent / "tune.png")
    assert "| weights.points | 1.25 |" in text and "| shortlist | 5 |" in text
    assert "+1.50 [-0.25, +3.00]" in text.replace("\\", "")
    assert "- **seed**: 4" in text
    honest(text)


# ------------------------------------------------------------------- train

def test_report_of_a_train_folder_reads_it_and_writes_elsewhere(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "training" / "mine"
    folder.mkdir(parents=True)
    pd.DataFrame({"games": [0, 100, 200], "seconds": [0.0, 5.0, 10.0], "mean_score": [20.0, 40.0, 55.5],
                  "ci_low": [18.0, 38.0, 53.0], "ci_high": [22.0, 42.0, 58.0],
                  "refusal_end_share": [1.0, 0.8, 0.5], "mean_turns": [15.0, 25.0, 30.0]}
                 ).to_csv(folder / "curve.csv", index=False)
    meta = {"family": "base", "players": 2, "games": 200, "command": "wtsim train --out training/mine",
            "code_version": "0.1.0", "training": {"eval_games": 20}}
    np.savez(folder / "weights.npz", weights=np.zeros(3, dtype=np.float32), meta=np.array(json.dumps(meta)))
    before = sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir())
    monkeypatch.chdir(tmp_path)
    report, text = report_of(Path("training/mine"), capsys)
    assert report == Path("results/mine-training-report/report.md")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()) == before
    readable_png(report.parent / "learning_curve.png")
    assert "| 200 | 10 | 55.50 [53.00, 58.00] | 50.0% [" in text.replace("\\", "")
    assert "wtsim train --out training/mine" in text.replace("\\", "")
    honest(text)


def test_a_yaml_that_is_not_a_tune_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("games: 3\n")
    assert "not a `wtsim tune` file" in user_error(["report", str(path)], capsys)


def test_report_of_a_skill_trace_draws_a_line_per_plan_by_skill(tmp_path, capsys):
    folder = tmp_path / "skills"
    folder.mkdir()
    frames = []
    for skill in ("random", "greedy"):
        trials = plan_trials(parse_config({"seed": 2, "players": [skill, skill]}), 2, (1,))
        frames.append(trials.assign(skill=skill))
    trials = pd.concat(frames, ignore_index=True)
    trials = trials[["skill", *[c for c in trials.columns if c != "skill"]]]
    trials.to_csv(folder / "results.csv", index=False)
    (folder / "analysis.json").write_text(json.dumps({"command": "plans", "seed": 2, "games_per_plan": 2,
                                                      "skills": ["random", "greedy"]}))
    path, text = report_of(folder, capsys)
    readable_png(path.parent / "skill_trace.png")
    readable_png(path.parent / "plan_balance.png")
    assert "- **skill levels**: random, greedy" in text
    lines = [line for line in text.splitlines() if line.startswith(("| random / ", "| greedy / "))]
    assert len(lines) == 2 * trials["forced_plan"].nunique()
    honest(text)


def test_win_rate_figure_of_a_compare_folder_pairs_only_games_of_one_match(compare_dir):
    from welcometo_sim.analysis.plots import pairwise_win_rates
    from welcometo_sim.sim.results import read_table

    rate, count = pairwise_win_rates(read_table(compare_dir))
    printed = pd.read_csv(compare_dir / "pairs.csv")
    for row in printed.itertuples():
        assert count.loc[row.a, row.b] == count.loc[row.b, row.a] == row.games
        assert rate.loc[row.a, row.b] == pytest.approx(row.a_win_rate)


def test_unreadable_analysis_folders_are_one_line(tmp_path, capsys):
    train = tmp_path / "train"
    train.mkdir()
    (train / "curve.csv").write_text("games,mean_score\na,b\n")
    (train / "weights.npz").write_bytes(b"")
    assert "not a learning curve" in user_error(["report", str(train), "--out", str(tmp_path / "r1")], capsys)
    sweep_dir = tmp_path / "sweep"
    sweep_dir.mkdir()
    (sweep_dir / "analysis.json").write_text('{"command": "sweep"}')
    (sweep_dir / "sweep.csv").write_text("point,x\n0,1\n")
    assert "not a `wtsim sweep` table" in user_error(["report", str(sweep_dir)], capsys)
    tune = tmp_path / "t.yaml"
    tune.write_text("strategy: greedy\nparams: [1]\ntuning: {fresh_objective: x, opponents: 5, ranges: 3}\n")
    code, out, err = wtsim(["report", str(tune)], capsys)
    assert code == 0, err
    honest(Path(out.strip()).read_text(encoding="utf-8"))
