"""Per-weight step sizes by temporal coherence (`wtsim train --step-sizes coherence`).

Each weight keeps the sum of its steps and the sum of their sizes; its own
rate is their ratio, so a weight whose steps keep one direction learns at
the full rate and one whose steps cancel out stops moving. The sums live in
the training state after the weights: shards merge them, checkpoints keep
them, the model file does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import user_error, wtsim
from welcometo_sim.learning.model import ValueModel
from welcometo_sim.learning.train import TrainSettings, learn_from_traces, load_state, new_state, train
from welcometo_sim.games.welcome_to.variant import Variant

ROOT = Path(__file__).resolve().parents[1]
STC = str(ROOT / "configs" / "shake-that-city.yaml")
SMALL = ["--round-games", "2", "--eval-every", "4", "--eval-games", "2", "--eval-opponent", "greedy", "--quiet"]


def one_step(weights, net, absolute, active, value, final, rate=0.5):
    trace = [(np.array(active), value)]
    learn_from_traces(weights, [trace], [final], rate, 0.5, (net, absolute))


def test_a_weight_learns_at_the_full_rate_until_its_steps_cancel_out():
    weights, net, absolute = np.zeros(4), np.zeros(4), np.zeros(4)
    one_step(weights, net, absolute, [1, 2], 0.0, 8.0)  # error 8 over two weights: a step of 0.5 * 8 / 2 each
    assert weights.tolist() == [0.0, 2.0, 2.0, 0.0]
    assert net.tolist() == [0.0, 2.0, 2.0, 0.0] and absolute.tolist() == [0.0, 2.0, 2.0, 0.0]
    one_step(weights, net, absolute, [1], 2.0, 6.0)  # the same direction: still the full rate
    assert weights[1] == pytest.approx(4.0)
    one_step(weights, net, absolute, [1], 4.0, 0.0)  # back: |net| / absolute = 4 / 4 still, then it cancels
    assert weights[1] == pytest.approx(2.0) and net[1] == pytest.approx(2.0) and absolute[1] == pytest.approx(6.0)
    one_step(weights, net, absolute, [1], 2.0, 8.0)  # own rate 2 / 6: a third of the step
    assert weights[1] == pytest.approx(2.0 + 3.0 / 3)
    assert weights[2] == 2.0 and weights[0] == 0.0  # weights not active do not move


def test_without_coherence_the_step_is_the_plain_normalised_one():
    weights = np.zeros(3)
    learn_from_traces(weights, [[(np.array([0, 1]), 1.0)]], [5.0], 0.5, 0.5)
    assert weights.tolist() == [1.0, 1.0, 0.0]


def settings(**changes) -> TrainSettings:
    base = dict(variant={"variant": {}, "overrides": None}, players=2, seed=3, shards=2, round_games=2, eval_every=4,
                eval_games=2, eval_opponent="greedy", game="shake-that-city", step_sizes="coherence")
    return TrainSettings(**{**base, **changes})


def test_coherence_training_keeps_its_sums_and_is_the_same_for_any_jobs_and_resumes(tmp_path):
    fixed = new_state(settings(step_sizes="fixed"))
    state = new_state(settings())
    assert len(state.weights) == 3 * len(fixed.weights)
    one = train(state, games=8, seconds=None, jobs=1, folder=tmp_path / "a", command="t")
    two = train(new_state(settings()), games=8, seconds=None, jobs=2, folder=tmp_path / "b", command="t")
    assert np.array_equal(one.weights, two.weights)
    size = len(fixed.weights)
    weights, net, absolute = one.weights[:size], one.weights[size:2 * size], one.weights[2 * size:]
    assert np.any(weights != 0) and np.all(absolute >= np.abs(net)) and np.any(absolute > 0)
    half = train(new_state(settings()), games=5, seconds=None, jobs=1, folder=tmp_path / "c", command="t")
    assert half.open_round is not None  # stopped inside a round
    resumed = train(load_state(tmp_path / "c"), games=8, seconds=None, jobs=1, folder=tmp_path / "c", command="t")
    assert np.array_equal(resumed.weights, one.weights)
    from welcometo_sim.games.shake_that_city.learned import LearnedModel

    assert np.array_equal(LearnedModel.load(tmp_path / "a" / "weights.npz").weights, weights.astype(np.float32))


def test_the_cli_option_is_a_setting_kept_with_the_training(tmp_path, capsys):
    out = tmp_path / "t"
    code, text, err = wtsim(["train", STC, "--out", str(out), "--games", "4", "--step-sizes", "coherence", *SMALL],
                            capsys)
    assert code == 0, err
    assert "--step-sizes coherence" in text  # the command that trains the same weights says so
    assert load_state(out).settings.step_sizes == "coherence"
    line = user_error(["train", "--out", str(out), "--games", "8", "--resume", "--step-sizes", "fixed"], capsys)
    assert "--step-sizes fixed" in line and "step-sizes coherence" in line


def test_welcome_to_trains_with_coherence_and_plays_its_model(tmp_path):
    solo = Variant(solo=True)
    state = train(new_state(TrainSettings(variant=solo.to_record(), players=1, seed=4, shards=2, round_games=2,
                                          eval_every=4, eval_games=2, step_sizes="coherence")),
                  games=4, seconds=None, jobs=1, folder=tmp_path, command="t")
    model = ValueModel.load(tmp_path / "weights.npz")
    assert len(state.weights) == 3 * len(model.weights)
    assert np.allclose(model.weights, state.weights[:len(model.weights)].astype(np.float32))
