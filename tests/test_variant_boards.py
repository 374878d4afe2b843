"""RULES.md §12 and §14: the thematic boards (ice cream, Christmas lights, Easter eggs)."""

from __future__ import annotations

import pytest

from welcometo_sim.games.welcome_to.boards import (BOARD_RULES, LOST, OPEN, SOLD, ChristmasState, EasterState,
                                                   IceCream, IceCreamState, joined, longest_string)
from welcometo_sim.games.welcome_to.data import BASIC_PLANS, BOARD_PLANS, CONES, DEFAULT_DATA, EGG_HOLES, EGGS
from welcometo_sim.games.welcome_to.effects import Effect, Offer, Play, apply_effect, apply_play, legal_plays
from welcometo_sim.games.welcome_to.game import Game, Seat, play_game
from welcometo_sim.games.welcome_to.plans import PlanClaim, claim_options
from welcometo_sim.games.welcome_to.record_replay import verify
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant, VariantError
from welcometo_sim.strategy import parse_strategy

from helpers import sheet_from, variant_seat, with_board

BOARD_PLAN = {p.id: p for plans in BOARD_PLANS.values() for p in plans}


def ice_sheet():
    return Sheet(DEFAULT_DATA, BOARD_RULES["ice-cream"].new_state(DEFAULT_DATA))


def easter_sheet():
    return Sheet(DEFAULT_DATA, BOARD_RULES["easter"].new_state(DEFAULT_DATA))


def write(sheet, street, houses_numbers, turn=0, truck=None):
    """Write (house, number) pairs with apply_play, as plays of the offered number."""
    for house, number in houses_numbers:
        apply_play(sheet, Play(0, street, house, number, False, truck), turn)
        truck = None


def fences(sheet, street, *slots):
    for slot in slots:
        sheet.add_fence(street, slot)
    return sheet


def plans_with(plan_id):
    spec = BOARD_PLAN[plan_id]
    return (DEFAULT_DATA.plans_of_deck(1)[0], DEFAULT_DATA.plans_of_deck(2)[0], spec)


def board_claims(sheet, plan_id):
    return [c for c in claim_options(sheet, plans_with(plan_id)) if c.deck == 3]


# ================================================================ board setup
def test_board_plan_table_matches_the_rules():
    table = {
        "ice-cream": [("all-cones-one-street", (6, 4)), ("estates-3-4-5-no-cones", (7, 3)),
                      ("estates-4-4-4-three-cones", (8, 4))],
        "christmas": [("estates-6-6-lit", (10, 5)), ("street-fully-lit", (14, 7)),
                      ("estates-3-3-unlit", (10, 5))],
        "easter": [("all-eggs-bottom-street", (7, 3)), ("estates-2-3-4-no-eggs", (10, 5)),
                   ("estates-3-3-3-three-eggs", (8, 4))],
    }
    for board, expected in table.items():
        deck3 = Variant(board=board).plan_deck(3)
        assert [(p.id, p.points) for p in deck3] == expected
        assert all(p.deck == 3 for p in deck3)
        assert [p.id for p in Variant(board=board).plan_deck(1)] == [
            p.id for p in BASIC_PLANS if p.deck == 1]
        assert len(Variant(board=board, advanced=True).plan_deck(1)) == 11
        assert len(Variant(board=board, advanced=True).plan_deck(3)) == 3


def test_board_data_matches_the_rules():
    assert CONES == (
        {0: 1, 2: 2, 4: 3, 5: 1, 7: 2, 9: 1},
        {0: 3, 1: 1, 3: 1, 4: 2, 6: 2, 8: 3, 9: 2},
        {0: 2, 1: 3, 3: 1, 4: 1, 5: 2, 7: 3, 9: 1, 10: 3},
    )
    assert EGGS == ({2: 1, 3: 2, 4: 1, 6: 1, 9: 1}, {0: 2, 3: 1, 5: 1, 6: 2, 8: 1},
                    {2: 1, 4: 2, 5: 1, 7: 2, 9: 1})
    assert EGG_HOLES == {0: 2, 6: 1, 8: 2, 9: 1, 10: 2, 16: 1}
    assert DEFAULT_DATA.egg_scores == ((18, 35), (14, 20), (10, 10), (6, 5))


def test_variant_board_states_and_unknown_board():
    assert isinstance(Variant(board="ice-cream").rules.new_state(DEFAULT_DATA), IceCreamState)
    assert isinstance(Variant(board="christmas").rules.new_state(DEFAULT_DATA), ChristmasState)
    assert isinstance(Variant(board="easter").rules.new_state(DEFAULT_DATA), EasterState)
    assert Variant().rules.new_state(DEFAULT_DATA) is None
    with pytest.raises(VariantError):
        Variant(board="halloween").check(2)


# ================================================================== ice cream
def test_truck_directions_at_the_start():
    state = ice_sheet().board
    assert state.direction == ["left", "right", None]
    assert state.position == [None, None, None]
    assert state.undecided_streets() == [2]
    assert [[h for h, c in enumerate(row) if c == OPEN] for row in state.cones] == [
        sorted(c) for c in CONES]


def test_street_0_truck_drives_left_from_the_right_end():
    sheet = ice_sheet()
    state = sheet.board
    write(sheet, 0, [(7, 7)], turn=1)
    assert state.position[0] == 7
    assert state.sold(0) == [7] and state.cones[0][9] == LOST        # 9 passed, 8 has no cone
    assert state.points(sheet) == 2
    write(sheet, 0, [(8, 8)], turn=2)                                 # behind the truck
    assert state.position[0] == 7 and state.cones[0][8] == 0
    assert state.sold(0) == [7] and state.points(sheet) == 2
    write(sheet, 0, [(4, 4)], turn=3)
    assert state.sold(0) == [4, 7] and state.cones[0][5] == LOST
    assert state.points(sheet) == 5 and state.finished[0] is None
    write(sheet, 0, [(0, 0)], turn=4)                                 # the last cone: route done
    assert state.sold(0) == [0, 4, 7] and state.cones[0][2] == LOST
    assert state.finished[0] == 4 and state.points(sheet) == 6
    assert state.record(sheet) == {"trucks": ["left", "right", None], "sold": [[0, 4, 7], [], []],
                                   "lost": [[2, 5, 9], [], []], "finished": [4, None, None]}


def test_street_1_truck_drives_right_from_the_left_end():
    sheet = ice_sheet()
    state = sheet.board
    write(sheet, 1, [(1, 1)])
    assert state.cones[1][0] == LOST and state.cones[1][1] == SOLD
    assert state.points(sheet) == 1
    write(sheet, 1, [(0, 0)])                                         # behind: nothing
    assert state.cones[1][0] == LOST and state.position[1] == 1
    write(sheet, 1, [(6, 6)])
    assert state.sold(1) == [1, 6] and [h for h, c in enumerate(state.cones[1]) if c == LOST] == [0, 3, 4]
    assert state.points(sheet) == 3
    write(sheet, 1, [(10, 10)], turn=5)                               # past the last cones
    assert state.cones[1][8] == LOST and state.cones[1][9] == LOST
    assert state.finished[1] == 5 and state.points(sheet) == 3


def test_street_2_direction_is_chosen_with_the_first_play_there():
    sheet = ice_sheet()
    plays = legal_plays(sheet, [Offer(5, "surveyor", 0, 0)])
    street2 = [p for p in plays if p.street == 2]
    assert len(street2) == 24
    assert {(p.house, p.truck) for p in street2} == {(h, d) for h in range(12) for d in ("left", "right")}
    assert all(p.truck is None for p in plays if p.street != 2)
    assert len(plays) == 10 + 11 + 24
    apply_play(sheet, Play(0, 2, 10, 5, False, "left"))
    assert sheet.board.direction[2] == "left" and sheet.board.undecided_streets() == []
    assert sheet.board.sold(2) == [10] and sheet.board.points(sheet) == 3
    assert all(p.truck is None for p in legal_plays(sheet, [Offer(3, "surveyor", 0, 0)]))


def test_street_2_driving_right():
    sheet = ice_sheet()
    apply_play(sheet, Play(0, 2, 1, 5, False, "right"))
    assert sheet.board.direction[2] == "right"
    assert sheet.board.cones[2][0] == LOST and sheet.board.sold(2) == [1]
    assert sheet.board.points(sheet) == 3


def test_temp_play_moves_the_truck_too():
    sheet = ice_sheet()
    apply_play(sheet, Play(0, 0, 9, 10, True))
    assert sheet.board.sold(0) == [9] and sheet.temps == 1


def test_bis_never_moves_a_truck():
    sheet = ice_sheet()
    write(sheet, 0, [(5, 5)])
    assert sheet.board.sold(0) == [5] and sheet.board.cones[0][7] == LOST
    apply_effect(sheet, Effect("bis", 0, 4, 5))                       # cone house 4, further along
    assert sheet.numbers[0][4] == 5 and sheet.is_bis[0][4]
    assert sheet.board.cones[0][4] == OPEN and sheet.board.position[0] == 5
    write(sheet, 1, [(0, 0)])
    apply_effect(sheet, Effect("bis", 1, 1, 0))
    assert sheet.board.cones[1][1] == OPEN and sheet.board.position[1] == 0
    assert sheet.board.points(sheet) == 1 + 3


def test_roundabouts_never_move_a_truck():
    sheet = ice_sheet()
    before = [row[:] for row in sheet.board.cones]
    sheet.build_roundabout(0, 4)
    sheet.build_roundabout(1, 8)
    sheet.build_roundabout(2, 3)
    assert sheet.board.cones == before
    assert sheet.board.position == [None, None, None]
    assert sheet.board.direction == ["left", "right", None]


def ice_race_sheet(moves):
    """moves: {turn: [(street, house, truck)]} written with apply_play on that turn."""
    sheet = ice_sheet()
    for turn in sorted(moves):
        for street, house, truck in moves[turn]:
            apply_play(sheet, Play(0, street, house, house, False, truck), turn)
    return sheet


def test_street_bonus_goes_to_the_first_finishers_only():
    a = ice_race_sheet({1: [(0, 2, None)], 2: [(0, 0, None)]})            # sells 2, 0
    b = ice_race_sheet({1: [(0, 9, None)], 2: [(0, 0, None)]})            # sells 9, 0
    c = ice_race_sheet({1: [(0, 7, None)], 2: [(0, 4, None)], 3: [(0, 0, None)]})  # sells 7, 4, 0
    sheets = [a, b, c]
    assert [s.board.finished[0] for s in sheets] == [2, 2, 3]
    race = [None, None, None]
    board = IceCream()
    board.settle(sheets, race, 1)
    assert race == [None, None, None]
    board.settle(sheets, race, 2)
    assert race == [2, None, None]
    board.settle(sheets, race, 3)
    assert race == [2, None, None]
    # scoops of sold cones, plus 1 per sold cone of the street for the bonus winners
    assert [s.board.points(s) for s in sheets] == [3, 2, 6]
    assert [board.bonus(s, race) for s in sheets] == [3 + 2, 2 + 2, 6]


def test_street_2_has_a_single_bonus_whatever_the_direction():
    right = ice_race_sheet({1: [(2, 10, "right")]})         # loses 0..9, sells 10: finished turn 1
    left = ice_race_sheet({2: [(2, 0, "left")]})            # loses 1..10, sells 0: finished turn 2
    assert right.board.finished[2] == 1 and left.board.finished[2] == 2
    race = [None, None, None]
    for turn in (1, 2):
        IceCream().settle([right, left], race, turn)
    assert race == [None, None, 1]
    assert IceCream().bonus(right, race) == 3 + 1
    assert IceCream().bonus(left, race) == 2
    # the same two finishing in the same turn share it
    left_early = ice_race_sheet({1: [(2, 0, "left")]})
    race = [None, None, None]
    IceCream().settle([right, left_early], race, 1)
    assert race == [None, None, 1]
    assert IceCream().bonus(right, race) == 4 and IceCream().bonus(left_early, race) == 3


def test_ice_cream_score_in_a_whole_street():
    sheet = ice_sheet()
    write(sheet, 0, [(9, 9), (7, 7), (5, 5), (4, 4), (2, 2), (0, 0)], turn=3)
    assert sheet.board.finished[0] == 3
    assert sheet.board.points(sheet) == 1 + 2 + 1 + 3 + 2 + 1
    race = [None, None, None]
    IceCream().settle([sheet], race, 3)
    assert IceCream().bonus(sheet, race) == 10 + 6


# ------------------------------------------------------------ ice cream plans
def test_all_cones_one_street():
    sheet = ice_sheet()
    write(sheet, 0, [(9, 9), (7, 7), (5, 5), (4, 4), (2, 2), (0, 0)])
    assert board_claims(sheet, "all-cones-one-street") == [PlanClaim(3, None)]
    right = ice_sheet()
    write(right, 1, [(0, 0), (1, 1), (3, 3), (4, 4), (6, 6), (8, 8), (9, 9)])
    assert board_claims(right, "all-cones-one-street") == [PlanClaim(3, None)]


def test_all_cones_one_street_not_with_a_lost_or_open_cone():
    sheet = ice_sheet()
    write(sheet, 0, [(9, 9), (7, 7), (4, 4), (2, 2), (0, 0)])          # 5 lost
    assert sheet.board.cones[0][5] == LOST
    assert board_claims(sheet, "all-cones-one-street") == []
    sheet = ice_sheet()
    write(sheet, 0, [(9, 9), (7, 7), (5, 5), (4, 4), (2, 2)])          # 0 still open
    assert board_claims(sheet, "all-cones-one-street") == []
    assert board_claims(ice_sheet(), "all-cones-one-street") == []


def test_estates_3_4_5_no_cones():
    sheet = with_board(sheet_from("0 1 2 | 3 4 5 6 | . . .", "0 1 2 3 4 | ."),
                       IceCreamState(DEFAULT_DATA))
    expected = [PlanClaim(3, ((0, 0, 3), (0, 3, 4), (1, 0, 5)))]
    assert board_claims(sheet, "estates-3-4-5-no-cones") == expected
    sheet.board.cones[0][2] = LOST                                    # a lost cone is no sold cone
    assert board_claims(sheet, "estates-3-4-5-no-cones") == expected
    sheet.board.cones[1][4] = SOLD
    assert board_claims(sheet, "estates-3-4-5-no-cones") == []


def test_estates_3_4_5_no_cones_with_a_real_sale():
    sheet = ice_sheet()
    write(sheet, 1, [(4, 4)])                                          # right truck sells 4, loses 0, 1, 3
    write(sheet, 1, [(0, 0), (1, 1), (2, 2), (3, 3)])                 # behind the truck
    fences(sheet, 1, 4)
    for h in range(7):
        sheet.write(0, h, h)
    fences(sheet, 0, 2, 6)
    assert board_claims(sheet, "estates-3-4-5-no-cones") == []       # (1, 0, 5) holds a sold cone
    sheet.board.cones[1][4] = LOST
    assert board_claims(sheet, "estates-3-4-5-no-cones") == [
        PlanClaim(3, ((0, 0, 3), (0, 3, 4), (1, 0, 5)))]


def three_cone_sheet(order2):
    sheet = ice_sheet()
    write(sheet, 1, [(h, h) for h in range(4)])                       # sells 0, 1, 3
    write(sheet, 2, [(h, h) for h in order2], truck="right")
    fences(sheet, 1, 3)
    fences(sheet, 2, 3, 7)
    return sheet


def test_estates_4_4_4_three_cones():
    sheet = three_cone_sheet(range(8))                                # sells 0, 1, 3, 4, 5, 7
    assert sheet.board.sold(1) == [0, 1, 3] and sheet.board.sold(2) == [0, 1, 3, 4, 5, 7]
    assert board_claims(sheet, "estates-4-4-4-three-cones") == [
        PlanClaim(3, ((1, 0, 4), (2, 0, 4), (2, 4, 4)))]


def test_estates_4_4_4_three_cones_not_with_two_cones_in_one():
    sheet = three_cone_sheet([0, 1, 2, 3, 4, 7, 5, 6])               # 5 passed: lost
    assert sheet.board.sold(2) == [0, 1, 3, 4, 7] and sheet.board.cones[2][5] == LOST
    assert len(sheet.completed_estates()) == 3
    assert board_claims(sheet, "estates-4-4-4-three-cones") == []


def test_ice_cream_in_a_game_records_the_truck_choice():
    def street2_right(view, plays):
        if view.turn > 1:
            return plays[0]
        return next(p for p in plays if p.street == 2 and p.truck == "right")

    seats = [variant_seat("a", play=street2_right), variant_seat("b")]
    game = Game(Variant(board="ice-cream"), seats, 3,
                ("estates-4-4", "estates-3-6", "all-cones-one-street"), record=True)
    game.play_turn()
    action = game.turn_records[0]["actions"][0]
    assert action["truck"] == "right" and action["written"]["street"] == 2
    assert game.sheets[0].board.direction[2] == "right"
    assert game.turn_records[0]["actions"][1]["truck"] is None       # b wrote on street 0
    game.play_turn()
    result = game.result([])
    assert result.record["final"][0]["sheet"]["board"]["trucks"] == ["left", "right", "right"]
    # both turns replay; only the end of this two-turn game is missing
    assert verify(result.record) == ["end.reasons: [] recorded, but no end condition holds after turn 2, "
                                     "the last turn recorded"]


# ================================================================== Christmas
def test_lights_join_adjacent_houses_differing_by_at_most_one():
    sheet = sheet_from("3 4 | 5 7 7b . 8 10")
    assert [joined(sheet, 0, k) for k in range(7)] == [True, True, False, True, False, False, False]
    assert longest_string(sheet, 0) == 3                              # 3-4-5 across the fence
    assert longest_string(sheet, 1) == 0


def test_bis_copies_keep_the_string():
    sheet = sheet_from("5 5b 5b 6 8", "1 3 5 7")
    assert longest_string(sheet, 0) == 4
    assert longest_string(sheet, 1) == 0


def test_roundabouts_break_lights():
    sheet = sheet_from("5 6 . 7 8 9")
    sheet.build_roundabout(0, 2)
    assert not joined(sheet, 0, 1) and not joined(sheet, 0, 2)
    assert longest_string(sheet, 0) == 3
    restart = sheet_from("8 9 . 1 2")
    restart.build_roundabout(0, 2)
    assert longest_string(restart, 0) == 2


def test_christmas_bonus_sums_the_longest_string_per_street():
    sheet = sheet_from("1 2 3 | 7 8", "0 2 4 6 8", "4 5 5b 6 7 . 1 2")
    sheet.build_roundabout(2, 5)
    with_board(sheet, BOARD_RULES["christmas"].new_state(DEFAULT_DATA))
    assert [longest_string(sheet, s) for s in range(3)] == [3, 0, 5]
    assert BOARD_RULES["christmas"].bonus(sheet, [None, None, None]) == 8
    assert sheet.to_record()["board"] == {"longest": [3, 0, 5]}


def test_estates_6_6_lit():
    sheet = sheet_from("1 2 3 4 5 6 | 8 9 10 11", "0 1 2 2b 3 4 | 7")
    assert board_claims(sheet, "estates-6-6-lit") == [PlanClaim(3, ((0, 0, 6), (1, 0, 6)))]
    broken = sheet_from("1 2 3 4 5 6 | 8 9 10 11", "0 1 2 4 5 6 | 7")
    assert board_claims(broken, "estates-6-6-lit") == []
    one = sheet_from("1 2 3 4 5 6 | 8 9 10 11")
    assert board_claims(one, "estates-6-6-lit") == []


def test_street_fully_lit():
    assert board_claims(sheet_from("0 1 2 3 4 5 6 7 8 9"), "street-fully-lit") == [PlanClaim(3, None)]
    assert board_claims(sheet_from("0 1 2 | 3 4 5 | 6 7 8 9"), "street-fully-lit") == [
        PlanClaim(3, None)]                                           # fences don't break lights
    assert board_claims(sheet_from("", "", "0 1 2 3 4 4b 5 6 7 8 9 10"), "street-fully-lit") == [
        PlanClaim(3, None)]
    assert board_claims(sheet_from("0 1 2 3 4 5 6 7 8 10"), "street-fully-lit") == []
    assert board_claims(sheet_from("0 1 2 3 4 5 6 7 8 ."), "street-fully-lit") == []


def test_street_fully_lit_impossible_with_a_roundabout():
    sheet = sheet_from("0 1 2 3 4 5 6 7 8 .")
    sheet.build_roundabout(0, 9)
    assert board_claims(sheet, "street-fully-lit") == []
    middle = sheet_from("0 1 2 3 4 . 5 6 7 8")
    middle.build_roundabout(0, 5)
    assert board_claims(middle, "street-fully-lit") == []


def test_estates_3_3_unlit():
    sheet = sheet_from("1 3 5 | 6 8 10 | 12 14 16 17")              # 5-6 lit across the fence
    assert joined(sheet, 0, 2)
    assert board_claims(sheet, "estates-3-3-unlit") == [PlanClaim(3, ((0, 0, 3), (0, 3, 3)))]
    lit = sheet_from("1 2 5 | 6 8 10 | 12 14 16 17")
    assert board_claims(lit, "estates-3-3-unlit") == []
    bis = sheet_from("1 3 3b | 6 8 10")
    assert board_claims(bis, "estates-3-3-unlit") == []


# ===================================================================== Easter
def test_eggs_collected_on_writing_the_offered_number():
    sheet = easter_sheet()
    write(sheet, 0, [(2, 0), (3, 8), (4, 9), (6, 10), (9, 11)])
    write(sheet, 1, [(0, 6), (6, 8)])
    write(sheet, 2, [(0, 0)])                                         # no egg house: nothing
    collected = sheet.board.collected
    assert [(h, c) for h, c in enumerate(collected[0]) if c is not None] == [
        (2, 1), (3, 2), (4, 1), (6, 1), (9, 0)]
    assert [(h, c) for h, c in enumerate(collected[1]) if c is not None] == [(0, 1), (6, 2)]
    assert all(c is None for c in collected[2])
    assert sheet.board.total() == 8
    assert BOARD_RULES["easter"].bonus(sheet, [None, None, None]) == 5


def test_bis_and_roundabouts_collect_no_eggs():
    sheet = easter_sheet()
    write(sheet, 1, [(6, 8)])
    apply_effect(sheet, Effect("bis", 1, 5, 8))                       # egg house 5, 8 has 2 holes
    assert sheet.numbers[1][5] == 8 and sheet.board.collected[1][5] is None
    sheet.build_roundabout(2, 4)
    assert sheet.board.collected[2][4] is None
    assert sheet.board.total() == 2


@pytest.mark.parametrize("total, points", [(0, 0), (5, 0), (6, 5), (9, 5), (10, 10), (13, 10),
                                           (14, 20), (17, 20), (18, 35), (24, 35)])
def test_egg_thresholds(total, points):
    sheet = easter_sheet()
    sheet.board.collected[0][0] = total
    assert sheet.board.points(sheet) == points
    assert BOARD_RULES["easter"].bonus(sheet, [None, None, None]) == points


def bottom_eggs(numbers):
    sheet = easter_sheet()
    write(sheet, 2, list(zip((2, 4, 5, 7, 9), numbers)))
    return sheet


def test_all_eggs_bottom_street():
    sheet = bottom_eggs((6, 8, 9, 10, 16))
    assert sum(c for c in sheet.board.collected[2] if c) == 7
    assert board_claims(sheet, "all-eggs-bottom-street") == [PlanClaim(3, None)]
    assert board_claims(bottom_eggs((6, 8, 9, 10, 15)), "all-eggs-bottom-street") == []
    assert board_claims(bottom_eggs((6, 7, 9, 10, 16)), "all-eggs-bottom-street") == []
    assert board_claims(easter_sheet(), "all-eggs-bottom-street") == []


def test_all_eggs_of_another_street_is_not_the_bottom_street():
    sheet = easter_sheet()
    write(sheet, 1, [(0, 0), (3, 6), (5, 8), (6, 10), (8, 16)])
    assert sheet.board.total() == 7
    assert board_claims(sheet, "all-eggs-bottom-street") == []


def no_egg_sheet(numbers):
    sheet = easter_sheet()
    write(sheet, 0, list(enumerate(numbers)))
    return fences(sheet, 0, 1, 4, 8)


def test_estates_2_3_4_no_eggs():
    sheet = no_egg_sheet([0, 1, 2, 3, 4, 5, 7, 11, 12, 13])           # egg houses got 0 eggs
    assert sheet.board.total() == 0 and sheet.board.collected[0][3] == 0
    assert board_claims(sheet, "estates-2-3-4-no-eggs") == [
        PlanClaim(3, ((0, 0, 2), (0, 2, 3), (0, 5, 4)))]
    egg = no_egg_sheet([0, 1, 2, 3, 4, 5, 6, 11, 12, 13])             # house 6 collects 1
    assert egg.board.total() == 1
    assert board_claims(egg, "estates-2-3-4-no-eggs") == []


def three_eggs_sheet(last):
    sheet = easter_sheet()
    write(sheet, 0, [(2, 6), (3, 8), (4, 9)])                         # 1 + 2 + 1
    write(sheet, 1, [(4, 5), (5, 6), (6, 8)])                         # 0 + 1 + 2
    write(sheet, 2, [(7, 10), (8, 11), (9, last)])                    # 2 + 0 + (1 with 16)
    fences(sheet, 0, 1, 4)
    fences(sheet, 1, 3, 6)
    fences(sheet, 2, 6, 9)
    return sheet


def test_estates_3_3_3_three_eggs():
    sheet = three_eggs_sheet(16)
    assert sheet.board.total() == 10
    assert board_claims(sheet, "estates-3-3-3-three-eggs") == [
        PlanClaim(3, ((0, 2, 3), (1, 4, 3), (2, 7, 3)))]
    short = three_eggs_sheet(15)                                      # street 2 estate: 2 eggs
    assert short.board.total() == 9
    assert board_claims(short, "estates-3-3-3-three-eggs") == []


# ======================================================= records and replay
BOARD_VARIANTS = [Variant(board="ice-cream"), Variant(board="christmas"), Variant(board="easter"),
                  Variant(advanced=True, expert=True, board="ice-cream"),
                  Variant(advanced=True, board="easter")]


def variant_id(variant):
    return "+".join([k for k in ("advanced", "expert") if getattr(variant, k)] + [variant.board])


@pytest.mark.parametrize("variant", BOARD_VARIANTS, ids=variant_id)
@pytest.mark.parametrize("seed", range(3))
def test_random_board_games_verify(variant, seed):
    spec = parse_strategy("random:roundabout_rate=0.3")
    seats = [Seat(f"p{i}", spec.id, spec) for i in range(3)]
    result = play_game(variant, seats, seed, record=True)
    record = result.record
    assert verify(record) == []
    assert record["variant"]["board"] == variant.board
    assert {p["id"] for p in record["plans"] if p["deck"] == 3} <= {p.id for p in BOARD_PLANS[variant.board]}
    for final, sheet in zip(record["final"], result.sheets):
        assert final["sheet"]["board"] == sheet.board.record(sheet)
        if variant.board == "christmas":
            assert final["score"]["bonus"] == sum(final["sheet"]["board"]["longest"])
        if variant.board == "easter":
            assert final["score"]["bonus"] == sheet.board.points(sheet)
        if variant.board == "ice-cream":
            scoops = sum(CONES[s][h] for s, row in enumerate(final["sheet"]["board"]["sold"]) for h in row)
            assert final["score"]["bonus"] >= scoops


@pytest.mark.parametrize("board", ["ice-cream", "christmas", "easter"])
def test_greedy_board_game_verifies(board):
    spec = parse_strategy("greedy")
    seats = [Seat(n, spec.id, spec) for n in "ab"]
    result = play_game(Variant(board=board), seats, 2, record=True)
    assert verify(result.record) == []


def test_tampered_board_record_is_reported():
    spec = parse_strategy("random")
    seats = [Seat(n, spec.id, spec) for n in "ab"]
    record = play_game(Variant(board="christmas"), seats, 4, record=True).record
    record["final"][0]["score"]["bonus"] += 1
    problems = verify(record)
    assert problems and "score" in problems[0]
