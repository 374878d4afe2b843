"""`wtsim train --init MODEL`: a training that starts from a model's weights
(a family's model trained on from the base model) instead of zero."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers import user_error, wtsim
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.learning.model import ValueModel
from welcometo_sim.learning.train import TrainSettings, init_setting, load_state, new_state, train

ROOT = Path(__file__).resolve().parents[1]
BASE_MODEL = ROOT / "training" / "base" / "weights.npz"
"""The first base model, which the ice-cream and christmas models were trained on from."""
ICE_CREAM = str(ROOT / "configs" / "ice-cream.yaml")
STC = str(ROOT / "configs" / "shake-that-city.yaml")
SMALL = ["--round-games", "2", "--eval-every", "4", "--eval-games", "2", "--eval-opponent", "greedy", "--quiet"]


def test_the_training_starts_from_the_models_weights_and_names_them(tmp_path):
    base = ValueModel.load(BASE_MODEL).weights.astype(np.float64)
    settings = TrainSettings(variant=Variant(board="ice-cream").to_record(), players=2, seed=3, shards=2,
                             round_games=2, eval_every=4, eval_games=2, init=init_setting(str(BASE_MODEL), base))
    state = new_state(settings)
    assert np.array_equal(state.weights, base)
    trained = train(state, games=4, seconds=None, jobs=1, folder=tmp_path, command="t")
    changed = np.flatnonzero(trained.weights != base)
    assert 0 < len(changed) < len(base) // 10  # trained on, not from zero
    assert f"--init {BASE_MODEL}" in trained.reproduce("configs/ice-cream.yaml", tmp_path)


def test_a_model_whose_weights_changed_since_is_refused(tmp_path):
    base = ValueModel.load(BASE_MODEL).weights.astype(np.float64)
    other = base.copy()
    other[5] += 1.0
    settings = TrainSettings(variant=Variant().to_record(), players=2, seed=3,
                             init=init_setting(str(BASE_MODEL), other))
    try:
        new_state(settings)
    except ValueError as exc:
        assert "not the ones this training started from" in str(exc)
    else:
        raise AssertionError("a changed model file was accepted")


def test_the_cli_keeps_the_model_as_a_setting_and_a_resume_keeps_it(tmp_path, capsys):
    out = tmp_path / "t"
    code, text, err = wtsim(["train", ICE_CREAM, "--out", str(out), "--games", "4", "--init", str(BASE_MODEL),
                             *SMALL], capsys)
    assert code == 0, err
    assert f"--init {BASE_MODEL}" in text
    assert load_state(out).settings.init_path == str(BASE_MODEL)
    line = user_error(["train", "--out", str(out), "--games", "8", "--resume", "--init", str(ROOT / "README.md")],
                      capsys)
    assert "a resume keeps where it started" in line
    code, _, err = wtsim(["train", "--out", str(out), "--games", "8", "--resume", "--quiet"], capsys)
    assert code == 0, err
    assert load_state(out).games == 8


def test_a_file_that_is_no_model_of_the_game_is_one_line(tmp_path, capsys):
    line = user_error(["train", ICE_CREAM, "--out", str(tmp_path / "a"), "--games", "2", "--init",
                       str(ROOT / "README.md"), *SMALL], capsys)
    assert line.startswith("wtsim: error: --init ") and "not a readable model" in line
    line = user_error(["train", STC, "--out", str(tmp_path / "b"), "--games", "2", "--init", str(BASE_MODEL),
                       *SMALL], capsys)
    assert "not a Shake That City model file" in line
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_training_run_as_python_m_records_the_wtsim_command(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t"
    argv = ["train", ICE_CREAM, "--out", str(out), "--games", "2", *SMALL]
    monkeypatch.setattr("sys.argv", [str(ROOT / "welcometo_sim" / "__main__.py"), *argv])
    code, _, err = wtsim(argv, capsys)
    assert code == 0, err
    assert load_state(out).commands == ["wtsim " + " ".join(argv)]
