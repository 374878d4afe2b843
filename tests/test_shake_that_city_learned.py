"""Shake That City's `learned` player and `wtsim train` on that game.

The learned value is greedy's plus an n-tuple correction over the board
after each candidate placement; the correction's features are read from
every candidate at once, so they are checked here against the boards the
game itself builds, construction tiles cleared included.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import user_error, wtsim
from welcometo_sim.games.shake_that_city import BUILDINGS, load_rules, play_game
from welcometo_sim.games.shake_that_city.game import GameState
from welcometo_sim.games.shake_that_city.learned import (CONSTRUCTION_CODE, LearnedModel, TupleLayout, board_codes,
                                                        candidate_codes)
from welcometo_sim.games.shake_that_city.strategies import LearnedStrategy, RandomStrategy
from welcometo_sim.games.shake_that_city.training import LEARNING
from welcometo_sim.learning.train import TrainSettings, learn_from_traces, load_state, new_state, train

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "shake-that-city.yaml")
SMALL = ["--round-games", "2", "--eval-every", "4", "--eval-games", "2", "--eval-opponent", "greedy", "--quiet"]


def positions(variant: dict, seed: int, rounds: int):
    """Every decision of a random game's first `rounds` rounds, as (view, moves)."""
    rules = load_rules({"variant": variant}, 2)
    state = GameState(rules, 2, seed)
    pick = np.random.default_rng(seed)
    while state.decision is not None and state.round <= rounds:
        decision = state.decision
        if decision.seat < 0:
            state.apply(None)
            continue
        yield decision.view, decision.options
        state.apply(decision.options[int(pick.integers(len(decision.options)))])


@pytest.mark.parametrize("variant", [{}, {"construction": True}, {"side": "seaside", "wild_nights": True}])
def test_every_candidate_board_is_read_as_the_game_builds_it(variant):
    checked = cleared = 0
    for seed in (3, 4):
        for view, moves in positions(variant, seed, 15):
            placements = [(BUILDINGS.index(m.building), view.masks[m]) for m in moves]
            codes = candidate_codes(view.board, placements)
            for row, move in enumerate(moves):
                after = view.after(move)
                assert np.array_equal(codes[row], board_codes(after)), (seed, move)
                cleared += len(after.construction) < len(view.board.construction)
                checked += 1
    assert checked > 200
    if variant.get("construction"):
        assert cleared > 0  # the construction tiles a placement clears were met and read as empty cells


def test_board_codes_of_a_hand_built_board():
    rules = load_rules({"variant": {"construction": True}}, 2)
    from welcometo_sim.games.shake_that_city import Board

    layout = rules.layout
    board = Board.from_grid(layout, ["H.....", ".P....", "......", "......", "......", ".....S"], [((2, 2), 0)])
    codes = board_codes(board).reshape(layout.rows, layout.cols)
    assert codes[0, 0] == 1 + BUILDINGS.index("home")
    assert codes[1, 1] == 1 + BUILDINGS.index("park")
    assert codes[5, 5] == 1 + BUILDINGS.index("shop")
    assert codes[2, 2] == CONSTRUCTION_CODE
    assert (codes != 0).sum() == 4


def test_the_tuple_indices_of_a_board():
    layout = TupleLayout(6, 6)
    codes = np.zeros((1, 36), dtype=np.int64)
    codes[0, 0] = 3  # one building in the top-left corner: the first square's first cell
    codes[0, 35] = 6  # a construction tile in the bottom-right corner: the last square's last cell
    active = layout.indices(codes, 12)
    assert layout.n_squares == 25 and layout.bias_repeat == 5 and active.shape == (1, 30)
    stage = layout.stage(12)
    assert stage == 2 and layout.stage(10) == 2 and layout.stage(9) == 1 and layout.stage(4) == 0
    table = 7 ** 4
    first = stage * 25 * table
    assert active[0, 0] == first + 3 * 7 ** 3
    assert [active[0, k] for k in range(1, 24)] == [first + k * table for k in range(1, 24)]  # empty squares
    assert active[0, 24] == first + 24 * table + 6
    assert all(index == layout.bias_start + 12 for index in active[0, 25:])
    assert layout.size == 3 * 25 * table + 32 and active.max() < layout.size


def test_an_untrained_learned_player_plays_as_greedy():
    rules = load_rules({"variant": {"construction": True}}, 2)
    for seed in (1, 2, 3):
        untrained = LearnedStrategy(None, None, LearnedModel(rules.data.rows, rules.data.cols))
        learned = play_game([untrained, "random"], seed, {"variant": {"construction": True}})
        greedy = play_game(["greedy", "random"], seed, {"variant": {"construction": True}})
        assert learned.record["boards"] == greedy.record["boards"]
        assert learned.record["scores"] == greedy.record["scores"]


def test_learning_moves_each_chosen_board_toward_the_final_score():
    rules = load_rules({}, 2)
    model = LearnedModel(rules.data.rows, rules.data.cols)
    learner = LearnedStrategy(None, None, model, trace=True)
    result = play_game([learner, RandomStrategy], 5, rules)
    final = float(result.record["scores"][0]["total"])
    assert len(learner.trace) == rules.data.rounds - 1  # every decision but the last round's exact one
    first = learner.trace[0]
    active, value = first[0], first[1]
    assert len(np.unique(active)) < len(active)  # the empty square's weight is there many times
    before = model.weights[active].sum()
    learn_from_traces(model.weights, [[first], None], [final, 0.0], 0.5, 1.0)
    after = model.weights[active].sum()
    assert after - before == pytest.approx(0.5 * (final - value))  # half the error: no overshoot from repeats


def test_a_model_file_round_trips_and_a_wrong_one_is_one_line(tmp_path, capsys):
    model = LearnedModel(6, 6)
    model.weights[:10] = np.arange(10)
    model.meta["seed"] = 9
    model.save(tmp_path / "m.npz")
    loaded = LearnedModel.load(tmp_path / "m.npz")
    assert np.array_equal(loaded.weights[:10], np.arange(10)) and loaded.meta["seed"] == 9
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    config = tmp_path / "c.yaml"
    config.write_text(f"game: shake-that-city\ngames: 2\nplayers:\n  - strategy: learned\n"
                      f"    params: {{weights: {tmp_path / 'bad.npz'}}}\n  - strategy: random\n")
    line = user_error(["run", str(config), "--out", str(tmp_path / "o"), "-q"], capsys)
    assert "bad.npz" in line and "model file" in line


def test_train_on_shake_that_city_plays_its_weights_and_resumes_exactly(tmp_path, capsys):
    code, out, err = wtsim(["train", CONFIG, "--out", str(tmp_path / "t"), "--games", "8", *SMALL], capsys)
    assert code == 0, err
    assert "against greedy" in out
    state = load_state(tmp_path / "t")
    assert state.settings.game == "shake-that-city" and state.games == 8
    assert np.any(state.weights != 0)
    code, _, err = wtsim(["train", CONFIG, "--out", str(tmp_path / "h"), "--games", "4", *SMALL], capsys)
    assert code == 0, err
    code, _, err = wtsim(["train", "--out", str(tmp_path / "h"), "--games", "8", "--resume", "--quiet"], capsys)
    assert code == 0, err
    assert np.array_equal(load_state(tmp_path / "h").weights, state.weights)
    config = tmp_path / "play.yaml"
    config.write_text(f"game: shake-that-city\ngames: 4\nseed: 2\nplayers:\n  - strategy: learned\n"
                      f"    params: {{weights: {tmp_path / 't' / 'weights.npz'}}}\n  - strategy: greedy\n")
    code, _, err = wtsim(["run", str(config), "--out", str(tmp_path / "run"), "-q"], capsys)
    assert code == 0, err


def test_training_is_the_same_for_any_jobs(tmp_path):
    settings = TrainSettings(variant={"variant": {}, "overrides": None}, players=2, seed=3, shards=2, round_games=2,
                             eval_every=4, eval_games=2, eval_opponent="greedy", game="shake-that-city")
    one = train(new_state(settings), games=4, seconds=None, jobs=1, folder=tmp_path / "a", command="t")
    two = train(new_state(settings), games=4, seconds=None, jobs=2, folder=tmp_path / "b", command="t")
    assert np.array_equal(one.weights, two.weights)
    assert one.weights.shape == (LEARNING.size(settings),)


def test_the_bare_name_plays_the_bundled_model_of_its_variant():
    from welcometo_sim.games.shake_that_city.learned import bundled_weights

    inland = bundled_weights("inland")
    assert inland.is_file() and bundled_weights("inland", solo=True).name == "inland-solo.npz"
    player = LearnedStrategy(None, None)
    play_game([player, "greedy"], 3, {})
    assert player.model.meta["side"] == "inland" and np.array_equal(player.model.weights,
                                                                     LearnedModel.load(inland).weights)
    assert "games" in player.model.meta and "reproduce" in player.model.meta  # how it was trained, with it
    assert bundled_weights("inland", family=True).name == "inland-family.npz"
    assert bundled_weights("seaside").is_file()
    for variant in ({"side": "seaside", "family": True}, {"family": True}):  # no model: greedy's play exactly
        assert not bundled_weights(variant.get("side", "inland"), family=variant.get("family", False)).is_file()
        learned = play_game(["learned", "random"], 4, {"variant": variant})
        greedy = play_game(["greedy", "random"], 4, {"variant": variant})
        assert learned.record["boards"] == greedy.record["boards"], variant


def test_a_board_of_another_size_plays_as_greedy_rather_than_on_the_bundled_model():
    from types import SimpleNamespace

    rules = SimpleNamespace(data=SimpleNamespace(rows=7, cols=7), layout=SimpleNamespace(side="inland"),
                            variant=SimpleNamespace(solo=False, family=False))
    model = LearnedStrategy(None, None)._model_for(SimpleNamespace(rules=rules))
    assert (model.layout.rows, model.layout.cols) == (7, 7) and not model.weights.any()
    trained = LearnedModel(6, 6)
    with pytest.raises(ValueError, match="a model of a 6x6 board cannot play a 7x7 one"):
        LearnedStrategy(None, None, trained)._model_for(SimpleNamespace(rules=rules))


def test_the_64th_cell_of_the_largest_board_is_read():
    from welcometo_sim.games.shake_that_city.learned import _bits, _cells

    assert _cells((1 << 63) | 1, 64).tolist() == [0, 63]
    assert _bits([1 << 63, 0b110], 64).sum(axis=1).tolist() == [1, 2]
