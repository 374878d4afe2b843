"""The evaluation terms about the future (park potential, pool chances, the
temp race, turns left, urgency, estate projection) on hand-built sheets whose
answers are worked out by hand from the tables of RULES.md §1, §9 and §14,
the move evaluator with a per-size estate bonus, and heuristic's plan bonus.

Tables used below: park tracks top (0, 2, 4, 10), middle (0, 2, 4, 6, 14),
bottom (0, 2, 4, 6, 8, 18); pool houses top 2, 6, 7 / middle 0, 3, 7 /
bottom 1, 6, 10; estate values 1, 2, 3, 4, 5, 6 with no box crossed (a size-5
estate is worth 6 after one box); temp ranking 7, 4, 1 (dense, 0 temps score 0).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers import sheet_from
from strategies.heuristic import plan_size_bonus
from welcometo_sim.games.welcome_to.evaluation import (Coverage, MoveEvaluator, estate_projection, fitting_numbers,
                                                       fitting_share, is_pool_chance, park_potential,
                                                       park_potential_gain, pool_chances, refusal_chance, sheet_terms,
                                                       temp_race_value, turns_left, urgency)
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA, POOL_HOUSES, TEMP_RANK_POINTS
from welcometo_sim.games.welcome_to.effects import Offer, apply_effect, apply_play, effect_options, legal_plays
from welcometo_sim.games.welcome_to.game import Game, PlayerView, Seat
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

PLANS = (DEFAULT_DATA.plan("estates-3-3-3"), DEFAULT_DATA.plan("estates-4-5"), DEFAULT_DATA.plan("estates-2-5"))


# ------------------------------------------------------------- park potential
@pytest.mark.parametrize("parks, expected", [
    ([0, 0, 0], 0.0),
    ([1, 0, 0], 10 * 1 / 3 - 2),                       # 1 of 3 top parks: 4/3
    ([2, 2, 0], (10 * 2 / 3 - 4) + (14 * 2 / 4 - 4)),  # 8/3 + 3
    ([0, 0, 4], 18 * 4 / 5 - 8),                       # 6.4
    ([3, 4, 5], 0.0),                                  # every track finished: all scored
])
def test_park_potential_is_the_unscored_share_of_each_final_park_bonus(parks, expected):
    assert park_potential(sheet_from(parks=parks)) == pytest.approx(expected)


@pytest.mark.parametrize("parks, street, expected", [
    ([0, 0, 0], 0, 10 / 3 - 2),        # first top park: its share 10/3, minus the 2 it scores now
    ([0, 1, 0], 1, 14 / 4 - (4 - 2)),  # 1.5
    ([2, 0, 0], 0, 10 / 3 - (10 - 4)),  # last top park: 8/3 of potential turns into points
    ([0, 0, 4], 2, 18 / 5 - (18 - 8)),  # last bottom park: -6.4
])
def test_park_potential_gain_of_one_more_park(parks, street, expected):
    sheet = sheet_from(parks=parks)
    assert park_potential_gain(sheet, street) == pytest.approx(expected)
    crossed = sheet_from(parks=[k + (s == street) for s, k in enumerate(parks)])
    assert park_potential(crossed) - park_potential(sheet) == pytest.approx(expected)


def test_a_finished_park_track_has_no_gain_left():
    """No park can be crossed on a finished track (the landscaper does nothing,
    RULES.md §5.3), so park potential cannot change: the gain is 0."""
    assert park_potential_gain(sheet_from(parks=[3, 0, 0]), 0) == 0


# --------------------------------------------------------------- pool chances
def test_every_pool_house_of_an_empty_sheet_is_a_chance():
    sheet = sheet_from()
    assert pool_chances(sheet) == 9
    chances = [(s, h) for s, row in enumerate(sheet.numbers) for h in range(len(row)) if is_pool_chance(sheet, s, h)]
    assert chances == [(s, h) for s, houses in enumerate(POOL_HOUSES) for h in houses]


def test_written_and_roundabout_pool_houses_are_no_chance():
    # top 0 1 2: pool house 2 written (with or without its pool); middle: a
    # roundabout on pool house 3; bottom house 0 written (not a pool house)
    sheet = sheet_from("0 1 2", "", "5")
    sheet.build_roundabout(1, 3)
    assert pool_chances(sheet) == 9 - 2
    assert not is_pool_chance(sheet, 0, 2)
    assert not is_pool_chance(sheet, 0, 1)       # not a pool house
    assert is_pool_chance(sheet, 0, 6)
    assert is_pool_chance(sheet, 2, 1)


def test_a_roundabout_on_a_pool_house_is_no_chance():
    """A roundabout takes no number and no pool (RULES.md §10): `is_pool_chance`
    agrees with `pool_chances`, which does not count it."""
    sheet = sheet_from()
    sheet.build_roundabout(1, 3)
    assert pool_chances(sheet) == 8
    assert not is_pool_chance(sheet, 1, 3)


# ------------------------------------------------------------------ temp race
@pytest.mark.parametrize("own, others, expected", [
    (0, [5], 4),        # 0 temps score 0; 1 against 5 is second: 4
    (4, [5], 3),        # second (4) -> tied first (7)
    (5, [5], 0),        # tied first -> first alone: still 7
    (6, [5], 0),        # already first
    (0, [0], 7),        # the only player with a temp is first
    (2, [5, 3, 3], 3),  # counts 5, 3, 2: third (1) -> tied second (4)
    (0, [5, 4, 3], 0),  # 1 temp would be the fourth distinct count: 0 -> 0
    (3, [5, 4, 3], 3),  # third (1) -> tied second (4)
    (4, [5, 4, 3], 3),  # second (4) -> tied first (7)
    (0, [], 0),         # solo: no race
])
def test_temp_race_value_uses_dense_ranking(own, others, expected):
    assert temp_race_value(own, others, TEMP_RANK_POINTS) == expected


# ------------------------------------------------------------ turns and urgency
@pytest.mark.parametrize("turn, refusals, cards_left, horizon, expected", [
    (5, [0, 0], -1, 30, 25),      # the horizon minus the turn
    (29, [0, 0], -1, 30, 1),
    (35, [0], -1, 30, 1),         # never below 1
    (5, [0], -1, 20, 15),
    (5, [2, 0], -1, 30, 4),       # someone one refusal from the end
    (5, [0, 1], -1, 30, 10),      # someone two refusals from the end
    (27, [1, 0], -1, 30, 3),      # the horizon is nearer than 10
    (5, [], -1, 30, 25),
    (5, [0], 60, 30, 21),         # solo: 60 cards make 20 more turns of 3, plus this one
    (5, [0], 6, 30, 3),           # solo deck nearly out
    (5, [0], 2, 30, 1),
    (5, [2], 60, 30, 4),
])
def test_turns_left(turn, refusals, cards_left, horizon, expected):
    assert turns_left(turn, refusals, 3, cards_left, horizon) == expected


@pytest.mark.parametrize("left, expected", [(10, 1.0), (8, 1.0), (4, 0.5), (2, 0.25), (0, 0.0)])
def test_urgency_fades_over_the_last_turns(left, expected):
    assert urgency(left, 8) == pytest.approx(expected)


# ---------------------------------------------------------- estate projection
def test_estate_projection_of_two_open_runs():
    # top: a fenced run of 4 (2 built) and a run of 6 (1 built); the other
    # streets are single runs longer than 6, which cannot be estates
    sheet = sheet_from("1 2 . . | 9")
    open_value, share_value = estate_projection(sheet)
    assert open_value == pytest.approx(4 + 6)
    assert share_value == pytest.approx(2 / 4 * 4 + 1 / 6 * 6)
    terms = sheet_terms(sheet, PLANS)
    assert (terms.open_estates, terms.built_share) == pytest.approx((10, 3))


def test_estate_projection_with_a_size_bonus():
    # sizes 4 and 6 are worth 4 + 1.5 and 6 + 2
    bonus = (0.0, 0.0, 0.0, 1.5, 0.0, 2.0)
    sheet = sheet_from("1 2 . . | 9")
    assert estate_projection(sheet, bonus) == pytest.approx((5.5 + 8, 2 / 4 * 5.5 + 1 / 6 * 8))
    terms = sheet_terms(sheet, PLANS, size_bonus=bonus)
    assert (terms.open_estates, terms.built_share) == pytest.approx((13.5, 2.75 + 8 / 6))


def test_estate_projection_skips_completed_runs_and_roundabouts():
    # top: 1 2 3 complete (not open); 4 . a run of 2, half built; 6 . . . . a run
    # of 5, a fifth built, worth 6 after one box of the size-5 column.
    # middle: an empty run of 2, then 9 houses (too long).
    # bottom: a roundabout on house 5 fences an empty run of 5 (worth 6) on its
    # left and an empty run of 6 on its right; its own one-house run never scores.
    sheet = sheet_from("1 2 3 | 4 . | 6 . . . .", ". . |", real_estate=[0, 0, 0, 0, 1, 0])
    sheet.build_roundabout(2, 5)
    open_value, share_value = estate_projection(sheet)
    assert open_value == pytest.approx(2 + 6 + 2 + 6 + 6)
    assert share_value == pytest.approx(1 / 2 * 2 + 1 / 5 * 6)


# ------------------------------------------------- move evaluator with a bonus
SIZE_BONUS = (0.5, 1.0, 0.0, 2.0, 1.5, 3.0)


def _assert_same_terms(predicted, expected, move) -> None:
    for field in expected._fields:
        assert math.isclose(getattr(predicted, field), getattr(expected, field), abs_tol=1e-9), (field, move)


@pytest.mark.parametrize("seed", range(2))
def test_move_evaluator_with_a_size_bonus_matches_sheet_terms_after_every_move(seed):
    """As in test_evaluation, with a per-size bonus: every Terms field the move
    evaluator predicts equals that of the copied sheet after the move."""
    rng = np.random.default_rng(100 + seed)
    strategy = parse_strategy("random:roundabout_rate=0.2")
    game = Game(Variant(advanced=seed == 0), [Seat("a", "random", strategy)] * 2, 100 + seed)
    checked = 0
    while True:
        for sheet in game.sheets:
            cards = [DEFAULT_DATA.deck[i] for i in rng.integers(len(DEFAULT_DATA.deck), size=3)]
            offers = [Offer(n, e, i, i) for i, (n, e) in enumerate(cards)]
            evaluator = MoveEvaluator(sheet, game.plans, game.first_turn, 0.5, SIZE_BONUS)
            _assert_same_terms(evaluator.base(), sheet_terms(sheet, game.plans, game.first_turn, 0.5, SIZE_BONUS),
                               "none")
            for play in legal_plays(sheet, offers):
                after = sheet.copy()
                apply_play(after, play)
                expected = sheet_terms(after, game.plans, game.first_turn, 0.5, SIZE_BONUS)
                _assert_same_terms(evaluator.after_write(play.street, play.house, play.number, False, play.temp),
                                   expected, play)
                checked += 1
                after_evaluator = MoveEvaluator(after, game.plans, game.first_turn, 0.5, SIZE_BONUS)
                for effect in effect_options(after, offers[play.offer], play):
                    trial = after.copy()
                    apply_effect(trial, effect)
                    _assert_same_terms(after_evaluator.after_effect(effect),
                                       sheet_terms(trial, game.plans, game.first_turn, 0.5, SIZE_BONUS), effect)
                    checked += 1
        if game.play_turn():
            break
    assert checked > 500


# ------------------------------------------------------- heuristic's plan bonus
def _view(plans, first_turn=(None, None, None), plan_turns=(None, None, None)) -> PlayerView:
    sheet = sheet_from(plan_turns=list(plan_turns))
    return PlayerView(0, 5, sheet, [], None, tuple(plans), tuple(first_turn), (), 60, Variant(), 2)


def test_plan_size_bonus_shares_each_open_plan_among_its_estates():
    # 3-3-3 (8): 8/3 per size-3 estate, three of them: 8; 4-5 (9): 4.5 each;
    # 2-5 (7): 3.5 each; times the commitment 0.5
    bonus = plan_size_bonus(_view(PLANS), 0.5)
    assert bonus == pytest.approx([0, 0.5 * 3.5, 0.5 * 8, 0.5 * 4.5, 0.5 * (4.5 + 3.5), 0])


def test_plan_size_bonus_uses_the_low_value_once_a_plan_was_completed_by_someone():
    # 4-5 now worth 5: 2.5 per estate
    bonus = plan_size_bonus(_view(PLANS, first_turn=(None, 4, None)), 1.0)
    assert bonus == pytest.approx([0, 3.5, 8, 2.5, 2.5 + 3.5, 0])


def test_plan_size_bonus_leaves_out_own_completed_and_non_estate_plans():
    plans = (DEFAULT_DATA.plan("full-street-top"), PLANS[1], PLANS[2])
    assert plan_size_bonus(_view(plans), 1.0) == pytest.approx([0, 3.5, 0, 4.5, 8, 0])
    # the 2-5 plan done by this player: only 4-5 is left
    assert plan_size_bonus(_view(PLANS, plan_turns=(None, None, 7)), 1.0) == pytest.approx([0, 0, 8, 4.5, 4.5, 0])
    assert plan_size_bonus(_view(PLANS), 0.0) == [0.0] * 6


# ------------------------------------------------------------- refusal risk
# Cards per number in the deck (RULES.md §1.2): 1:3 2:3 3:4 4:5 5:6 6:7 7:8
# 8:9 9:8 10:7 11:6 12:5 13:4 14:3 15:3 (81 cards; 0, 16 and 17: none).
FULL_MIDDLE = "0 1 2 3 4 5 6 7 8 9 10"
FULL_BOTTOM = "0 1 2 3 4 5 6 7 8 9 10 11"


def only_seven_fits():
    """A sheet whose only empty house (top street, house 6) lies between 6 and 8."""
    return sheet_from("1 2 3 4 5 6 . 8 9 10", FULL_MIDDLE, FULL_BOTTOM)


def test_fitting_numbers_of_an_empty_and_an_almost_full_sheet():
    assert fitting_numbers(sheet_from()) == [True] * 18
    fits = fitting_numbers(only_seven_fits())
    assert [n for n, fit in enumerate(fits) if fit] == [7]
    assert fitting_share(only_seven_fits()) == pytest.approx(8 / 81)
    assert fitting_share(sheet_from()) == pytest.approx(1.0)


def test_refusal_chance_with_plain_and_temp_offers():
    sheet = only_seven_fits()
    # numbers 5, 7, 1, 2 equally likely: a plain offer fits 1 in 4 (the 7)
    assert refusal_chance(sheet, [5, 7, 1, 2], [False] * 3) == pytest.approx(0.75 ** 3)
    # a temp offer also fits the 5 (5 + 2 = 7): 2 in 4
    assert refusal_chance(sheet, [5, 7, 1, 2], [True, False, False]) == pytest.approx(0.5 * 0.75 ** 2)
    # a temp agency with chance 1/2: misses 1/2 · 1/2 + 1/2 · 3/4 = 5/8
    assert refusal_chance(sheet, [5, 7, 1, 2], [0.5]) == pytest.approx(5 / 8)
    assert refusal_chance(sheet, [], [False] * 3) == 0.0
    assert refusal_chance(sheet_from(), [5, 7, 1, 2], [False] * 3) == 0.0


@pytest.mark.parametrize("top, house, number, expected", [
    ("1 2 3 4 5 6 . 8 9 10", 6, 7, 0.0),        # the last fitting house taken
    ("1 . . 10 11 12 13 14 15 16", 1, 5, (7 + 8 + 9 + 8) / 81),  # 2..5 lost; house 2 still takes 6..9
    ("1 . . 10 11 12 13 14 15 16", 2, 5, (3 + 4 + 5) / 81),      # house 1 still takes 2..4; 5..9 lost
    ("1 . . . 10 11 12 13 14 15", 2, 5, (3 + 4 + 5 + 7 + 8 + 9 + 8) / 81),  # only the 5 is lost
])
def test_coverage_share_after_a_write_matches_the_sheet_after_it(top, house, number, expected):
    sheet = sheet_from(top, FULL_MIDDLE, FULL_BOTTOM)
    coverage = Coverage(sheet)
    assert coverage.share == pytest.approx(fitting_share(sheet))
    assert coverage.share_after_write(0, house, number) == pytest.approx(expected)
    sheet.write(0, house, number)
    assert fitting_share(sheet) == pytest.approx(expected)


def test_coverage_keeps_numbers_another_gap_still_takes():
    """The middle street's gap also takes 2..9, so writing the top one loses nothing."""
    sheet = sheet_from("1 . 10", "0 1 . 10", FULL_BOTTOM)
    assert Coverage(sheet).share_after_write(0, 1, 5) == pytest.approx(fitting_share(sheet))
