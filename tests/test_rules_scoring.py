"""RULES.md §1.1 tracks and §9 scoring and ranking."""

from __future__ import annotations

import pytest

from welcometo_sim.games.welcome_to.data import (BIS_TRACK, PARK_TRACKS, POOL_TRACK, REAL_ESTATE_TRACKS,
                                                 REFUSAL_TRACK)
from welcometo_sim.games.welcome_to.scoring import (SCORE_FIELDS, rank_key, ranks, score_game, score_sheet,
                                                    temp_points)
from welcometo_sim.games.welcome_to.sheet import Sheet

from helpers import estates_sheet, sheet_from


def test_track_tables_match_the_rules():
    assert PARK_TRACKS == ((0, 2, 4, 10), (0, 2, 4, 6, 14), (0, 2, 4, 6, 8, 18))
    assert POOL_TRACK == (0, 3, 6, 9, 13, 17, 21, 26, 31, 36)
    assert BIS_TRACK == (0, 1, 3, 6, 9, 12, 16, 20, 24, 28)
    assert REFUSAL_TRACK == (0, 0, 3, 5)
    assert REAL_ESTATE_TRACKS == ((1, 3), (2, 3, 4), (3, 4, 5, 6), (4, 5, 6, 7, 8),
                                  (5, 6, 7, 8, 10), (6, 7, 8, 10, 12))


def test_empty_sheet_scores_zero_everywhere():
    score = score_sheet(Sheet(), 0)
    assert score == {field: 0 for field in SCORE_FIELDS} | {"total": 0}


def test_full_breakdown_of_a_hand_built_sheet():
    sheet = sheet_from(
        "1 | 2 3 | 4 5 6 | 7 8 9 10",              # estates 1, 2, 3, 4
        "1 2 | 3 . | 5 6 7 8 9 10 11",             # a 2; "3 ." unfinished; a run of 7
        "0 1 2 3 4 5 | 6 7 8 9 10 11",             # two 6s
        parks=[2, 4, 1], real_estate=[1, 0, 2, 0, 0, 3], n_bis=3, refusals=2,
        pools=[(0, 2), (1, 0), (2, 1)], plan_points=[8, 0, 7],
    )
    assert sheet.estate_counts() == [1, 2, 1, 1, 0, 2]
    score = score_sheet(sheet, temps=4)
    assert score == {
        "plans": 15,
        "parks": 4 + 14 + 2,
        "pools": 9,
        "temps": 4,
        "estates": 1 * 3 + 2 * 2 + 1 * 5 + 1 * 4 + 2 * 10,
        "bonus": 0,
        "bis": -6,
        "roundabouts": 0,
        "refusals": -3,
        "total": 75,
    }
    assert score["total"] == sum(score[f] for f in SCORE_FIELDS)


@pytest.mark.parametrize("k", range(10))
def test_bis_penalty_is_negative_track_value(k):
    assert score_sheet(sheet_from(n_bis=k), 0)["bis"] == -BIS_TRACK[k]
    assert score_sheet(sheet_from(n_bis=k), 0)["total"] == -BIS_TRACK[k]


@pytest.mark.parametrize("k, penalty", [(0, 0), (1, 0), (2, -3), (3, -5)])
def test_refusal_penalty(k, penalty):
    assert score_sheet(sheet_from(refusals=k), 0)["refusals"] == penalty


@pytest.mark.parametrize("parks, points", [
    ([0, 0, 0], 0), ([1, 1, 1], 6), ([3, 0, 0], 10), ([0, 4, 0], 14), ([0, 0, 5], 18),
    ([3, 4, 5], 42), ([2, 3, 4], 4 + 6 + 8),
])
def test_parks_per_street(parks, points):
    assert score_sheet(sheet_from(parks=parks), 0)["parks"] == points


def test_all_nine_pools():
    sheet = sheet_from(pools=[(0, 2), (0, 6), (0, 7), (1, 0), (1, 3), (1, 7), (2, 1), (2, 6), (2, 10)])
    assert score_sheet(sheet, 0)["pools"] == 36


@pytest.mark.parametrize("size", range(1, 7))
def test_estate_value_follows_its_column(size):
    sheet = estates_sheet([size, size])
    for k, value in enumerate(REAL_ESTATE_TRACKS[size - 1]):
        sheet.real_estate = [0] * 6
        sheet.real_estate[size - 1] = k
        assert score_sheet(sheet, 0)["estates"] == 2 * value
    # other columns do not matter
    sheet.real_estate = [1 if s != size - 1 else 0 for s in range(6)]
    assert score_sheet(sheet, 0)["estates"] == 2 * size


def test_estates_under_a_plan_line_still_score():
    sheet = sheet_from("1~1 2~1 3~1 | 4", plan_points=[8, 0, 0])
    score = score_sheet(sheet, 0)
    assert score["estates"] == 3 and score["plans"] == 8


# ------------------------------------------------------------------ temp agency
@pytest.mark.parametrize("counts, points", [
    ([5, 5, 3, 2], [7, 7, 4, 1]),
    ([0, 0], [0, 0]),
    ([3, 0, 3], [7, 0, 7]),
    ([1, 2, 3, 4, 5], [0, 0, 1, 4, 7]),
    ([0, 4], [0, 7]),
    ([11], [7]),
    ([2, 2, 2], [7, 7, 7]),
    ([6, 1, 4, 4, 0], [7, 1, 4, 4, 0]),
])
def test_temp_dense_ranking(counts, points):
    assert temp_points(counts, (7, 4, 1), solo=False) == points


def test_score_game_ranks_temps_between_players():
    sheets = [sheet_from(temps=t) for t in (5, 5, 3, 2, 0)]
    scores = score_game(sheets)
    assert [s["temps"] for s in scores] == [7, 7, 4, 1, 0]
    assert [s["total"] for s in scores] == [7, 7, 4, 1, 0]


def test_score_game_total_is_sum_of_parts():
    a = sheet_from("1 2 |", parks=[1, 0, 0], temps=2, n_bis=1, plan_points=[0, 6, 0])
    b = sheet_from("1 2 3 |", refusals=3, temps=1, pools=[(0, 2)])
    sa, sb = score_game([a, b])
    assert sa == {"plans": 6, "parks": 2, "pools": 0, "temps": 7, "estates": 2, "bonus": 0,
                  "bis": -1, "roundabouts": 0, "refusals": 0, "total": 16}
    assert sb == {"plans": 0, "parks": 0, "pools": 3, "temps": 4, "estates": 3, "bonus": 0,
                  "bis": 0, "roundabouts": 0, "refusals": -5, "total": 5}


# ---------------------------------------------------------------------- ranking
def test_rank_key_is_total_then_estate_count_then_sizes():
    sheet = estates_sheet([1, 1, 3, 6])
    assert rank_key(30, sheet) == (30, 4, 2, 0, 1, 0, 0, 1)


@pytest.mark.parametrize("keys, expected", [
    ([(50,), (50,), (40,)], [1, 1, 3]),
    ([(40,), (50,), (50,)], [3, 1, 1]),
    ([(10,), (20,), (30,), (20,)], [4, 2, 1, 2]),
    ([(7,)], [1]),
])
def test_competition_ranks(keys, expected):
    assert ranks(keys) == expected


@pytest.mark.parametrize("sizes_a, sizes_b, expected", [
    ([1, 1], [2], [1, 2]),              # more completed estates wins
    ([2], [1, 1], [2, 1]),
    ([1, 3], [2, 2], [1, 2]),           # same count: more size-1 estates wins
    ([2, 3], [1, 4], [2, 1]),
    ([2, 2, 6], [2, 3, 5], [1, 2]),     # same count, same size 1: more size-2 wins
    ([1, 5], [1, 6], [1, 2]),           # down to size 5
    ([3, 4], [4, 3], [1, 1]),           # identical counts share the place
])
def test_tie_breaks_on_equal_totals(sizes_a, sizes_b, expected):
    keys = [rank_key(30, estates_sheet(sizes_a)), rank_key(30, estates_sheet(sizes_b))]
    assert ranks(keys) == expected


def test_higher_total_beats_tie_breaks():
    keys = [rank_key(31, Sheet()), rank_key(30, estates_sheet([1, 1, 1]))]
    assert ranks(keys) == [1, 2]
