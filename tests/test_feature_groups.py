"""The feature groups of the learned evaluation: `cards` (the next turn's
effects, public in the standard game) and `wide` (windows of four houses),
hand-checked indices, the layout and model file that name the groups, and
`wtsim train --features`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from helpers import user_error, wtsim
from welcometo_sim.games.welcome_to.data import EFFECTS
from welcometo_sim.games.welcome_to.effects import legal_plays
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.learning.evaluator import Evaluator, context_of
from welcometo_sim.learning.features import (CARD_COLUMNS, GLOBAL_COLUMNS, NEXT_STATES, UNKNOWN_NEXT, WIDE_STATES,
                                             Layout, global_features, next_counts, phase_of, sheet_rows,
                                             street_features, window_phase_of)
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.learning.model import ModelError, ValueModel, layout_for
from welcometo_sim.learning.train import (TrainSettings, TrainingError, init_setting, initial_weights, load_state,
                                         new_state)
from strategies.random import RandomStrategy

ROOT = Path(__file__).resolve().parents[1]
PLAIN_MODEL = ROOT / "training" / "base-1m" / "weights.npz"
"""A base model without feature groups (the one the shipped base model was trained on from)."""
BASE = str(ROOT / "configs" / "base.yaml")
STC = str(ROOT / "configs" / "shake-that-city.yaml")
SMALL = ["--round-games", "2", "--eval-every", "4", "--eval-games", "2", "--eval-opponent", "greedy", "--quiet"]


def test_next_counts_count_each_effect_kind_and_say_unknown_when_hidden():
    assert next_counts(("pool", "temp", "pool")) == (0, 0, 0, 2, 1, 0)
    assert next_counts(("bis",) * 3) == (0, 0, 0, 0, 0, 3)
    assert next_counts(None) == UNKNOWN_NEXT == (4,) * len(EFFECTS)


def test_the_cards_tables_follow_every_other_table():
    plain = layout_for(Variant().data)
    cards = layout_for(Variant().data, ("cards",))
    assert cards != plain and cards.groups == ("cards",) and plain.groups == ()
    assert {k: v for k, v in cards.offsets.items() if k in plain.offsets} == plain.offsets
    assert min(cards.offsets[t] for t in cards.offsets if t not in plain.offsets) == plain.size
    with pytest.raises(ValueError, match="feature groups"):
        Layout(plain.street_houses, plain.plan_ids, ("cars",))


def captured_view(variant: Variant, players: int, seed: int, turn: int):
    """The first seat's view at `turn` of a random game (with a copy of its sheet)."""
    seen = []

    class Recorder(RandomStrategy):
        def choose_play(self, view, plays):
            if view.turn == turn and view.seat == 0 and not seen:
                seen.append(replace(view, sheet=view.sheet.copy()))
            return super().choose_play(view, plays)

    play_game(variant, [Seat(f"s{i}", "random", lambda rng: Recorder(rng)) for i in range(players)], seed)
    return seen[0]


def test_the_card_columns_by_hand():
    """Two candidates' whole-sheet facts, and the columns the cards group
    adds worked out from the tables' definitions."""
    layout = layout_for(Variant().data, ("cards",))
    view = captured_view(Variant(), 2, 4, 12)
    context = context_of(view)
    context.next_counts = (1, 0, 0, 2, 0, 0)  # a surveyor and two pools next
    counts = np.zeros((2, 20), dtype=np.int64)
    counts[0, 2] = 1            # one completed estate of three
    counts[1, 12 + 3] = 2       # two open runs of four
    counts[1, 18:20] = (3, 4)   # three pools built, four possible
    real_estate = np.array([[0, 0, 1, 0, 0, 0], [0] * 6])
    index, _ = global_features(layout, context, counts, real_estate, np.array([2, 5]), np.array([0, 1]))
    first = GLOBAL_COLUMNS + len(context.plans)
    assert index.shape == (2, first + CARD_COLUMNS)
    phase = phase_of(context.turn)
    o = layout.offsets
    effects_key = 1 * NEXT_STATES ** 0 + 2 * NEXT_STATES ** 3
    assert index[0, first] == index[1, first] == o["next"] + phase * NEXT_STATES ** 6 + effects_key
    # estate of three: real-estate column 1 crossed, one completed, none open; no real-estate effect next
    estate_key = ((2 * 5 + 1) * 7 + 1) * 5 + 0
    assert index[0, 2] == o["estate"] + estate_key
    assert index[0, first + 1 + 2] == o["next_estate"] + estate_key * NEXT_STATES + 0
    pools_key = (phase * 10 + 3) * 7 + 4
    assert index[1, first + 7] == o["next_pools"] + pools_key * NEXT_STATES + 2
    temps_key = (phase * 12 + 5) * 7 + np.clip(5 - context.opponent_temps, -3, 3) + 3
    assert index[1, first + 8] == o["next_temps"] + temps_key * NEXT_STATES + 0
    assert index[1, first + 9] == o["next_bis"] + (phase * 10 + 1) * NEXT_STATES + 0
    assert index[0, first + 10] == o["next_fences"] + ((phase * 10 + 1) * 8 + 0) * NEXT_STATES + 1
    assert index[1, first + 10] == o["next_fences"] + ((phase * 10 + 0) * 8 + 2) * NEXT_STATES + 1


@pytest.mark.parametrize("variant, players, known", [(Variant(), 2, True), (Variant(solo=True), 1, False),
                                                      (Variant(expert=True), 2, False)],
                         ids=["base", "solo", "expert"])
def test_a_decision_sees_the_next_effects_where_the_game_shows_them(variant, players, known):
    view = captured_view(variant, players, 1, 5)
    assert context_of(view).next_counts == (next_counts(view.next_effects) if known else UNKNOWN_NEXT)
    # the sheet as it stands (the previous turn's afterstate) looks ahead to this turn's offers
    expected = next_counts(tuple(o.effect for o in view.offers)) if known else UNKNOWN_NEXT
    assert context_of(view, 0, 0).next_counts == expected


def test_the_next_effects_change_the_values_only_with_the_cards_group():
    view = captured_view(Variant(), 2, 2, 6)
    plays = legal_plays(view.sheet, view.offers)
    plain, cards = layout_for(Variant().data), layout_for(Variant().data, ("cards",))
    weights = np.random.default_rng(0).normal(size=cards.size)
    with_cards = Evaluator(weights, cards).reference_decision(view, plays)
    without = Evaluator(weights[:plain.size].copy(), plain).reference_decision(view, plays)
    card_part = weights[with_cards.global_features[:, -CARD_COLUMNS:]].sum(axis=1)
    assert np.allclose(with_cards.values, without.values + card_part)
    assert card_part.std() > 0  # the cards columns tell candidates apart, not only the turn


def test_the_wide_windows_by_hand():
    """Street 0 of a sheet with 3 written in house 1 and a fence after house
    2: its first wide windows, worked out from the codes' definitions."""
    plain = layout_for(Variant().data)
    layout = layout_for(Variant().data, ("wide",))
    sheet = Sheet(Variant().data)
    sheet.numbers[0][1] = 3
    sheet.fences[0][2] = True  # between houses 2 and 3: the last inner fence of the first window
    turn = 14
    features, _ = street_features(sheet_rows(sheet, layout.width), layout, turn)
    plain_features, _ = street_features(sheet_rows(sheet, plain.width), plain, turn)
    width = layout.width
    assert np.array_equal(features[:, :3 * width - 1], plain_features)  # the other tables first, unchanged
    wide = features[0, 3 * width - 1:]
    assert len(wide) == width - 3
    # house 0: numbers 0-2 fit (3 numbers: wide code 2); house 1: written (4); houses 2, 3, 4: 4..17 fit (3)
    start = layout.offsets["wide0"] + window_phase_of(turn) * layout.wide_count[0] * WIDE_STATES
    assert wide[0] == start + (((2 * 8 + 4) * 8 + 3) * 8 + 3) * 8 + 0b001
    assert wide[1] == start + WIDE_STATES + (((4 * 8 + 3) * 8 + 3) * 8 + 3) * 8 + 0b010
    assert wide[2] == start + 2 * WIDE_STATES + (((3 * 8 + 3) * 8 + 3) * 8 + 3) * 8 + 0b100
    street_10 = layout.street_houses[0] - 3  # street 0 has fewer houses than the widest: no window past its end
    assert not wide[street_10:].any()


def test_a_model_file_names_its_groups_and_a_file_without_them_loads_as_before(tmp_path):
    cards = layout_for(Variant().data, ("cards",))
    ValueModel(cards, np.zeros(cards.size)).save(tmp_path / "c.npz")
    loaded = ValueModel.load(tmp_path / "c.npz")
    assert loaded.layout == cards and loaded.meta["layout"]["groups"] == ["cards"]
    plain = ValueModel.load(PLAIN_MODEL)
    assert plain.layout.groups == () and "groups" not in plain.meta["layout"]
    assert plain.layout.size < cards.size


def test_a_model_file_with_an_unknown_group_is_refused_in_one_line(tmp_path):
    cards = layout_for(Variant().data, ("cards",))
    path = tmp_path / "c.npz"
    ValueModel(cards, np.zeros(cards.size)).save(path)
    with np.load(path) as archive:
        meta = json.loads(str(archive["meta"]))
        weights = archive["weights"]
    meta["layout"]["groups"] = ["cards", "dice"]
    np.savez_compressed(path, weights=weights, meta=np.array(json.dumps(meta)))
    with pytest.raises(ModelError, match="groups must be distinct names of cards, wide"):
        ValueModel.load(path)


def test_a_training_with_the_cards_group_starts_from_a_plain_model_its_new_tables_at_zero(tmp_path):
    plain = ValueModel.load(PLAIN_MODEL)
    settings = TrainSettings(variant=Variant().to_record(), players=2, seed=3, features=("cards",))
    start = settings.learning.initial_weights(str(PLAIN_MODEL), settings)
    settings = TrainSettings(variant=Variant().to_record(), players=2, seed=3, features=("cards",),
                             init=init_setting(str(PLAIN_MODEL), start))
    state = new_state(settings)
    assert len(state.weights) == layout_for(Variant().data, ("cards",)).size
    assert np.array_equal(state.weights[:plain.layout.size], plain.weights)
    assert not state.weights[plain.layout.size:].any()
    assert "--features cards" in state.reproduce("configs/base.yaml", tmp_path)


def test_the_cli_trains_with_the_group_keeps_it_on_resume_and_refuses_unknown_ones(tmp_path, capsys):
    out = tmp_path / "t"
    code, _, err = wtsim(["train", BASE, "--out", str(out), "--games", "4", "--features", "cards",
                          "--init", str(PLAIN_MODEL), *SMALL], capsys)
    assert code == 0, err
    assert load_state(out).settings.features == ("cards",)
    assert ValueModel.load(out / "weights.npz").layout.groups == ("cards",)
    line = user_error(["train", "--out", str(out), "--games", "8", "--resume", "--features", ""], capsys)
    assert "--features" in line and "differ from the training" in line
    code, _, err = wtsim(["train", "--out", str(out), "--games", "8", "--resume", "--quiet"], capsys)
    assert code == 0, err
    line = user_error(["train", BASE, "--out", str(tmp_path / "u"), "--games", "2", "--features", "dice", *SMALL],
                      capsys)
    assert line == "wtsim: error: --features 'dice': this game's feature groups are cards, wide"
    line = user_error(["train", STC, "--out", str(tmp_path / "s"), "--games", "2", "--features", "cards",
                       *SMALL], capsys)
    assert "this game's feature groups are none" in line
    assert not (tmp_path / "u").exists() and not (tmp_path / "s").exists()


def test_a_plain_training_cannot_start_from_a_cards_model(tmp_path):
    cards = layout_for(Variant().data, ("cards",))
    path = tmp_path / "c.npz"
    ValueModel(cards, np.zeros(cards.size)).save(path)
    settings = TrainSettings(variant=Variant().to_record(), players=2, seed=3)
    with pytest.raises(TrainingError, match="another feature layout.*; add --features cards to train on from it"):
        initial_weights(settings, str(path))


def test_a_training_with_more_groups_starts_from_a_model_whose_groups_come_first(tmp_path):
    """Groups follow one another in a fixed order: a `cards` model is the
    first part of a `cards,wide` one, a `wide` model is not."""
    data = Variant().data
    for groups in (("cards",), ("wide",)):
        layout = layout_for(data, groups)
        ValueModel(layout, np.arange(layout.size) % 7 / 8).save(tmp_path / f"{groups[0]}.npz")  # exact in float32
    settings = TrainSettings(variant=Variant().to_record(), players=2, seed=3, features=("cards", "wide"))
    start = initial_weights(settings, str(tmp_path / "cards.npz"))
    cards = layout_for(data, ("cards",))
    assert np.array_equal(start[:cards.size], np.arange(cards.size) % 7 / 8)
    assert not start[cards.size:].any() and len(start) == layout_for(data, ("cards", "wide")).size
    with pytest.raises(TrainingError, match="another feature layout"):
        initial_weights(settings, str(tmp_path / "wide.npz"))
