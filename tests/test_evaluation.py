"""The evaluation terms: hand-built sheets, and the move evaluator agreeing
with a full re-evaluation of a copied sheet after every kind of move."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers import sheet_from
from welcometo_sim.games.welcome_to.evaluation import (MoveEvaluator, board_value, estate_potential, flexibility,
                                                       plan_progress, points_now, sheet_terms)
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
from welcometo_sim.games.welcome_to.effects import (Offer, apply_effect, apply_play, effect_options,
                                                    legal_plays)
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

PLANS = (DEFAULT_DATA.plan("estates-3-3-3"), DEFAULT_DATA.plan("estates-4-5"), DEFAULT_DATA.plan("estates-2-5"))


def test_flexibility_of_an_empty_sheet_counts_every_house():
    assert flexibility(sheet_from()) == 33


def test_a_number_at_the_wrong_end_kills_the_houses_beyond_it():
    # 15 in the first house of the top street: the 9 houses to its right can only
    # take 16 and 17 (temp agency only, weight 0.25 each): 0.5 house left there.
    sheet = sheet_from("15")
    assert flexibility(sheet) == pytest.approx(0.5 + 11 + 12)


def test_estate_potential_counts_built_share_squared():
    # a fenced run of 4 with 2 houses built: (2/4)^2 * value of a 4-estate (4),
    # and the run of 6 after the fence with 1 built: (1/6)^2 * 6
    sheet = sheet_from("1 2 . . | 9")
    assert estate_potential(sheet) == pytest.approx(0.25 * 4 + 6 / 36)


def test_points_now_and_plan_progress_on_a_known_sheet():
    sheet = sheet_from("1 2 3 | 4 5 6 | 7 8 9 10")
    # estates of 3, 3 and 4 completed: 3 + 3 + 4 points; no temps
    assert points_now(sheet) == 10
    # estates-3-3-3 has 2 of 3 estates (8 * 2/3), estates-4-5 one of two (9 / 2)
    assert plan_progress(sheet, PLANS) == pytest.approx(8 * 2 / 3 + 9 / 2)
    assert board_value(sheet) == 0


def _close(a, b) -> bool:
    return all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b))


@pytest.mark.parametrize("seed", range(6))
def test_move_evaluator_matches_sheet_terms_after_every_move(seed):
    """For every legal play and effect at every turn of random games, the terms
    the move evaluator predicts equal those of the copied sheet after the move."""
    rng = np.random.default_rng(seed)
    strategy = parse_strategy("random:roundabout_rate=0.2")
    game = Game(Variant(advanced=seed % 2 == 0), [Seat("a", "random", strategy)] * 2, seed)
    checked = 0
    while True:
        for sheet in game.sheets:
            cards = [DEFAULT_DATA.deck[i] for i in rng.integers(len(DEFAULT_DATA.deck), size=3)]
            offers = [Offer(n, e, i, i) for i, (n, e) in enumerate(cards)]
            evaluator = MoveEvaluator(sheet, game.plans, game.first_turn, 0.5)
            for play in legal_plays(sheet, offers):
                after = sheet.copy()
                apply_play(after, play)
                expected = sheet_terms(after, game.plans, game.first_turn, 0.5)
                assert _close(evaluator.after_write(play.street, play.house, play.number, False, play.temp),
                              expected), play
                checked += 1
                after_evaluator = MoveEvaluator(after, game.plans, game.first_turn, 0.5)
                for effect in effect_options(after, offers[play.offer], play):
                    trial = after.copy()
                    apply_effect(trial, effect)
                    predicted = {
                        "surveyor": lambda: after_evaluator.after_fence(effect.street, effect.position),
                        "bis": lambda: after_evaluator.after_write(effect.street, effect.position,
                                                                   effect.number, bis=True),
                        "real_estate": lambda: after_evaluator.after_real_estate(effect.position),
                        "landscaper": lambda: after_evaluator.after_landscaper(effect.street),
                        "pool": lambda: after_evaluator.after_pool(),
                    }[effect.kind]()
                    assert _close(predicted, sheet_terms(trial, game.plans, game.first_turn, 0.5)), effect
                    checked += 1
        if game.play_turn():
            break
    assert checked > 500
