"""RULES.md §5: the legal options of every effect and what applying them does."""

from __future__ import annotations

import pytest

from welcometo_sim.games.welcome_to.data import (BIS, LANDSCAPER, POOL, POOL_HOUSES, REAL_ESTATE,
                                                 REAL_ESTATE_TRACKS, SURVEYOR, TEMP)
from welcometo_sim.games.welcome_to.effects import (Effect, Offer, Play, apply_effect, apply_play,
                                                    effect_options)
from welcometo_sim.games.welcome_to.scoring import score_sheet
from welcometo_sim.games.welcome_to.sheet import Sheet

from helpers import sheet_from

ALL_SLOTS = {(s, k) for s, n in enumerate((10, 11, 12)) for k in range(n - 1)}


def options_after(sheet, number, effect, street, house, temp=False):
    """Write `number` at (street, house) with offer (number, effect); the effect options."""
    offer = Offer(number, effect, 0, 0)
    play = Play(0, street, house, number, temp)
    apply_play(sheet, play)
    return effect_options(sheet, offer, play)


# ------------------------------------------------------------------ surveyor
def test_surveyor_on_an_empty_sheet_offers_every_slot_of_every_street():
    opts = options_after(Sheet(), 4, SURVEYOR, 1, 3)
    assert len(opts) == 30
    assert {(e.street, e.position) for e in opts} == ALL_SLOTS
    assert all(e.kind == SURVEYOR for e in opts)


def test_surveyor_excludes_existing_fences_bis_pairs_and_one_plans_line():
    # street 0: fence at slot 1, bis pair 5 5b on houses 2-3 (slot 2), 7 7b 7b (slots 4, 5)
    # street 1: houses 0-2 under plan 1's line (slots 0, 1), houses 3-4 under plan 2's line (slot 3)
    #           slot 2 lies between plan 1 and plan 2 houses: a different plan, so allowed
    sheet = sheet_from("1 2 | 5 5b 6 7 7b 7b", "1~1 2~1 3~1 4~2 5~2 6", "")
    opts = options_after(sheet, 9, SURVEYOR, 2, 4)
    got = {(e.street, e.position) for e in opts}
    assert got == ALL_SLOTS - {(0, 1), (0, 2), (0, 5), (0, 6), (1, 0), (1, 1), (1, 3)}


def test_surveyor_on_any_street_not_only_the_written_one():
    sheet = Sheet()
    opts = options_after(sheet, 4, SURVEYOR, 0, 0)
    assert Effect(SURVEYOR, 2, 10) in opts and Effect(SURVEYOR, 1, 0) in opts


def test_apply_surveyor_draws_the_fence_and_splits_estates():
    sheet = sheet_from("1 2 3 4 5 6 7 | 8 |")
    assert sheet.completed_estates() == [(0, 7, 1)]
    apply_effect(sheet, Effect(SURVEYOR, 0, 2))
    assert sheet.fences[0][2]
    assert sheet.completed_estates() == [(0, 0, 3), (0, 3, 4), (0, 7, 1)]
    assert not sheet.fence_allowed(0, 2)


# --------------------------------------------------------------- real estate
def test_real_estate_offers_every_column_on_a_fresh_sheet():
    opts = options_after(Sheet(), 4, REAL_ESTATE, 0, 0)
    assert opts == [Effect(REAL_ESTATE, None, size) for size in range(1, 7)]


def test_real_estate_exhausted_columns_are_not_offered():
    boxes = [len(track) - 1 for track in REAL_ESTATE_TRACKS]
    assert boxes == [1, 2, 3, 4, 4, 4]
    sheet = sheet_from(real_estate=[1, 2, 2, 4, 3, 4])
    opts = options_after(sheet, 4, REAL_ESTATE, 0, 0)
    assert [e.position for e in opts] == [3, 5]
    sheet = sheet_from(real_estate=boxes)
    assert options_after(sheet, 4, REAL_ESTATE, 0, 0) == []


def test_apply_real_estate_raises_the_value_of_that_size():
    sheet = sheet_from("1 2 3 | 4 5 6 |")
    assert score_sheet(sheet, 0)["estates"] == 6
    apply_effect(sheet, Effect(REAL_ESTATE, None, 3))
    assert sheet.real_estate == [0, 0, 1, 0, 0, 0]
    assert score_sheet(sheet, 0)["estates"] == 8
    for _ in range(2):
        apply_effect(sheet, Effect(REAL_ESTATE, None, 3))
    assert score_sheet(sheet, 0)["estates"] == 12


# ---------------------------------------------------------------- landscaper
@pytest.mark.parametrize("street", [0, 1, 2])
def test_landscaper_is_on_the_street_written(street):
    sheet = Sheet()
    opts = options_after(sheet, 4, LANDSCAPER, street, 5)
    assert opts == [Effect(LANDSCAPER, street)]
    apply_effect(sheet, opts[0])
    expected = [0, 0, 0]
    expected[street] = 1
    assert sheet.parks == expected


@pytest.mark.parametrize("street, full", [(0, 3), (1, 4), (2, 5)])
def test_landscaper_does_nothing_when_the_street_track_is_full(street, full):
    sheet = sheet_from(parks=[3, 4, 5])
    assert options_after(sheet, 4, LANDSCAPER, street, 5) == []
    sheet = sheet_from(parks=[full - 1] * 3)
    assert options_after(sheet, 4, LANDSCAPER, street, 5) == [Effect(LANDSCAPER, street)]


# ---------------------------------------------------------------------- pool
def test_pool_houses_table():
    assert POOL_HOUSES == ((2, 6, 7), (0, 3, 7), (1, 6, 10))


@pytest.mark.parametrize("street, house", [(s, h) for s, houses in enumerate(POOL_HOUSES) for h in houses])
def test_pool_built_only_on_a_pool_house(street, house):
    sheet = Sheet()
    opts = options_after(sheet, 8, POOL, street, house)
    assert opts == [Effect(POOL, street, house)]
    apply_effect(sheet, opts[0])
    assert sheet.pools[street][house] and sheet.n_pools == 1
    assert score_sheet(sheet, 0)["pools"] == 3


@pytest.mark.parametrize("street, house", [(0, 0), (0, 3), (1, 1), (1, 10), (2, 0), (2, 11)])
def test_pool_on_a_house_without_pool_does_nothing(street, house):
    assert options_after(Sheet(), 8, POOL, street, house) == []


def test_pool_house_written_with_another_effect_never_gets_its_pool():
    sheet = Sheet()
    options_after(sheet, 8, LANDSCAPER, 0, 2)
    # later a pool offer written elsewhere concerns only the house just written
    assert options_after(sheet, 9, POOL, 0, 3) == []
    assert not sheet.pools[0][2]


# ---------------------------------------------------------------------- temp
def test_temp_has_no_effect_options_it_acts_while_writing():
    sheet = Sheet()
    assert options_after(sheet, 6, TEMP, 0, 0, temp=True) == []
    assert sheet.temps == 1
    assert options_after(sheet, 6, TEMP, 0, 1, temp=False) == []
    assert sheet.temps == 1  # writing a temp offer unchanged without the agency crosses nothing


# ----------------------------------------------------------------------- bis
def test_bis_options_exact_list():
    # street 0: . 3 . | . 7 . . . . .   street 1: 4 | . (fence blocks)   street 2: empty
    sheet = sheet_from(". 3 . | . 7", "4 | .")
    opts = options_after(sheet, 9, BIS, 2, 11)
    assert opts == [
        Effect(BIS, 0, 0, 3), Effect(BIS, 0, 2, 3), Effect(BIS, 0, 3, 7), Effect(BIS, 0, 5, 7),
        Effect(BIS, 2, 10, 9),
    ]


def test_bis_between_two_built_houses_may_copy_either():
    sheet = sheet_from("3 . 8")
    opts = options_after(sheet, 12, BIS, 1, 0)
    assert opts == [Effect(BIS, 0, 1, 3), Effect(BIS, 0, 1, 8), Effect(BIS, 0, 3, 8),
                    Effect(BIS, 1, 1, 12)]


def test_bis_copies_may_repeat_in_a_row():
    sheet = sheet_from("5 5b")
    opts = options_after(sheet, 12, BIS, 1, 0)
    assert Effect(BIS, 0, 2, 5) in opts
    apply_effect(sheet, Effect(BIS, 0, 2, 5))
    assert sheet.house_label(0, 2) == "5b" and sheet.n_bis == 2


def test_no_bis_beyond_nine_boxes():
    sheet = sheet_from("5", n_bis=8)
    assert options_after(sheet, 9, BIS, 1, 0) != []
    sheet = sheet_from("5", n_bis=9)
    assert options_after(sheet, 9, BIS, 1, 0) == []


def test_apply_bis_writes_nb_crosses_a_box_and_forbids_a_fence_between():
    sheet = sheet_from(". 5 . 9")
    apply_effect(sheet, Effect(BIS, 0, 2, 5))
    assert sheet.numbers[0][:4] == [None, 5, 5, 9]
    assert sheet.is_bis[0][2] and not sheet.is_bis[0][1]
    assert sheet.n_bis == 1 and sheet.house_label(0, 2) == "5b"
    assert score_sheet(sheet, 0)["bis"] == -1
    assert not sheet.fence_allowed(0, 1)
    assert sheet.fence_allowed(0, 0) and sheet.fence_allowed(0, 2)
    # numbers around the pair keep the order
    assert sheet.can_write(0, 0, 4) and not sheet.can_write(0, 0, 5)


def test_bis_house_is_not_a_written_number_for_pool_or_landscaper():
    # the pool / landscaper options concern only the play's house, never a bis house
    sheet = sheet_from(". 5")
    play = Play(0, 2, 6, 9)
    apply_play(sheet, play)
    apply_effect(sheet, Effect(BIS, 0, 2, 5))      # house (0, 2) is a pool house too
    assert effect_options(sheet, Offer(9, POOL, 0, 0), play) == [Effect(POOL, 2, 6)]
    assert effect_options(sheet, Offer(9, LANDSCAPER, 0, 0), play) == [Effect(LANDSCAPER, 2)]
    assert not sheet.pools[0][2]


@pytest.mark.parametrize("effect", [SURVEYOR, REAL_ESTATE, LANDSCAPER, POOL, BIS])
def test_effect_options_are_a_new_list_every_time(effect):
    sheet = sheet_from(". 3 . . . . . . . .")
    offer, play = Offer(4, effect, 0, 0), Play(0, 0, 2, 4)
    apply_play(sheet, play)
    first = effect_options(sheet, offer, play)
    expected = list(first)
    first.append(None)  # as the game does
    assert effect_options(sheet, offer, play) == expected
