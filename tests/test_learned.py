"""The learned evaluation: features of hand-built sheets, values as sums of
table entries, afterstates that match the sheets they leave, TD training
(reproducible for any --jobs, resumable, improving), and the weights file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from helpers import user_error, wtsim
from strategies.learned import SHIPPED, LearnedStrategy, shipped_family, shipped_path
from welcometo_sim.learning.evaluator import Evaluator
from welcometo_sim.learning.features import (COMPLETED, MAX_NUMBER, OPEN, POOLS_BUILT, POOLS_POSSIBLE, WINDOW_STATES, sheet_rows, street_features,
                                             window_phase_of, phase_of)
from welcometo_sim.learning.model import ModelError, ValueModel, layout_for
from welcometo_sim.learning.train import (TrainingError, TrainSettings, evaluate, load_state, new_state,
                                          td_targets, train)
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
from welcometo_sim.games.welcome_to.effects import apply_effect, apply_play
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.games.welcome_to.plans import claim_options
from welcometo_sim.games.welcome_to.scoring import score_sheet
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy
from welcometo_sim.sim.runner import game_seeds

LAYOUT = layout_for(DEFAULT_DATA)
BOUND = MAX_NUMBER + 2


def features_of(sheet: Sheet, turn: int = 1):
    return street_features(sheet_rows(sheet, LAYOUT.width), LAYOUT, turn)


def window_index(street: int, position: int, codes: tuple[int, int, int], fences: tuple[int, int],
                 turn: int = 1) -> int:
    n = DEFAULT_DATA.street_houses[street] - 2
    state = ((codes[0] * 11 + codes[1]) * 11 + codes[2]) * 4 + fences[0] * 2 + fences[1]
    return (LAYOUT.offset(f"window{street}") + (window_phase_of(turn) * n + position) * WINDOW_STATES + state)


def gap_index(street: int, length: int, low: int, high: int, turn: int = 1) -> int:
    return LAYOUT.offset(f"gap{street}") + ((phase_of(turn) * 12 + length - 1) * BOUND + low + 1) * BOUND + high


def run_index(street: int, length: int, empty: int, dead: int, turn: int = 1) -> int:
    return LAYOUT.offset(f"run{street}") + ((phase_of(turn) * 8 + min(length, 8) - 1) * 8
                                            + min(empty, 7)) * 2 + dead


# ------------------------------------------------------------ features
def test_an_empty_sheet_has_one_gap_and_one_run_per_street():
    features, summary = features_of(Sheet())
    top = features[0]
    open_room = 6  # 18 numbers fit an empty house of an empty street
    assert list(top[:8]) == [window_index(0, w, (open_room,) * 3, (0, 0)) for w in range(8)]
    assert list(top[8:10]) == [0, 0]  # the top street is two houses shorter than the padded width
    assert [f for f in top[10:22] if f] == [gap_index(0, 10, -1, 18)]
    assert [f for f in top[22:34] if f] == [run_index(0, 10, 10, 0)]
    assert top[34] == LAYOUT.offset("park0")
    assert summary.counts[:, COMPLETED].sum() == summary.counts[:, OPEN].sum() == 0
    assert list(summary.counts[:, POOLS_POSSIBLE]) == [3, 3, 3]


def test_written_numbers_bound_gaps_and_fences_make_estates():
    sheet = Sheet()
    sheet.write(0, 0, 3)
    sheet.write(0, 3, 9)
    sheet.add_fence(0, 0)   # house 0 alone: a completed estate of 1
    sheet.add_fence(0, 3)   # houses 1..3: an open estate of 3 with two empty houses
    sheet.write(1, 1, 0)
    sheet.write(1, 2, 1)   # street 1, house 0 can take no number any more (below 0)
    features, summary = features_of(sheet, turn=12)
    top, middle = features[0], features[1]
    written, room_5 = 7, 4   # 4..8 fit between 3 and 9: five numbers, bucket 4
    assert top[0] == window_index(0, 0, (written, room_5, room_5), (1, 0), turn=12)
    assert top[1] == window_index(0, 1, (room_5, room_5, written), (0, 0), turn=12)
    assert [f for f in top[10:22] if f] == [gap_index(0, 2, 3, 9, turn=12), gap_index(0, 6, 9, 18, turn=12)]
    assert [f for f in top[22:34] if f] == [run_index(0, 1, 0, 0, turn=12), run_index(0, 3, 2, 0, turn=12),
                                             run_index(0, 6, 6, 0, turn=12)]
    assert list(summary.counts[0, COMPLETED]) == [1, 0, 0, 0, 0, 0]
    assert list(summary.counts[0, OPEN]) == [0, 0, 1, 0, 0, 1]
    dead_house = [f for f in middle[10:22] if f][0]
    assert dead_house == gap_index(1, 1, -1, 0, turn=12)
    assert [f for f in middle[22:34] if f] == [run_index(1, 11, 9, 1, turn=12)]


def test_a_built_pool_and_a_bis_have_their_own_codes():
    sheet = Sheet()
    sheet.write(0, 2, 5)
    sheet.pools[0][2] = True
    sheet.write(0, 3, 5, bis=True)
    features, summary = features_of(sheet)
    pooled, bis, room_5, room_12 = 8, 9, 4, 6   # 0..4 fit left of the 5; 6..17 right of the copy
    assert features[0][1] == window_index(0, 1, (room_5, pooled, bis), (0, 0))
    assert features[0][2] == window_index(0, 2, (pooled, bis, room_12), (0, 0))
    assert summary.counts[0, POOLS_BUILT] == 1


# -------------------------------------------------------------- values
def captured_views(variant: Variant, seeds: range, every: int = 3) -> list[tuple]:
    """(view, plays) of seat 0 every few turns of games of a temperature-sampling `learned`."""
    model = random_model(variant, 0)
    captured = []

    class Capture(LearnedStrategy):
        def choose_play(self, view, plays):
            if view.seat == 0 and view.turn % every == 0:
                captured.append((replace(view, sheet=view.sheet.copy()), list(plays)))
            return super().choose_play(view, plays)

    seats = [Seat(f"s{i}", "learned", lambda rng: Capture(rng, {"temperature": 3.0}, model))
             for i in range(1 if variant.solo else 2)]
    for seed in seeds:
        Game(variant, seats, seed).play()
    return captured


def random_model(variant: Variant, seed: int) -> ValueModel:
    model = ValueModel.empty(layout_for(variant.data))
    model.weights[1:] = np.random.default_rng(seed).normal(size=model.weights.size - 1)
    return model


def test_a_value_is_the_sum_of_its_table_entries_plus_the_exact_points():
    variant = Variant()
    model = random_model(variant, 1)
    evaluator = Evaluator(model.weights, model.layout)
    checked = 0
    for view, _plays in captured_views(variant, range(3)):
        if claim_options(view.sheet, view.plans):
            continue   # the value would count the claim's points too
        active, value = evaluator.state(view)
        exact = score_sheet(view.sheet, temps=0)["total"]
        assert value == pytest.approx(model.weights[active].sum() + exact)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("variant", [Variant(), Variant(advanced=True), Variant(solo=True), Variant(expert=True),
                                     Variant(board="ice-cream"), Variant(board="christmas"),
                                     Variant(board="easter")], ids=lambda v: str(v.to_record()))
def test_every_candidate_is_valued_as_the_sheet_it_leaves(variant):
    """A decision scores each (play, effect) candidate without making its
    sheet; the value and the features must be those of the sheet made."""
    model = random_model(variant, 2)
    evaluator = Evaluator(model.weights, model.layout)
    checked = 0
    for view, plays in captured_views(variant, range(2), every=4):
        scored = evaluator.decision(view, plays)
        for index in range(0, len(scored), 3):
            play, use = scored.candidate(index)
            sheet = view.sheet.copy()
            if play is None:
                sheet.refusals += 1
            else:
                apply_play(sheet, play)
                if use is not None:
                    apply_effect(sheet, use)
            active, value = evaluator.state(replace(view, sheet=sheet, turn=view.turn + 1))
            assert value == pytest.approx(scored.values[index])
            assert sorted(active) == sorted(scored.features(index))
            checked += 1
    assert checked >= 50


def test_every_candidate_is_a_legal_answer():
    variant = Variant()
    evaluator = Evaluator(random_model(variant, 3).weights, layout_for(variant.data))
    from welcometo_sim.games.welcome_to.effects import effect_options

    for view, plays in captured_views(variant, range(2)):
        scored = evaluator.decision(view, plays)
        for index in range(len(scored)):
            play, use = scored.candidate(index)
            assert play in plays
            if use is not None:
                sheet = view.sheet.copy()
                apply_play(sheet, play)
                assert use in effect_options(sheet, view.offers[play.offer], play)


# ------------------------------------------------------------ training
def test_td_lambda_targets_run_backwards_from_the_final_score():
    assert list(td_targets([10.0, 20.0, 30.0], 50.0, 0.5)) == [30.0, 40.0, 50.0]
    assert list(td_targets([10.0, 20.0, 30.0], 50.0, 0.0)) == [20.0, 30.0, 50.0]
    assert list(td_targets([10.0, 20.0, 30.0], 50.0, 1.0)) == [50.0, 50.0, 50.0]


SOLO = Variant(solo=True)


def settings(**changes) -> TrainSettings:
    base = dict(variant=SOLO.to_record(), players=1, seed=4, shards=2, round_games=4, eval_every=8, eval_games=4)
    return TrainSettings(**{**base, **changes})


def test_training_is_the_same_for_any_jobs_and_after_a_resume(tmp_path):
    one = train(new_state(settings()), games=16, seconds=None, jobs=1, folder=tmp_path / "one", command="t")
    two = train(new_state(settings()), games=16, seconds=None, jobs=2, folder=tmp_path / "two", command="t")
    assert np.array_equal(one.weights, two.weights)
    assert np.count_nonzero(one.weights) > 100
    half = train(new_state(settings()), games=8, seconds=None, jobs=1, folder=tmp_path / "half", command="t")
    assert half.games == 8
    resumed = train(load_state(tmp_path / "half"), games=16, seconds=None, jobs=2, folder=tmp_path / "half",
                    command="t")
    assert np.array_equal(resumed.weights, one.weights)
    assert [row["games"] for row in resumed.curve] == [0, 8, 16]
    saved = ValueModel.load(tmp_path / "one" / "weights.npz")
    assert saved.meta["games"] == 16 and saved.meta["seed"] == 4 and saved.meta["family"] == "solo"
    assert np.allclose(saved.weights, one.weights.astype(np.float32))


def test_a_learning_rate_schedule_is_part_of_the_settings_and_of_the_reproduction_command(tmp_path):
    state = new_state(settings(rate_after=((8, 0.1),)))
    assert [state.settings.rate_at(g) for g in (0, 7, 8, 100)] == [0.3, 0.3, 0.1, 0.1]
    state = train(state, games=8, seconds=None, jobs=1, folder=tmp_path, command="first")
    later = load_state(tmp_path).with_rates_after(((16, 0.05),))
    assert later.settings.rate_after == ((8, 0.1), (16, 0.05))
    with pytest.raises(TrainingError):
        later.with_rates_after(((0, 0.2),))   # games already played keep their rate
    assert later.with_rates_after(((24, 0.02),)).with_rates_after(((16, 0.07),)).settings.rate_after \
        == ((8, 0.1), (16, 0.07), (24, 0.02))   # a step planned before one not reached yet
    assert later.with_rates_after(((16, 0.02),)).settings.rate_after == ((8, 0.1), (16, 0.02))
    command = later.reproduce("configs/solo.yaml", tmp_path)
    assert command.startswith("wtsim train configs/solo.yaml --out ") and "--games 8 --seed 4" in command
    assert command.endswith("--rate-after 8:0.1 --rate-after 16:0.05")
    assert load_state(tmp_path).commands == ["first"]


def test_an_interrupted_training_keeps_its_finished_rounds(tmp_path, monkeypatch):
    import welcometo_sim.learning.train as training

    rounds = []
    real = training.play_shard

    def stopping(*args):
        if len(rounds) == 4:   # two rounds of two shards played: interrupt the third
            raise KeyboardInterrupt
        rounds.append(1)
        return real(*args)

    monkeypatch.setattr(training, "play_shard", stopping)
    with pytest.raises(KeyboardInterrupt):
        train(new_state(settings(eval_every=40)), games=40, seconds=None, jobs=1, folder=tmp_path, command="t")
    monkeypatch.setattr(training, "play_shard", real)
    kept = load_state(tmp_path)
    assert kept.games == 16
    straight = train(new_state(settings(eval_every=40)), games=16, seconds=None, jobs=1, folder=tmp_path / "s",
                     command="t")
    assert np.array_equal(kept.weights, straight.weights)


def test_a_short_training_measurably_improves_on_the_untrained_start(tmp_path):
    trained = train(new_state(settings(round_games=50, eval_every=100)), games=200, seconds=None, jobs=2,
                    folder=tmp_path, command="t")
    layout = layout_for(SOLO.data)
    seeds = game_seeds(99, 0, 40)
    before = evaluate(np.zeros(layout.size), trained.settings, seeds)
    after = evaluate(trained.weights, trained.settings, seeds)
    gain = np.array([a[0] for a in after]) - np.array([b[0] for b in before])
    assert gain.mean() > 5 and gain.mean() - 2 * gain.std(ddof=1) / np.sqrt(len(gain)) > 0
    assert (tmp_path / "curve.csv").read_text().startswith("games,seconds,mean_score")
    image = pytest.importorskip("matplotlib.image")
    height, width = image.imread(tmp_path / "curve.png").shape[:2]
    assert width > 2 * height  # the report's two-panel learning curve, legends under the panels


# --------------------------------------------------------- weights file
def test_the_weights_file_round_trips(tmp_path):
    model = random_model(Variant(), 5)
    model.meta = {"seed": 3, "games": 10}
    model.save(tmp_path / "m.npz")
    loaded = ValueModel.load(tmp_path / "m.npz")
    assert loaded.layout == model.layout
    assert np.array_equal(loaded.weights, model.weights.astype(np.float32).astype(np.float64))
    assert loaded.meta["seed"] == 3 and loaded.meta["games"] == 10


def test_the_shipped_models_load_and_name_their_training():
    for family in SHIPPED:
        model = ValueModel.load(shipped_path(family))
        # the base model sees the next turn's effects (its training's --features)
        groups = ("cards",) if family == "base" else ()
        assert model.layout == layout_for(DEFAULT_DATA, groups)
        assert model.meta["training"].get("features", []) == list(groups)
        assert model.meta["family"] == family
        assert model.meta["command"].startswith("wtsim train")
        assert model.meta["games"] > 0
        assert shipped_path(family).stat().st_size < 10 * 2**20


@pytest.mark.parametrize("content", ["missing", "corrupt", "mismatched"])
def test_a_bad_weights_file_is_one_line_and_exit_2(tmp_path, capsys, content):
    path = tmp_path / "w.npz"
    if content == "corrupt":
        path.write_bytes(b"PK\x03\x04 not really a zip file")
    elif content == "mismatched":
        np.savez(path, weights=np.zeros(10, dtype=np.float32),
                 meta=np.array('{"format": "welcometo-sim/value-model/1", '
                               '"layout": {"street_houses": [10, 11, 12], "plan_ids": []}}'))
    line = user_error(["compare", f"learned:weights={path}", "greedy", "--games", "2"], capsys)
    assert str(path) in line
    with pytest.raises(ModelError):
        ValueModel.load(path)


def test_train_command_needs_a_budget_and_a_fresh_folder(tmp_path, capsys):
    config = str(Path(__file__).resolve().parents[1] / "configs" / "solo.yaml")
    out = tmp_path / "t"
    assert "budget" in user_error(["train", config, "--out", str(out)], capsys)
    assert "no checkpoint.npz" in user_error(["train", config, "--out", str(out), "--games", "4", "--resume"],
                                              capsys)
    code, stdout, _ = wtsim(["train", config, "--out", str(out), "--games", "4", "--round-games", "2",
                             "--eval-every", "4", "--eval-games", "2", "--quiet"], capsys)
    assert code == 0 and "trained 4 games" in stdout
    assert "--resume" in user_error(["train", config, "--out", str(out), "--games", "8"], capsys)
    code, stdout, _ = wtsim(["train", "--out", str(out), "--games", "8", "--resume", "--quiet"], capsys)
    assert code == 0 and "trained 8 games" in stdout


def test_a_variant_plays_its_familys_shipped_model_when_there_is_one():
    assert shipped_family(Variant()) == "base"
    assert shipped_family(Variant(solo=True)) == "solo"
    assert shipped_family(Variant(solo=True, board="ice-cream")) == "solo"
    assert shipped_family(Variant(board="ice-cream")) == "ice-cream"
    assert shipped_family(Variant(board="ice-cream", advanced=True, expert=True)) == "ice-cream"
    assert shipped_family(Variant(board="christmas")) == "christmas"
    assert shipped_family(Variant(board="easter")) == "base"  # no model of its own: the base model
    ice_cream = ValueModel.load(shipped_path("ice-cream"))
    assert ice_cream.meta["training"]["init"].startswith("training/base/weights.npz#sha256=")
    strategy = LearnedStrategy(np.random.default_rng(0))
    game = Game(Variant(board="ice-cream"), [Seat("a", "learned", lambda rng: strategy),
                                            Seat("b", "random", parse_strategy("random"))], 5)
    game.play()
    assert np.array_equal(strategy._evaluator.weights, ice_cream.weights)
