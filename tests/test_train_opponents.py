"""Training and its learning curve where no mirror inflates them.

Self-play seats the learner everywhere: with the same cards, identical
greedy seats write identical sheets, tie every race and learn a game that
is never played against anyone else. So the learning curve of two or more
players seats the learner against `--eval-opponent` (heuristic by default),
and `--opponents` trains seat 0 against built-in strategies instead of
itself; both stay pure functions of the settings, for any --jobs and
across resumes.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from helpers import user_error, wtsim
from welcometo_sim.learning.features import Layout
from welcometo_sim.learning.model import layout_for
from welcometo_sim.learning.train import (CHECKPOINT, MATCH_COLUMNS, SELF, TrainSettings, TrainingError, evaluate,
                                          load_state, new_state, train)
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.sim.runner import game_seeds
from welcometo_sim.strategy import parse_strategy

BASE = Variant()
ROOT = Path(__file__).resolve().parents[1]
BASE_CONFIG = str(ROOT / "configs" / "base.yaml")
SMALL = ["--round-games", "2", "--eval-every", "4", "--eval-games", "2", "--eval-opponent", "greedy", "--quiet"]
"""Rounds of two shards of two games, an evaluation point every round, two evaluation games against greedy
(heuristic, the default opponent, plays far slower)."""


def settings(**changes) -> TrainSettings:
    base = dict(variant=BASE.to_record(), players=2, seed=3, shards=2, round_games=2, eval_every=4, eval_games=4,
                eval_opponent="greedy")
    return TrainSettings(**{**base, **changes})


def layout_args() -> tuple:
    layout = layout_for(BASE.data)
    return layout.street_houses, layout.plan_ids


def test_the_curve_of_two_players_seats_the_learner_against_the_eval_opponent(tmp_path):
    assert TrainSettings(variant=BASE.to_record(), players=2, seed=1).eval_opponent == "heuristic"
    state = train(new_state(settings()), games=4, seconds=None, jobs=1, folder=tmp_path, command="t")
    point = state.curve[-1]
    assert set(MATCH_COLUMNS) <= set(point)
    rows = evaluate(state.weights, settings(), game_seeds(3, 1 << 40, (1 << 40) + 4), "greedy")
    learner = np.array([row[0] for row in rows])
    opponent = np.array([row[3][0] for row in rows])
    assert point["mean_score"] == pytest.approx(learner.mean(), abs=1e-3)
    assert point["opponent_score"] == pytest.approx(opponent.mean(), abs=1e-3)
    assert point["margin"] == pytest.approx((learner - opponent).mean(), abs=1e-3)
    assert point["margin_low"] < point["margin"] < point["margin_high"]
    wins = np.where(learner > opponent, 1.0, np.where(learner == opponent, 0.5, 0.0))
    assert point["win_share"] == pytest.approx(wins.mean(), abs=1e-4)
    header = (tmp_path / "curve.csv").read_text().splitlines()[0].split(",")
    assert header[-len(MATCH_COLUMNS):] == list(MATCH_COLUMNS)


def test_the_evaluation_games_are_the_learner_and_the_opponent_seated_as_in_a_run():
    """The learner's score is seat 0's in a game of the learner against heuristic."""
    from welcometo_sim.learning.model import ValueModel
    from welcometo_sim.strategies.learned import LearnedStrategy

    layout = layout_for(BASE.data)
    weights = np.random.default_rng(0).normal(0, 0.5, layout.size)
    weights[0] = 0.0
    seeds = game_seeds(5, 0, 4)
    rows = evaluate(weights, settings(), seeds, "heuristic")
    model = ValueModel(Layout(*layout_args()), weights)
    for seed, row in zip(seeds, rows):
        seats = [Seat("learned", "learned", lambda rng: LearnedStrategy(rng, None, model)),
                 Seat("heuristic", "heuristic", parse_strategy("heuristic"))]
        totals = [s["total"] for s in Game(BASE, seats, seed).play().scores]
        assert (row[0], row[3]) == (totals[0], [totals[1]])


def test_self_evaluation_is_the_mirror_it_always_was():
    """Identical learners on the same cards: every seat's total equal."""
    layout = layout_for(BASE.data)
    weights = np.random.default_rng(1).normal(0, 0.5, layout.size)
    weights[0] = 0.0
    rows = evaluate(weights, settings(), game_seeds(5, 0, 4), SELF)
    heuristic = evaluate(weights, settings(), game_seeds(5, 0, 4), "heuristic")
    assert all(row[3] == [] for row in rows)
    assert [row[0] for row in rows] != [row[0] for row in heuristic]


def test_training_against_opponents_is_the_same_for_any_jobs_and_across_a_resume(tmp_path):
    """Only the weights are compared, which the evaluation games never change: one
    evaluation point per 8 games (not per round) spares their games."""
    opponents = ("greedy", "random")
    one = train(new_state(settings(opponents=opponents, eval_every=8)), games=8, seconds=None, jobs=1,
                folder=tmp_path / "a", command="t")
    two = train(new_state(settings(opponents=opponents, eval_every=8)), games=8, seconds=None, jobs=2,
                folder=tmp_path / "b", command="t")
    assert np.array_equal(one.weights, two.weights)
    half = train(new_state(settings(opponents=opponents, eval_every=8)), games=3, seconds=None, jobs=1,
                 folder=tmp_path / "c", command="t")
    resumed = train(load_state(tmp_path / "c"), games=8, seconds=None, jobs=1, folder=tmp_path / "c", command="t")
    assert half.games == 3 and np.array_equal(resumed.weights, one.weights)
    selfplay = train(new_state(settings(eval_every=8)), games=8, seconds=None, jobs=1, folder=tmp_path / "d",
                     command="t")
    assert not np.array_equal(selfplay.weights, one.weights)


def test_only_seat_zero_learns_against_opponents(monkeypatch):
    """The opponents are the named built-ins, in turn game by game, and keep no trace."""
    import welcometo_sim.learning.train as training
    import welcometo_sim.games.welcome_to.training as welcome_to

    seen = []
    real = welcome_to.seat_traces

    def watched(game, result):
        seen.append([type(strategy).__name__ for strategy in game.strategies])
        return real(game, result)

    monkeypatch.setattr(welcome_to, "seat_traces", watched)
    layout = layout_for(Variant().data)
    training.play_shard(np.zeros(layout.size), settings(players=3, opponents=("heuristic", "greedy")),
                        [(0, 11), (1, 12)], 0.3)
    assert seen == [["LearnedStrategy", "HeuristicStrategy", "GreedyStrategy"],
                    ["LearnedStrategy", "GreedyStrategy", "HeuristicStrategy"]]


def test_a_checkpoint_from_before_the_setting_keeps_its_self_play_curve(tmp_path):
    train(new_state(settings()), games=4, seconds=None, jobs=1, folder=tmp_path, command="t")
    path = tmp_path / CHECKPOINT
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    document = json.loads(str(arrays["state"]))
    del document["settings"]["eval_opponent"], document["settings"]["opponents"]
    for point in document["curve"]:
        for column in MATCH_COLUMNS:
            del point[column]
    arrays["state"] = np.array(json.dumps(document))
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)
    state = load_state(tmp_path)
    assert state.settings.eval_opponent == SELF and state.settings.opponents == ()
    resumed = train(state, games=8, seconds=None, jobs=1, folder=tmp_path, command="t")
    assert not set(MATCH_COLUMNS) & set(resumed.curve[-1])
    assert zipfile.is_zipfile(path)


def test_an_unknown_opponent_is_one_line(tmp_path, capsys):
    line = user_error(["train", BASE_CONFIG, "--out", str(tmp_path / "t"), "--games", "8", *SMALL,
                       "--opponents", "greedy,nobody"], capsys)
    assert "'nobody' is not a built-in strategy" in line
    line = user_error(["train", BASE_CONFIG, "--out", str(tmp_path / "t"), "--games", "8", *SMALL[:-1],
                       "--eval-opponent", "nobody", "--quiet"], capsys)
    assert "'nobody' is not a built-in strategy" in line
    with pytest.raises(TrainingError):
        settings(opponents=("random", "x.py:Y")).check()


def test_resume_refuses_other_opponents(tmp_path, capsys):
    out = tmp_path / "t"
    code, _, err = wtsim(["train", BASE_CONFIG, "--out", str(out), "--games", "4", *SMALL,
                          "--opponents", "random"], capsys)
    assert code == 0, err
    line = user_error(["train", "--out", str(out), "--games", "8", "--resume", "--opponents", "greedy",
                       "--quiet"], capsys)
    assert "--opponents greedy differ from the training" in line and "opponents random" in line
    code, out_text, err = wtsim(["train", "--out", str(out), "--games", "8", "--resume", "--quiet"], capsys)
    assert code == 0, err
    assert "--opponents random --eval-opponent greedy" in out_text  # the command that trains them from scratch
    assert "against greedy" in out_text
