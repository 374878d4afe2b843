"""RULES.md §10 and §1.3: the advanced variant — roundabouts and the ten advanced plans."""

from __future__ import annotations

import copy

import pytest

from welcometo_sim.games.welcome_to.data import ADVANCED_PLANS, BASIC_PLANS, DEFAULT_DATA
from welcometo_sim.games.welcome_to.effects import Offer, Play, legal_plays
from welcometo_sim.games.welcome_to.game import Game, Seat, end_reasons, play_game
from welcometo_sim.games.welcome_to.plans import PlanClaim, apply_claim, claim_options
from welcometo_sim.games.welcome_to.record_replay import ReplayError, replay, verify
from welcometo_sim.games.welcome_to.scoring import score_sheet
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

from helpers import rig_stacks, sheet_from, variant_seat

ADV = {p.id: p for p in ADVANCED_PLANS}
BASIC = {p.id: p for p in BASIC_PLANS}
STREET0_FULL = " ".join(map(str, range(10)))
STREET1_FULL = " ".join(map(str, range(11)))
STREET2_FULL = " ".join(map(str, range(12)))
ADVANCED = Variant(advanced=True)


def with_roundabouts(sheet, *houses):
    for street, house in houses:
        sheet.build_roundabout(street, house)
    return sheet


def plans_with(spec):
    """A 3-plan tuple with `spec` at its own deck (deck position = index + 1)."""
    plans = [DEFAULT_DATA.plans_of_deck(d)[0] for d in (1, 2, 3)]
    plans[spec.deck - 1] = spec
    return tuple(plans)


def claims_for(sheet, plan_id):
    spec = ADV[plan_id]
    return [c for c in claim_options(sheet, plans_with(spec)) if c.deck == spec.deck]


def satisfied(sheet, plan_id):
    claims = claims_for(sheet, plan_id)
    assert claims in ([], [PlanClaim(ADV[plan_id].deck, None)]), claims
    return claims == [PlanClaim(ADV[plan_id].deck, None)]


def instance(seat):
    return seat.factory.instances[0]


# ------------------------------------------------------------- roundabouts
def test_roundabout_is_fenced_on_both_sides_and_counted():
    sheet = Sheet()
    sheet.build_roundabout(0, 4)
    assert sheet.roundabouts[0][4] is True
    assert [k for k, f in enumerate(sheet.fences[0]) if f] == [3, 4]
    assert sheet.n_roundabouts == 1
    assert sheet.numbers[0][4] is None and sheet.house_label(0, 4) == "R"
    assert (0, 4) not in sheet.roundabout_options()
    assert len(sheet.roundabout_options()) == 32
    assert (0, 3) not in sheet.fence_options() and (0, 4) not in sheet.fence_options()
    assert sheet.to_record()["roundabouts"] == 1
    assert sheet.to_record()["houses"][0][4] == "R"
    assert sheet.to_record()["fences"][0] == [3, 4]


def test_roundabout_at_street_ends_fences_its_only_inner_side():
    sheet = Sheet()
    sheet.build_roundabout(0, 0)
    sheet.build_roundabout(2, 11)
    assert [k for k, f in enumerate(sheet.fences[0]) if f] == [0]
    assert [k for k, f in enumerate(sheet.fences[2]) if f] == [10]
    assert sheet.fences[1] == [False] * 10
    assert sheet.n_roundabouts == 2


@pytest.mark.parametrize("street, n", [(0, 10), (1, 11), (2, 12)])
def test_roundabout_fences_on_every_house(street, n):
    for house in range(n):
        sheet = Sheet()
        sheet.build_roundabout(street, house)
        expected = [k for k in (house - 1, house) if 0 <= k <= n - 2]
        assert [k for k, f in enumerate(sheet.fences[street]) if f] == expected
        assert sheet.runs(street)[[f for f, _l, _d in sheet.runs(street)].index(house)] == (house, 1, False)


def test_roundabout_keeps_an_existing_fence():
    sheet = sheet_from(". . . | . .")
    sheet.build_roundabout(0, 3)
    assert [k for k, f in enumerate(sheet.fences[0]) if f] == [2, 3]


def test_ordering_restarts_after_a_roundabout():
    sheet = sheet_from("3 4 9 . . . . . . .")
    assert not sheet.can_write(0, 4, 1)
    assert (0, 4) not in sheet.houses_for(1)
    sheet.build_roundabout(0, 3)
    assert sheet.street_bounds(0)[0] == (4, -1, 18)
    assert sheet.can_write(0, 4, 1)
    assert [h for s, h in sheet.houses_for(1) if s == 0] == [4, 5, 6, 7, 8, 9]
    plays = legal_plays(sheet, [Offer(1, "surveyor", 0, 0)])
    assert Play(0, 0, 4, 1) in plays and all(p.house != 3 for p in plays if p.street == 0)
    sheet.write(0, 4, 1)       # 3 4 9 (R) 1 is legal
    assert [b for b in sheet.street_bounds(0)] == [(h, 1, 18) for h in range(5, 10)]


def test_numbers_right_of_a_roundabout_do_not_bound_the_left_part():
    sheet = sheet_from("3 . . 5")
    assert sheet.street_bounds(0)[0] == (1, 3, 5)
    sheet.build_roundabout(0, 2)
    assert sheet.street_bounds(0)[0] == (1, 3, 18)
    assert sheet.can_write(0, 1, 9)
    assert not sheet.can_write(0, 1, 3)


def test_duplicates_across_a_roundabout_are_allowed():
    sheet = with_roundabouts(sheet_from("3 . . . . . . . . 12"), (0, 1))
    plays = legal_plays(sheet, [Offer(3, "surveyor", 0, 0)])
    street0 = [p.house for p in plays if p.street == 0]
    assert street0 == [2, 3, 4, 5, 6, 7, 8]       # not at 1 (roundabout), 3 < 12 on the right
    sheet.write(0, 2, 3)
    assert sheet.is_bis[0][2] is False and sheet.n_bis == 0
    # but not twice on the same side of the roundabout
    assert not sheet.can_write(0, 3, 3)


def test_roundabout_is_never_part_of_an_estate():
    sheet = with_roundabouts(sheet_from("0 1 2 3 . 5 6 7 8 9"), (0, 4))
    assert sheet.runs(0) == [(0, 4, True), (4, 1, False), (5, 5, True)]
    assert sheet.completed_estates() == [(0, 0, 4), (0, 5, 5)]
    assert sheet.estate_counts() == [0, 0, 0, 1, 1, 0]
    # a roundabout between two fences is not an estate of size 1
    sheet2 = with_roundabouts(sheet_from("0 | . | 2"), (0, 1))
    assert sheet2.completed_estates() == [(0, 0, 1)]
    assert sheet2.estate_counts()[0] == 1


def test_roundabout_is_not_a_bis_neighbour():
    sheet = with_roundabouts(sheet_from(". . 5"), (0, 1))
    assert sheet.bis_options() == [(0, 3, 5)]      # only right of the 5


def test_roundabout_counts_as_built_for_the_houses_end_condition():
    sheet = sheet_from("1 2 3 4 5 . 6 7 8 9", STREET1_FULL, STREET2_FULL)
    assert not sheet.is_full() and end_reasons([sheet]) == []
    sheet.build_roundabout(0, 5)
    assert sheet.is_full()
    assert end_reasons([sheet]) == ["houses"]
    assert sheet.n_built() == 32


@pytest.mark.parametrize("count, penalty", [(0, 0), (1, -3), (2, -8)])
def test_roundabout_penalty_track(count, penalty):
    sheet = Sheet()
    for h in range(count):
        sheet.build_roundabout(1, 2 * h + 1)
    score = score_sheet(sheet, 0)
    assert score["roundabouts"] == penalty
    assert score["total"] == penalty


# ---------------------------------------------------------- roundabouts in a game
def rounds_then_first(view, houses):
    """Build a roundabout on the last free house (street 2's right end) each time asked."""
    return houses[-2]


def test_at_most_one_roundabout_per_turn_and_two_per_game():
    seats = [variant_seat("a", roundabout=rounds_then_first), variant_seat("b")]
    game = Game(ADVANCED, seats, 5, ("estates-4-4", "estates-3-6", "estates-3-4"), record=True)
    for _ in range(5):
        assert game.play_turn() == []
    a, b = instance(seats[0]), instance(seats[1])
    assert [turn for turn, _ in a.roundabout_calls] == [1, 2]       # none asked after two
    assert [turn for turn, _ in b.roundabout_calls] == [1, 2, 3, 4, 5]
    turn1, turn2 = a.roundabout_calls[0][1], a.roundabout_calls[1][1]
    assert len(turn1) == 34 and turn1[-1] is None and turn1[-2] == (2, 11)
    assert (2, 11) not in turn2 and turn2[-2] == (2, 10) and turn2[-1] is None
    assert len(turn2) == 33 - 1 - 1 + 1          # minus the roundabout and the house written, plus None
    sheet = game.sheets[0]
    assert sheet.n_roundabouts == 2 and sheet.roundabouts[2][10] and sheet.roundabouts[2][11]
    assert sum(sum(row) for row in sheet.roundabouts) == 2
    actions = [t["actions"][0]["roundabout"] for t in game.turn_records]
    assert actions == [{"street": 2, "house": 11}, {"street": 2, "house": 10}, None, None, None]
    assert all(t["actions"][1]["roundabout"] is None for t in game.turn_records)
    result = game.result([])
    assert result.scores[0]["roundabouts"] == -8 and result.scores[1]["roundabouts"] == 0
    assert verify(result.record) == [UNFINISHED.format(5)]


def test_base_game_never_asks_for_a_roundabout():
    seats = [variant_seat("a", roundabout=rounds_then_first), variant_seat("b")]
    game = Game(Variant(), seats, 5, ("estates-4-4", "estates-3-6", "estates-3-4"))
    for _ in range(3):
        game.play_turn()
    assert instance(seats[0]).roundabout_calls == []
    assert game.sheets[0].n_roundabouts == 0


def test_building_a_roundabout_can_make_an_offer_playable():
    # street 0: nothing fits between 5 and 6 until house 5 becomes a roundabout
    blocked = sheet_from("1 2 3 4 5 . . 6 7 8", STREET1_FULL, STREET2_FULL)

    def at_5(view, houses):
        return (0, 5)

    seats = [variant_seat("a", roundabout=at_5), variant_seat("b")]
    game = Game(ADVANCED, seats, 0, ("estates-4-4", "estates-3-6", "estates-3-4"), record=True)
    game.sheets[0] = blocked
    game.sheets[1] = sheet_from("1 2 3 4 5 . . 6 7 8", STREET1_FULL, STREET2_FULL)
    rig_stacks(game.deck, [[(5, "surveyor"), (3, "surveyor")], [(5, "real_estate"), (2, "surveyor")],
                           [(6, "surveyor"), (1, "surveyor")]])
    assert game.play_turn() == ["houses"]
    a, b = instance(seats[0]), instance(seats[1])
    assert a.roundabout_calls[0][1] == [(0, 5), (0, 6), None]
    assert a.seen[0]["plays"] == [Play(0, 0, 6, 3), Play(1, 0, 6, 2), Play(2, 0, 6, 1)]
    assert game.sheets[0].numbers[0][6] == 3 and game.sheets[0].is_full()
    assert game.sheets[0].refusals == 0
    # b built nothing: no offer fits, a refusal, never asked to play
    assert b.seen == [] and game.sheets[1].refusals == 1


def test_roundabout_on_the_last_empty_house_then_refusal():
    # the roundabout fills the sheet: nothing is left to write, so the player refuses
    blocked = sheet_from("1 2 3 4 5 . 6 7 8 9", STREET1_FULL, STREET2_FULL)
    seats = [variant_seat("a", roundabout=lambda v, h: (0, 5)), variant_seat("b")]
    game = Game(ADVANCED, seats, 0, ("estates-4-4", "estates-3-6", "estates-3-4"), record=True)
    game.sheets[0] = blocked
    assert game.play_turn() == ["houses"]
    action = game.turn_records[0]["actions"][0]
    assert action["roundabout"] == {"street": 0, "house": 5} and action["refusal"] is True
    assert game.sheets[0].refusals == 1


# ---------------------------------------------------------- the plan table
def test_advanced_plan_table_matches_the_rules():
    table = {
        "full-street-bottom": (1, (8, 4)), "full-street-top": (1, (6, 3)),
        "five-bis-one-street": (1, (8, 3)), "seven-temps": (1, (6, 3)), "street-ends": (1, (7, 4)),
        "all-parks-two-streets": (2, (7, 4)), "all-pools-two-streets": (2, (7, 4)),
        "parks-pools-roundabout-one-street": (2, (10, 5)), "parks-pools-bottom-street": (2, (10, 5)),
        "parks-pools-middle-street": (2, (8, 3)),
    }
    assert {p.id: (p.deck, p.points) for p in ADVANCED_PLANS} == table


def test_advanced_variant_plan_decks_have_eleven_cards():
    for deck in (1, 2):
        cards = ADVANCED.plan_deck(deck)
        assert len(cards) == 11
        assert {p.id for p in cards} == ({p.id for p in BASIC_PLANS if p.deck == deck}
                                         | {p.id for p in ADVANCED_PLANS if p.deck == deck})
    assert [p.id for p in ADVANCED.plan_deck(3)] == [p.id for p in BASIC_PLANS if p.deck == 3]
    for deck in (1, 2, 3):
        assert len(Variant().plan_deck(deck)) == 6
        assert all(p.id in BASIC for p in Variant().plan_deck(deck))


# ---------------------------------------------------------- full-street plans
@pytest.mark.parametrize("plan_id, street, full", [
    ("full-street-top", 0, STREET0_FULL), ("full-street-bottom", 2, STREET2_FULL)])
def test_full_street_plans(plan_id, street, full):
    other = 2 - street
    streets = ["", "", ""]
    streets[street] = full
    assert satisfied(sheet_from(*streets), plan_id)
    # the other full street does not do it
    streets_other = ["", "", ""]
    streets_other[other] = STREET2_FULL if other == 2 else STREET0_FULL
    assert not satisfied(sheet_from(*streets_other), plan_id)
    # one empty house: not yet
    gap = full.split()
    gap[3] = "."
    streets_gap = ["", "", ""]
    streets_gap[street] = " ".join(gap)
    sheet = sheet_from(*streets_gap)
    assert not satisfied(sheet, plan_id)
    # a roundabout on that house counts as built
    sheet.build_roundabout(street, 3)
    assert satisfied(sheet, plan_id)


@pytest.mark.parametrize("plan_id, street, full", [
    ("full-street-top", 0, STREET0_FULL), ("full-street-bottom", 2, STREET2_FULL)])
def test_full_street_blocked_by_a_house_used_by_another_plan(plan_id, street, full):
    tokens = full.split()
    tokens[0], tokens[1] = tokens[0] + "~3", tokens[1] + "~3"
    streets = ["", "", ""]
    streets[street] = " ".join(tokens[:2]) + " | " + " ".join(tokens[2:])
    assert not satisfied(sheet_from(*streets), plan_id)


def test_full_street_marks_every_house_and_blocks_fences_there():
    sheet = with_roundabouts(sheet_from("0 1 2 . 4 5 6 7 8 9", "0 1 2"), (0, 3))
    plans = plans_with(ADV["full-street-top"])
    assert PlanClaim(1, None) in claim_options(sheet, plans)
    apply_claim(sheet, plans, PlanClaim(1, None), 4)
    assert sheet.plan_turns == [4, None, None]
    assert sheet.plan_use[0] == [1] * 10
    assert sheet.plan_use[1] == [0] * 11 and sheet.plan_use[2] == [0] * 12
    assert [s for s, _k in sheet.fence_options()].count(0) == 0
    assert not any(sheet.fence_allowed(0, k) for k in range(9))
    assert sheet.fence_allowed(1, 0)
    # the completed estates of street 0 can no longer serve an estate plan
    assert sheet.completed_estates() == [(0, 0, 3), (0, 4, 6)]
    assert sheet.unused_estates() == []
    assert claim_options(sheet, plans) == []          # completed: never offered again


# --------------------------------------------------------- five bis on one street
def test_five_bis_on_one_street():
    assert satisfied(sheet_from("1 1b 2 2b 3 3b 4 4b 5 5b"), "five-bis-one-street")
    assert satisfied(sheet_from("", "", "1 1b 1b 1b 1b 1b"), "five-bis-one-street")


def test_five_bis_spread_over_streets_is_not_enough():
    sheet = sheet_from("1 1b 2 2b 3 3b", "1 1b 2 2b")
    assert sheet.n_bis == 5
    assert not satisfied(sheet, "five-bis-one-street")
    assert not satisfied(sheet_from("1 1b 2 2b 3 3b 4 4b"), "five-bis-one-street")


def test_five_bis_uses_no_houses():
    sheet = sheet_from("1 1b 2 2b 3 3b 4 4b 5 5b")
    plans = plans_with(ADV["five-bis-one-street"])
    apply_claim(sheet, plans, PlanClaim(1, None), 2)
    assert all(u == 0 for row in sheet.plan_use for u in row)


# --------------------------------------------------------------- seven temps
@pytest.mark.parametrize("temps, ok", [(0, False), (6, False), (7, True), (11, True)])
def test_seven_temps(temps, ok):
    assert satisfied(sheet_from(temps=temps), "seven-temps") is ok


# ---------------------------------------------------------------- street ends
ENDS = ("0 . . . . . . . . 9", "0 . . . . . . . . . 10", "0 . . . . . . . . . . 11")


def test_street_ends_needs_all_six_ends_built():
    assert satisfied(sheet_from(*ENDS), "street-ends")
    for street in range(3):
        for end in (0, -1):
            tokens = [s.split() for s in ENDS]
            tokens[street][end] = "."
            assert not satisfied(sheet_from(*(" ".join(t) for t in tokens)), "street-ends"), (street, end)


def test_street_ends_not_satisfied_with_a_roundabout_at_an_end():
    tokens = [s.split() for s in ENDS]
    tokens[2][-1] = "."
    sheet = with_roundabouts(sheet_from(*(" ".join(t) for t in tokens)), (2, 11))
    assert not satisfied(sheet, "street-ends")
    tokens = [s.split() for s in ENDS]
    tokens[0][0] = "."
    sheet = with_roundabouts(sheet_from(*(" ".join(t) for t in tokens)), (0, 0))
    assert not satisfied(sheet, "street-ends")


def test_street_ends_blocked_by_an_end_used_by_another_plan():
    sheet = sheet_from("0~2 . . . . . . . . 9", ENDS[1], ENDS[2])
    assert not satisfied(sheet, "street-ends")


def test_street_ends_marks_its_six_houses_only():
    sheet = sheet_from(*ENDS)
    plans = plans_with(ADV["street-ends"])
    apply_claim(sheet, plans, PlanClaim(1, None), 3)
    marked = sorted((s, h) for s, row in enumerate(sheet.plan_use) for h, u in enumerate(row) if u)
    assert marked == [(0, 0), (0, 9), (1, 0), (1, 10), (2, 0), (2, 11)]
    assert all(sheet.plan_use[s][h] == 1 for s, h in marked)
    # fences beside the marked houses are still allowed
    for street, n in enumerate((10, 11, 12)):
        assert sheet.fence_allowed(street, 0) and sheet.fence_allowed(street, n - 2)
    assert len(sheet.fence_options()) == 9 + 10 + 11


def test_street_ends_marked_houses_keep_their_estates_from_estate_plans():
    spec = BASIC["estates-3-4"]                                   # deck 3
    plans = (ADV["street-ends"], BASIC["estates-3-6"], spec)
    sheet = sheet_from("0 1 2 | 3 4 5 | . . . 9", "0 | 1 2 3 4 | . . . . . 10", ENDS[2])
    before = [c for c in claim_options(sheet, plans) if c.deck == 3]
    assert {c.estates for c in before} == {
        ((0, 0, 3), (1, 1, 4)), ((0, 3, 3), (1, 1, 4))}
    apply_claim(sheet, plans, PlanClaim(1, None), 2)
    after = [c for c in claim_options(sheet, plans) if c.deck == 3]
    assert after == [PlanClaim(3, ((0, 3, 3), (1, 1, 4)))]     # (0, 0, 3) holds a marked house
    assert (1, 0, 1) not in sheet.unused_estates() and (1, 0, 1) in sheet.completed_estates()


def test_street_ends_marked_house_estate_cannot_serve_size_one_plans():
    sheet = sheet_from("0 | . . . . . . . . 9", ENDS[1], ENDS[2])
    plans = plans_with(ADV["street-ends"])
    apply_claim(sheet, plans, PlanClaim(1, None), 1)
    assert (0, 0, 1) in sheet.completed_estates()
    assert sheet.unused_estates() == []


# ------------------------------------------------------------ parks and pools
ALL_PARKS = (3, 4, 5)
POOLS = {0: [(0, 2), (0, 6), (0, 7)], 1: [(1, 0), (1, 3), (1, 7)], 2: [(2, 1), (2, 6), (2, 10)]}


@pytest.mark.parametrize("parks, ok", [
    ((3, 4, 0), True), ((3, 0, 5), True), ((0, 4, 5), True), ((3, 4, 5), True),
    ((3, 3, 4), False), ((2, 4, 4), False), ((2, 3, 5), False), ((0, 0, 0), False)])
def test_all_parks_two_streets(parks, ok):
    assert satisfied(sheet_from(parks=list(parks)), "all-parks-two-streets") is ok


@pytest.mark.parametrize("streets, ok", [((0, 1), True), ((1, 2), True), ((0, 2), True),
                                         ((0,), False), ((2,), False), ((), False)])
def test_all_pools_two_streets(streets, ok):
    pools = [p for s in streets for p in POOLS[s]]
    assert satisfied(sheet_from(pools=pools), "all-pools-two-streets") is ok


def test_all_pools_two_streets_needs_all_three_on_each():
    pools = POOLS[0] + POOLS[1][:2] + POOLS[2][1:]
    assert not satisfied(sheet_from(pools=pools), "all-pools-two-streets")


def test_parks_pools_roundabout_one_street():
    plan = "parks-pools-roundabout-one-street"
    sheet = sheet_from(parks=[0, 4, 0], pools=POOLS[1])
    assert not satisfied(sheet, plan)                           # no roundabout yet
    sheet.build_roundabout(0, 5)
    assert not satisfied(sheet, plan)                           # roundabout on another street
    sheet.build_roundabout(1, 5)
    assert satisfied(sheet, plan)
    # everything on one street: parks one short
    short = with_roundabouts(sheet_from(parks=[0, 3, 0], pools=POOLS[1]), (1, 5))
    assert not satisfied(short, plan)
    # a pool missing
    missing = with_roundabouts(sheet_from(parks=[0, 4, 0], pools=POOLS[1][:2]), (1, 5))
    assert not satisfied(missing, plan)
    # parks on one street, pools and roundabout on another
    split = with_roundabouts(sheet_from(parks=[3, 0, 0], pools=POOLS[2]), (2, 4))
    assert not satisfied(split, plan)
    bottom = with_roundabouts(sheet_from(parks=[0, 0, 5], pools=POOLS[2]), (2, 4))
    assert satisfied(bottom, plan)


@pytest.mark.parametrize("plan_id, street", [("parks-pools-bottom-street", 2),
                                             ("parks-pools-middle-street", 1)])
def test_parks_pools_one_given_street(plan_id, street):
    parks = [0, 0, 0]
    parks[street] = ALL_PARKS[street]
    assert satisfied(sheet_from(parks=parks, pools=POOLS[street]), plan_id)
    short = parks[:]
    short[street] -= 1
    assert not satisfied(sheet_from(parks=short, pools=POOLS[street]), plan_id)
    assert not satisfied(sheet_from(parks=parks, pools=POOLS[street][1:]), plan_id)
    # the same done on another street does not count
    other = 1 if street == 2 else 2
    other_parks = [0, 0, 0]
    other_parks[other] = ALL_PARKS[other]
    assert not satisfied(sheet_from(parks=other_parks, pools=POOLS[other]), plan_id)
    full = sheet_from(parks=list(ALL_PARKS), pools=[p for s in POOLS for p in POOLS[s]])
    assert satisfied(full, plan_id)


@pytest.mark.parametrize("plan_id", ["all-parks-two-streets", "all-pools-two-streets",
                                     "parks-pools-bottom-street", "parks-pools-middle-street",
                                     "seven-temps"])
def test_sheet_wide_plans_use_no_houses(plan_id):
    sheet = sheet_from(STREET0_FULL, STREET1_FULL, parks=list(ALL_PARKS), temps=7,
                       pools=[p for s in POOLS for p in POOLS[s]])
    spec = ADV[plan_id]
    plans = plans_with(spec)
    apply_claim(sheet, plans, PlanClaim(spec.deck, None), 1)
    assert all(u == 0 for row in sheet.plan_use for u in row)
    assert sheet.plan_turns[spec.deck - 1] == 1


def test_each_advanced_plan_satisfied_and_not_has_a_test_above():
    tested = {"full-street-top", "full-street-bottom", "five-bis-one-street", "seven-temps",
              "street-ends", "all-parks-two-streets", "all-pools-two-streets",
              "parks-pools-roundabout-one-street", "parks-pools-bottom-street",
              "parks-pools-middle-street"}
    assert tested == set(ADV)


# ------------------------------------------------------- advanced plans in a game
def test_advanced_plan_completed_in_a_game_scores_high():
    seats = [variant_seat("a"), variant_seat("b")]
    game = Game(ADVANCED, seats, 3, ("seven-temps", "all-parks-two-streets", "estates-3-4"),
                record=True)
    game.sheets[0].temps = 7
    game.sheets[0].parks = [3, 4, 0]
    assert game.play_turn() == []
    assert game.sheets[0].plan_turns == [1, 1, None]
    assert game.sheets[0].plan_points == [6, 7, 0]
    claims = game.turn_records[0]["actions"][0]["plans"]
    assert sorted(claims, key=lambda c: c["deck"]) == [
        {"deck": 1, "estates": None}, {"deck": 2, "estates": None}]
    game.sheets[1].temps = 7
    game.play_turn()
    assert game.sheets[1].plan_points == [3, 0, 0]


# ------------------------------------------------------------ records, replay
def advanced_record():
    seats = [variant_seat("a", roundabout=rounds_then_first), variant_seat("b")]
    game = Game(ADVANCED, seats, 9, ("estates-4-4", "estates-3-6", "estates-3-4"), record=True)
    for _ in range(4):
        game.play_turn()
    return game.result([]).record


UNFINISHED = "end.reasons: [] recorded, but no end condition holds after turn {}, the last turn recorded"
"""verify's one problem with the record of a game stopped before its end."""


def test_recorded_roundabouts_replay():
    record = advanced_record()
    assert verify(record) == [UNFINISHED.format(4)]    # all four turns replay; the game has not ended
    final = record["final"][0]["sheet"]
    assert final["roundabouts"] == 2 and final["houses"][2][10:] == ["R", "R"]
    state = replay(record, until_turn=1)
    assert state.sheets[0].n_roundabouts == 1 and state.sheets[0].roundabouts[2][11]


def test_tampered_third_roundabout_is_reported():
    record = advanced_record()
    tampered = copy.deepcopy(record)
    assert tampered["turns"][2]["actions"][0]["roundabout"] is None
    tampered["turns"][2]["actions"][0]["roundabout"] = {"street": 2, "house": 8}
    problems = verify(tampered)
    assert problems and any("roundabout" in p for p in problems)
    with pytest.raises(ReplayError, match="roundabout"):     # rejected as an action, not only by the final sheets
        replay(tampered)


def test_tampered_roundabout_on_a_built_house_is_reported():
    record = advanced_record()
    written = record["turns"][0]["actions"][1]["written"]
    tampered = copy.deepcopy(record)
    tampered["turns"][1]["actions"][1]["roundabout"] = {"street": written["street"],
                                                        "house": written["house"]}
    problems = verify(tampered)
    assert problems and any("roundabout" in p for p in problems)
    with pytest.raises(ReplayError, match="roundabout"):     # rejected as an action, not only by the final sheets
        replay(tampered)


def test_tampered_roundabout_in_a_base_game_record_is_reported():
    record = advanced_record()
    tampered = copy.deepcopy(record)
    tampered["variant"]["advanced"] = False
    problems = verify(tampered)
    assert problems and any("roundabout" in p for p in problems)
    with pytest.raises(ReplayError, match="roundabout"):     # rejected as an action, not only by the final sheets
        replay(tampered)


def test_tampered_extra_roundabout_on_an_earlier_turn_is_reported():
    # one more roundabout on turn 1 makes the recorded turn-3 roundabout the third
    record = advanced_record()
    tampered = copy.deepcopy(record)
    tampered["turns"][0]["actions"][0]["roundabout"] = {"street": 1, "house": 10}
    tampered["turns"][2]["actions"][0]["roundabout"] = {"street": 2, "house": 11}
    assert verify(tampered) != []


@pytest.mark.parametrize("seed", range(4))
def test_random_advanced_games_with_roundabouts_verify(seed):
    spec = parse_strategy("random:roundabout_rate=0.5")
    seats = [Seat(n, spec.id, spec) for n in "abc"]
    result = play_game(ADVANCED, seats, seed, record=True)
    record = result.record
    assert verify(record) == []
    built = [a["roundabout"] for t in record["turns"] for a in t["actions"] if a["roundabout"]]
    assert built
    for seat in range(3):
        mine = [t["turn"] for t in record["turns"] for a in t["actions"]
                if a["seat"] == seat and a["roundabout"]]
        assert len(mine) <= 2 and len(set(mine)) == len(mine)
        assert record["final"][seat]["sheet"]["roundabouts"] == len(mine)
        assert record["final"][seat]["score"]["roundabouts"] == (0, -3, -8)[len(mine)]


def test_greedy_advanced_game_verifies():
    spec = parse_strategy("greedy")
    seats = [Seat(n, spec.id, spec) for n in "ab"]
    result = play_game(ADVANCED, seats, 1, record=True)
    assert verify(result.record) == []
    assert result.record["variant"]["advanced"] is True
    assert {p["id"] for p in result.record["plans"]} <= {p.id for d in (1, 2, 3)
                                                         for p in ADVANCED.plan_deck(d)}
