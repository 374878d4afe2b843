"""RULES.md §1.1, §4 and §5.1 (estates): the sheet, writing numbers, estates."""

from __future__ import annotations

import pytest

from welcometo_sim.games.welcome_to.data import (BIS, LANDSCAPER, POOL, REAL_ESTATE, SURVEYOR, TEMP)
from welcometo_sim.games.welcome_to.effects import Offer, Play, apply_play, legal_plays, must_play
from welcometo_sim.games.welcome_to.sheet import Sheet

from helpers import estates_sheet, full_sheet, sheet_from


def offers(*pairs):
    return [Offer(n, e, i, i) for i, (n, e) in enumerate(pairs)]


# ------------------------------------------------------------------ the sheet
def test_empty_sheet_dimensions():
    sheet = Sheet()
    assert [len(row) for row in sheet.numbers] == [10, 11, 12]
    assert [len(row) for row in sheet.fences] == [9, 10, 11]
    assert sheet.n_built() == 0 and not sheet.is_full()
    assert sheet.parks == [0, 0, 0] and sheet.real_estate == [0] * 6
    assert (sheet.temps, sheet.n_bis, sheet.refusals) == (0, 0, 0)


def test_builder_reads_numbers_bis_fences_and_plan_lines():
    sheet = sheet_from("1 2 | 5 5b . 9", "", "0~1 1~1 | 4")
    assert sheet.numbers[0][:7] == [1, 2, 5, 5, None, 9, None]
    assert sheet.is_bis[0][:4] == [False, False, False, True]
    assert sheet.n_bis == 1
    assert [k for k, f in enumerate(sheet.fences[0]) if f] == [1]
    assert [k for k, f in enumerate(sheet.fences[2]) if f] == [1]
    assert sheet.plan_use[2][:3] == [1, 1, 0]
    assert sheet.to_record()["houses"][0][:6] == ["1", "2", "5", "5b", None, "9"]


# ------------------------------------------------------------------ §4 placement
def test_street_bounds_are_the_open_intervals_between_built_neighbours():
    sheet = sheet_from("3 . . 8 . 12")
    assert sheet.street_bounds(0) == [
        (1, 3, 8), (2, 3, 8), (4, 8, 12), (6, 12, 18), (7, 12, 18), (8, 12, 18), (9, 12, 18),
    ]
    # an untouched street accepts anything from 0 to 17 everywhere
    assert sheet.street_bounds(1) == [(h, -1, 18) for h in range(11)]


def test_strictly_increasing_with_gaps_allowed():
    sheet = sheet_from("3 . . 8")
    assert sheet.can_write(0, 1, 4) and sheet.can_write(0, 1, 7)
    assert sheet.can_write(0, 2, 4)          # a gap may stay before house 2
    assert not sheet.can_write(0, 1, 2)      # smaller than its left neighbour
    assert not sheet.can_write(0, 1, 9)      # larger than its right neighbour
    assert sheet.can_write(0, 9, 9)          # far right, numbers need not be consecutive
    assert not sheet.can_write(0, 0, 4)      # the house is already built
    sheet.write(0, 1, 5)
    assert not sheet.can_write(0, 2, 5) and not sheet.can_write(0, 2, 4)
    assert sheet.can_write(0, 2, 6)


def test_duplicates_are_forbidden_on_a_street_but_not_across_streets():
    sheet = sheet_from("3 . . 8", "3")
    assert not sheet.can_write(0, 1, 3)
    assert not sheet.can_write(0, 2, 8)
    assert not sheet.can_write(0, 5, 8)
    assert sheet.can_write(2, 0, 3)          # another street is independent
    assert not sheet.can_write(1, 1, 3)


def test_a_house_squeezed_between_consecutive_numbers_takes_nothing():
    sheet = sheet_from("5 . 6")
    assert [h for h, _lo, _hi in sheet.street_bounds(0)] == [3, 4, 5, 6, 7, 8, 9]
    assert all(not sheet.can_write(0, 1, n) for n in range(0, 18))


def test_bis_pair_counts_as_in_order():
    sheet = sheet_from(". 5 5b . .")
    assert sheet.can_write(0, 0, 4) and not sheet.can_write(0, 0, 5)
    assert sheet.can_write(0, 3, 6) and not sheet.can_write(0, 3, 5)
    assert sheet.street_bounds(0)[:2] == [(0, -1, 5), (3, 5, 18)]


def test_houses_for_and_accepts():
    sheet = full_sheet()
    assert sheet.houses_for(5) == [] and not sheet.accepts(5)
    sheet = sheet_from("1 2 3 4 5 . 9 10 11 12", " ".join(map(str, range(11))),
                       " ".join(map(str, range(12))))
    assert sheet.houses_for(7) == [(0, 5)]
    assert sheet.houses_for(9) == [] and not sheet.accepts(9)
    assert [n for n in range(18) if sheet.accepts(n)] == [6, 7, 8]


# a sheet whose only free house is street 0, house 3, taking 4..8
NEARLY_FULL = ("1 2 3 . 9 10 11 12 13 14", " ".join(map(str, range(11))),
               " ".join(map(str, range(12))))


def test_legal_plays_exact_list():
    sheet = sheet_from(*NEARLY_FULL)
    plays = legal_plays(sheet, offers((3, TEMP), (6, POOL), (12, BIS)))
    assert plays == [
        Play(0, 0, 3, 4, True), Play(0, 0, 3, 5, True),   # 3 only fits as 3+1 or 3+2
        Play(1, 0, 3, 6, False),                            # 12 fits nowhere
    ]
    assert must_play(plays)


def test_refusal_allowed_only_when_every_play_needs_the_temp_agency():
    sheet = sheet_from(*NEARLY_FULL)
    plays = legal_plays(sheet, offers((3, TEMP), (12, POOL), (15, SURVEYOR)))
    assert plays == [Play(0, 0, 3, 4, True), Play(0, 0, 3, 5, True)]
    assert not must_play(plays)
    assert legal_plays(sheet, offers((1, SURVEYOR), (12, POOL), (15, TEMP))) == []


def test_temp_offer_whose_number_fits_unchanged_gives_a_non_temp_play():
    sheet = sheet_from(*NEARLY_FULL)
    plays = legal_plays(sheet, offers((5, TEMP), (12, POOL), (15, SURVEYOR)))
    assert plays == [
        Play(0, 0, 3, 5, False),
        Play(0, 0, 3, 4, True), Play(0, 0, 3, 5, True),     # modifier 0 is allowed (§14)
        Play(0, 0, 3, 6, True), Play(0, 0, 3, 7, True),
    ]
    assert must_play(plays)


@pytest.mark.parametrize("number, written", [
    (1, {(1, False), (0, True), (1, True), (2, True), (3, True)}),
    (2, {(2, False), (0, True), (1, True), (2, True), (3, True), (4, True)}),
    (15, {(15, False), (13, True), (14, True), (15, True), (16, True), (17, True)}),
])
def test_temp_numbers_stay_within_0_to_17(number, written):
    sheet = sheet_from("", " ".join(map(str, range(11))), " ".join(map(str, range(12))))
    plays = legal_plays(sheet, offers((number, TEMP)))
    assert {(p.number, p.temp) for p in plays} == written
    assert all(p.street == 0 for p in plays)
    assert len(plays) == 10 * len(written)   # every house of the empty top street


def test_non_temp_offers_never_change_the_number():
    sheet = Sheet()
    for effect in (SURVEYOR, REAL_ESTATE, LANDSCAPER, POOL, BIS):
        plays = legal_plays(sheet, offers((8, effect)))
        assert {(p.number, p.temp) for p in plays} == {(8, False)}
        assert len(plays) == 33


def test_apply_play_writes_and_crosses_temp_boxes_up_to_11():
    sheet = Sheet()
    apply_play(sheet, Play(0, 1, 4, 9, False))
    assert sheet.numbers[1][4] == 9 and sheet.temps == 0 and not sheet.is_bis[1][4]
    apply_play(sheet, Play(0, 1, 5, 10, True))
    assert sheet.temps == 1
    sheet.temps = 11
    apply_play(sheet, Play(0, 1, 6, 12, True))
    assert sheet.numbers[1][6] == 12 and sheet.temps == 11


# ---------------------------------------------------------------- estates (§5.1)
def test_runs_split_at_fences_and_street_ends():
    sheet = sheet_from("1 2 | 3 . 5 | 6 7 8 9 10")
    assert sheet.runs(0) == [(0, 2, True), (2, 3, False), (5, 5, True)]
    assert sheet.completed_estates() == [(0, 0, 2), (0, 5, 5)]
    assert sheet.estate_counts() == [0, 1, 0, 0, 1, 0]


def test_run_of_seven_or_more_is_not_an_estate_until_split():
    sheet = sheet_from("1 2 3 4 5 6 7 | 8 9 10")
    assert sheet.runs(0) == [(0, 7, False), (7, 3, True)]
    assert sheet.completed_estates() == [(0, 7, 3)]
    sheet.add_fence(0, 0)
    assert sheet.completed_estates() == [(0, 0, 1), (0, 1, 6), (0, 7, 3)]


def test_whole_street_without_fences_is_too_long_to_be_an_estate():
    sheet = full_sheet()
    assert sheet.completed_estates() == []
    assert sheet.is_full()


def test_size_one_to_six_estates_and_bis_houses_count_as_built():
    sheet = sheet_from("1 | 2 3 | 4 5 6 | 7 7b 8 9", "1 2 3 4 5 | 6 7 8 9 10 11")
    assert sheet.estate_counts() == [1, 1, 1, 1, 1, 1]
    assert (0, 6, 4) in sheet.completed_estates()


def test_unused_estates_excludes_estates_under_a_plan_line():
    sheet = sheet_from("1~2 2~2 | 3 4 | 5 | 6 7 8 | 9")
    assert sheet.completed_estates() == [(0, 0, 2), (0, 2, 2), (0, 4, 1), (0, 5, 3)]
    assert sheet.unused_estates() == [(0, 2, 2), (0, 4, 1), (0, 5, 3)]


def test_estates_sheet_builder_lays_out_the_sizes_given():
    sheet = estates_sheet([6, 6, 5])
    assert sheet.completed_estates() == [(0, 0, 6), (1, 0, 6), (1, 6, 5)]


def test_copy_is_independent():
    sheet = sheet_from("1 2 | 3")
    other = sheet.copy()
    other.write(0, 3, 9)
    other.add_fence(0, 3)
    assert sheet.numbers[0][3] is None and not sheet.fences[0][3]
    assert sheet.completed_estates() == [(0, 0, 2)]
    assert other.completed_estates() == [(0, 0, 2), (0, 2, 2)]


# ----------------------------------------------------------- property: ordering
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.sampled_from([TEMP, POOL]), st.integers(0, 10 ** 6)),
                min_size=1, max_size=40))
def test_any_sequence_of_legal_plays_keeps_every_street_strictly_increasing(moves):
    sheet = Sheet()
    for number, effect, pick in moves:
        plays = legal_plays(sheet, offers((number, effect)))
        for play in plays:
            assert sheet.can_write(play.street, play.house, play.number)
            assert 0 <= play.number <= 17 and abs(play.number - number) <= 2
            assert play.temp or play.number == number
        assert must_play(plays) == sheet.accepts(number)
        if plays:
            apply_play(sheet, plays[pick % len(plays)])
    for row in sheet.numbers:
        built = [n for n in row if n is not None]
        assert built == sorted(set(built))
