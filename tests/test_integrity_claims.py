"""Plan claims are checked by their content (RULES.md §6): any set of matching
estates completes a plan, listed in any order, whether or not the engine's
list of options holds it; the game, `claim_is_valid` and `wtsim verify`
agree on that, and `verify` takes records without a `final[].sheet.board`
block (RECORDS.md defines none)."""

from __future__ import annotations

import copy
from itertools import combinations

import pytest

from welcometo_sim.games.welcome_to.data import BASIC_PLANS, DEFAULT_DATA
from welcometo_sim.games.welcome_to.game import Game, Seat, StrategyError, play_game
from welcometo_sim.games.welcome_to.plans import (MAX_CLAIM_OPTIONS, PlanClaim, apply_claim, checked_claim,
                                                  claim_is_valid, claim_options)
from welcometo_sim.games.welcome_to.effects import Offer
from welcometo_sim.games.record_format import ReplayError
from welcometo_sim.games.welcome_to.record_replay import ReplayState, apply_action, verify
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

from helpers import estates_sheet, scripted_seat, sheet_from

PLAN = {p.id: p for p in BASIC_PLANS}


def plans_with(*specs):
    plans = [DEFAULT_DATA.plans_of_deck(d)[0] for d in (1, 2, 3)]
    for spec in specs:
        plans[spec.deck - 1] = spec
    return tuple(plans)


def single_house_estates(n: int) -> Sheet:
    """n completed one-house estates: every house of the top street (10) and
    then of the middle one, each between fences."""
    sheet = Sheet()
    placed = 0
    for street, size in enumerate(DEFAULT_DATA.street_houses):
        for house in range(size):
            if placed == n:
                return sheet
            sheet.write(street, house, house)
            for slot in (house - 1, house):
                if 0 <= slot < size - 1 and not sheet.fences[street][slot]:
                    sheet.add_fence(street, slot)
            placed += 1
    return sheet


# ------------------------------------------------------------ claim_is_valid
def test_estates_in_any_order_are_a_valid_claim():
    sheet = estates_sheet([3, 6])
    plans = plans_with(PLAN["estates-3-6"])
    listed = [c for c in claim_options(sheet, plans) if c.deck == 2]
    assert listed == [PlanClaim(2, ((0, 0, 3), (0, 3, 6)))]
    reordered = PlanClaim(2, ((0, 3, 6), (0, 0, 3)))
    assert claim_is_valid(sheet, plans, reordered)
    assert checked_claim(sheet, plans, reordered) == reordered
    assert claim_is_valid(sheet, plans, PlanClaim(2, [[0, 3, 6], [0, 0, 3]]))   # lists, as in JSON


def test_a_combination_beyond_the_listed_ones_is_valid():
    sheet = single_house_estates(20)
    plans = plans_with(PLAN["estates-1-1-1-1-1-1"])
    estates = sheet.unused_estates()
    assert len(estates) == 20
    listed = [c for c in claim_options(sheet, plans) if c.deck == 1]
    assert len(listed) == MAX_CLAIM_OPTIONS >= 24                 # 38,760 ways: the list stops
    last = PlanClaim(1, tuple(list(combinations(estates, 6))[-1]))
    assert last not in listed
    assert claim_is_valid(sheet, plans, last)
    assert claim_is_valid(sheet, plans, PlanClaim(1, last.estates[::-1]))


def test_every_listed_claim_is_valid():
    sheet = estates_sheet([1, 1, 1, 2, 2, 3, 4, 5, 6])
    plans = plans_with(PLAN["estates-1-1-1-4"], PLAN["estates-1-2-2-3"])
    options = claim_options(sheet, plans)
    assert options
    assert all(claim_is_valid(sheet, plans, claim) for claim in options)


@pytest.mark.parametrize("claim, why", [
    (PlanClaim(2, ((0, 0, 3), (0, 3, 5))), "an estate of the wrong size"),
    (PlanClaim(2, ((0, 0, 3), (1, 0, 6))), "an estate that does not exist"),
    (PlanClaim(2, ((0, 0, 3), (0, 0, 3))), "the same estate twice"),
    (PlanClaim(2, ((0, 0, 3),)), "too few estates"),
    (PlanClaim(2, ((0, 0, 3), (0, 3, 6), (0, 9, 3))), "too many estates"),
    (PlanClaim(2, ((0, 0, 2), (0, 3, 6))), "part of an estate"),
    (PlanClaim(2, None), "no estates for an estate plan"),
    (PlanClaim(4, ((0, 0, 3), (0, 3, 6))), "a deck that does not exist"),
    (PlanClaim(0, ((0, 0, 3), (0, 3, 6))), "deck 0"),
    (PlanClaim(True, ((0, 0, 3), (0, 3, 6))), "a bool for a deck"),
    (PlanClaim(2, ((0, 0, 3.0), (0, 3, 6))), "a float in an estate"),
    (PlanClaim(2, ((0, 0), (0, 3, 6))), "an estate of two numbers"),
    (PlanClaim(2, "estates"), "a string of estates"),
    ((2, ((0, 0, 3), (0, 3, 6))), "a plain tuple"),
])
def test_invalid_claims_are_rejected(claim, why):
    sheet = estates_sheet([3, 6])
    assert claim_is_valid(sheet, plans_with(PLAN["estates-3-6"]), PlanClaim(2, ((0, 0, 3), (0, 3, 6))))
    assert not claim_is_valid(sheet, plans_with(PLAN["estates-3-6"]), claim), why


def test_an_estate_that_is_not_completed_is_rejected():
    sheet = sheet_from("1 2 . | 4 5 6 7 8 9 |")           # 0..2 has an empty house
    plans = plans_with(PLAN["estates-3-6"])
    assert not claim_is_valid(sheet, plans, PlanClaim(2, ((0, 3, 6), (0, 0, 3))))
    sheet.write(0, 2, 3)
    assert claim_is_valid(sheet, plans, PlanClaim(2, ((0, 3, 6), (0, 0, 3))))


def test_an_estate_already_used_by_a_plan_is_rejected():
    sheet = estates_sheet([3, 4, 6])
    plans = (PLAN["estates-3-3-3"], PLAN["estates-3-6"], PLAN["estates-3-4"])
    apply_claim(sheet, plans, PlanClaim(3, ((0, 3, 4), (0, 0, 3))), turn=1)
    assert not claim_is_valid(sheet, plans, PlanClaim(2, ((0, 0, 3), (1, 0, 6))))
    assert not claim_is_valid(sheet, plans, PlanClaim(3, ((0, 0, 3), (0, 3, 4))))   # completed already


def test_a_plan_without_estates_takes_none_only():
    plans = Variant(advanced=True).plan_deck(1)
    spec = next(p for p in plans if p.id == "full-street-top")
    sheet = sheet_from("0 1 2 3 4 5 6 7 8 9")
    chosen = plans_with(spec)
    assert claim_is_valid(sheet, chosen, PlanClaim(1, None))
    assert not claim_is_valid(sheet, chosen, PlanClaim(1, ()))
    assert not claim_is_valid(sheet, chosen, PlanClaim(1, ((0, 0, 10),)))


# ------------------------------------------------------------ the game
def test_the_game_accepts_any_order_and_any_combination():
    def last_reversed(view, claimable):
        estates = view.sheet.unused_estates()
        return [PlanClaim(1, tuple(list(combinations(estates, 6))[-1])[::-1])]

    seats = [scripted_seat("a", plans=last_reversed), scripted_seat("b")]
    game = Game(Variant(), seats, 0, ("estates-1-1-1-1-1-1", "estates-3-6", "estates-3-4"), record=True)
    game.sheets[0] = single_house_estates(20)
    game.play_turn()
    action = game.turn_records[0]["actions"][0]
    chosen = action["plans"][0]["estates"]
    assert action["plans"][0]["deck"] == 1 and len(chosen) == 6
    assert chosen == sorted(chosen, reverse=True)            # as the strategy listed them
    assert game.sheets[0].plan_turns[0] == 1
    assert all(game.sheets[0].plan_use[s][h] == 1 for s, h, _size in chosen)


def test_the_game_still_rejects_an_invalid_claim():
    seats = [scripted_seat("a", plans=lambda view, claimable: [PlanClaim(1, ((0, 0, 1),) * 6)]),
             scripted_seat("b")]
    game = Game(Variant(), seats, 0, ("estates-1-1-1-1-1-1", "estates-3-6", "estates-3-4"))
    game.sheets[0] = single_house_estates(20)
    with pytest.raises(StrategyError, match="to choose_plans"):
        game.play_turn()


# ------------------------------------------------------------ verify
def recorded_games(variant, n=12):
    seats = [Seat(s, s, parse_strategy(s)) for s in ("greedy", "random")]
    return [play_game(variant, seats, seed, record=True).record for seed in range(n)]


def claimed(records):
    return [(r, t, a) for r in records for t in r["turns"] for a in t["actions"] if a["plans"]]


def test_verify_accepts_claims_listed_in_another_order():
    records = recorded_games(Variant())
    found = 0
    for record, turn, action in claimed(records):
        for entry in action["plans"]:
            if entry["estates"] and len(entry["estates"]) > 1:
                entry["estates"].reverse()
                found += 1
    assert found
    for record in records:
        assert verify(record) == []


def test_verify_accepts_a_combination_the_engine_would_not_list():
    """The check verify applies to each recorded action (`apply_action`), on a
    sheet with 20 one-house estates: the last of the 38,760 ways, in reverse."""
    plans = (PLAN["estates-1-1-1-1-1-1"], PLAN["estates-3-6"], PLAN["estates-3-4"])
    state = ReplayState(Variant(), plans, [single_house_estates(20)], turn=4)
    late = [list(e) for e in state.sheets[0].unused_estates()[-6:]][::-1]
    action = {"seat": 0, "roundabout": None, "refusal": False, "number_from": 0, "effect_from": 0,
              "written": {"street": 2, "house": 0, "number": 5}, "truck": None, "effect": None,
              "plans": [{"deck": 1, "estates": late}], "reshuffle": False}
    offers = [Offer(5, "surveyor", 0, 0), Offer(6, "pool", 1, 1), Offer(7, "bis", 2, 2)]
    apply_action(state, offers, action)
    assert state.sheets[0].plan_turns[0] == 4
    again = dict(action, number_from=1, effect_from=1, written={"street": 2, "house": 1, "number": 6})
    with pytest.raises(ReplayError, match="cannot complete plan"):     # completed already
        apply_action(state, offers, again)


@pytest.mark.parametrize("board", ["ice-cream", "christmas", "easter"])
def test_verify_does_not_require_the_board_block(board):
    for record in recorded_games(Variant(board=board), n=4):
        assert verify(record) == []
        stripped = copy.deepcopy(record)
        for final in stripped["final"]:
            assert "board" in final["sheet"]
            del final["sheet"]["board"]
        assert verify(stripped) == []
        wrong = copy.deepcopy(record)
        block = wrong["final"][0]["sheet"]["board"]
        key = next(iter(block))
        block[key] = "changed"
        assert any("board" in problem for problem in verify(wrong))
