"""RULES.md §1.3 and §6: city plans, their claims, plan lines and plan points."""

from __future__ import annotations

from collections import Counter

import pytest

from welcometo_sim.games.welcome_to.data import BASIC_PLANS, DEFAULT_DATA
from welcometo_sim.games.welcome_to.game import settle_plans
from welcometo_sim.games.welcome_to.plans import PlanClaim, apply_claim, claim_is_valid, claim_options
from welcometo_sim.games.welcome_to.sheet import Sheet

from helpers import estates_sheet, sheet_from

PLAN = {p.id: p for p in BASIC_PLANS}


def plans_with(spec):
    """A 3-plan tuple with `spec` at its own deck and the others from their decks."""
    plans = [DEFAULT_DATA.plans_of_deck(d)[0] for d in (1, 2, 3)]
    plans[spec.deck - 1] = spec
    return tuple(plans)


def claims_for(sheet, spec):
    return [c for c in claim_options(sheet, plans_with(spec)) if c.deck == spec.deck]


# --------------------------------------------------------------- the plan table
def test_basic_plan_table_matches_the_rules():
    table = {
        "estates-1-1-1-1-1-1": (1, (8, 4)), "estates-2-2-2-2": (1, (8, 4)),
        "estates-3-3-3": (1, (8, 4)), "estates-4-4": (1, (6, 3)), "estates-5-5": (1, (8, 4)),
        "estates-6-6": (1, (10, 6)), "estates-1-1-1-6": (2, (11, 6)), "estates-2-2-5": (2, (10, 6)),
        "estates-3-3-4": (2, (12, 7)), "estates-3-6": (2, (8, 4)), "estates-4-5": (2, (9, 5)),
        "estates-1-1-1-4": (2, (9, 5)), "estates-1-2-6": (3, (12, 7)), "estates-1-4-5": (3, (13, 7)),
        "estates-3-4": (3, (7, 3)), "estates-2-5": (3, (7, 3)), "estates-1-2-2-3": (3, (11, 6)),
        "estates-2-3-5": (3, (13, 7)),
    }
    assert {p.id: (p.deck, p.points) for p in BASIC_PLANS} == table
    for p in BASIC_PLANS:
        assert p.kind == "estates"
        assert "estates-" + "-".join(map(str, p.estates)) == p.id
    assert [len(DEFAULT_DATA.plans_of_deck(d)) for d in (1, 2, 3)] == [6, 6, 6]


# ------------------------------------------------------- each plan, yes and no
@pytest.mark.parametrize("spec", BASIC_PLANS, ids=lambda p: p.id)
def test_plan_satisfied_by_exactly_its_estates(spec):
    sheet = estates_sheet(spec.estates)
    claims = claims_for(sheet, spec)
    assert claims, sheet
    for claim in claims:
        assert claim.deck == spec.deck
        assert sorted(size for _s, _f, size in claim.estates) == sorted(spec.estates)
        assert len(set(claim.estates)) == len(claim.estates)
    # the sheet holds exactly one set, so every claim uses all of its estates
    assert set(claims[0].estates) == set(sheet.completed_estates())


@pytest.mark.parametrize("spec", BASIC_PLANS, ids=lambda p: p.id)
def test_plan_not_satisfied_when_one_estate_is_missing(spec):
    sizes = list(spec.estates)
    for drop in sorted(set(sizes)):
        fewer = sizes[:]
        fewer.remove(drop)
        assert claims_for(estates_sheet(fewer), spec) == [], (spec.id, fewer)


@pytest.mark.parametrize("spec", BASIC_PLANS, ids=lambda p: p.id)
def test_plan_not_satisfied_when_one_estate_is_unfinished(spec):
    sheet = estates_sheet(spec.estates)
    street, first, size = sheet.completed_estates()[-1]
    unfinished = Sheet()
    for s, row in enumerate(sheet.numbers):
        for h, value in enumerate(row):
            if value is not None and (s, h) != (street, first + size - 1):
                unfinished.write(s, h, value)
    for s, row in enumerate(sheet.fences):
        for k, fence in enumerate(row):
            if fence:
                unfinished.add_fence(s, k)
    assert claims_for(unfinished, spec) == []


def test_sizes_must_match_exactly_a_bigger_estate_does_not_serve():
    sheet = estates_sheet([3, 5])          # 5 instead of 4
    assert claims_for(sheet, PLAN["estates-3-4"]) == []
    sheet = estates_sheet([3, 4])
    assert claims_for(sheet, PLAN["estates-3-4"]) == [PlanClaim(3, ((0, 0, 3), (0, 3, 4)))]


def test_a_run_of_seven_does_not_count_as_an_estate_for_plans():
    sheet = sheet_from("1 2 3 4 5 6 7 |", "1 2 3 |")
    assert claims_for(sheet, PLAN["estates-3-4"]) == []


def test_all_choices_of_estates_are_offered():
    sheet = estates_sheet([2, 2, 2, 5])
    claims = claims_for(sheet, PLAN["estates-2-2-5"])
    twos = [(0, 0, 2), (0, 2, 2), (0, 4, 2)]
    five = (1, 0, 5)
    assert sheet.completed_estates() == twos + [five]
    assert Counter(frozenset(c.estates) for c in claims) == Counter(
        frozenset({a, b, five}) for a, b in [(twos[0], twos[1]), (twos[0], twos[2]), (twos[1], twos[2])]
    )


# ------------------------------------------------------------ claims and lines
def test_apply_claim_draws_the_plan_line_and_records_the_turn():
    plans = plans_with(PLAN["estates-3-4"])
    sheet = estates_sheet([3, 4, 2])
    claim = PlanClaim(3, ((0, 0, 3), (0, 3, 4)))
    assert claim_is_valid(sheet, plans, claim)
    apply_claim(sheet, plans, claim, turn=5)
    assert sheet.plan_use[0] == [3] * 7 + [0] * 3
    assert sheet.plan_turns == [None, None, 5]
    assert sheet.plan_points == [0, 0, 0]          # points are settled at the end of the turn
    assert sheet.unused_estates() == [(0, 7, 2)]
    # each plan once per player
    assert claims_for(sheet, PLAN["estates-3-4"]) == []
    assert not claim_is_valid(sheet, plans, claim)


def test_plan_line_blocks_fences_inside_the_claimed_estates():
    plans = plans_with(PLAN["estates-3-4"])
    sheet = estates_sheet([3, 4])
    apply_claim(sheet, plans, PlanClaim(3, ((0, 0, 3), (0, 3, 4))), turn=1)
    blocked = [k for k in range(9) if not sheet.fence_allowed(0, k)]
    # slots 0, 1 (inside the 3), 2 (existing fence), 3, 4, 5 (inside the 4), 6 (existing fence)
    assert blocked == [0, 1, 2, 3, 4, 5, 6]
    assert sheet.fence_allowed(0, 7) and sheet.fence_allowed(0, 8)


def test_claims_use_distinct_estates_and_a_used_house_cannot_serve_another_plan():
    plans = (PLAN["estates-3-3-3"], PLAN["estates-3-6"], PLAN["estates-3-4"])
    sheet = estates_sheet([3, 4, 6])
    options = claim_options(sheet, plans)
    assert options == [PlanClaim(2, ((0, 0, 3), (1, 0, 6))), PlanClaim(3, ((0, 0, 3), (0, 3, 4)))]
    apply_claim(sheet, plans, options[0], turn=2)
    # the only 3-estate is under plan 2's line: plan 3 can no longer be completed
    assert claim_options(sheet, plans) == []
    assert not claim_is_valid(sheet, plans, options[1])


def test_estate_under_a_line_stays_used_even_if_the_sheet_changes_around_it():
    plans = plans_with(PLAN["estates-1-1-1-1-1-1"])
    sheet = estates_sheet([1] * 7)
    claim = claims_for(sheet, PLAN["estates-1-1-1-1-1-1"])[0]
    assert claim.estates == tuple((0, h, 1) for h in range(6))
    apply_claim(sheet, plans, claim, turn=1)
    assert sheet.unused_estates() == [(0, 6, 1)]


def test_claim_options_skip_completed_plans_only():
    plans = (PLAN["estates-4-4"], PLAN["estates-4-5"], PLAN["estates-3-4"])
    sheet = estates_sheet([4, 4, 5, 3])
    assert sorted({c.deck for c in claim_options(sheet, plans)}) == [1, 2, 3]
    sheet.plan_turns[1] = 4
    assert sorted({c.deck for c in claim_options(sheet, plans)}) == [1, 3]


# --------------------------------------------------------- first / late values
def completed(deck, turn):
    sheet = Sheet()
    sheet.plan_turns[deck] = turn
    return sheet


def test_first_completers_share_the_high_value_later_ones_get_the_low():
    plans = (PLAN["estates-4-4"], PLAN["estates-1-1-1-6"], PLAN["estates-2-3-5"])
    a, b, c = completed(1, 2), completed(1, 2), Sheet()
    first = [None, None, None]
    settle_plans([a, b, c], plans, first, turn=2)
    assert first == [None, 2, None]
    assert [s.plan_points for s in (a, b, c)] == [[0, 11, 0], [0, 11, 0], [0, 0, 0]]
    c.plan_turns[1] = 3
    a.plan_turns[0] = 3
    settle_plans([a, b, c], plans, first, turn=3)
    assert first == [3, 2, None]
    assert a.plan_points == [6, 11, 0]          # first completer of plan 1 (turn 3): high
    assert b.plan_points == [0, 11, 0]
    assert c.plan_points == [0, 6, 0]           # plan 2 was first completed on turn 2: low


def test_settle_plans_ignores_completions_of_other_turns():
    plans = (PLAN["estates-4-4"], PLAN["estates-4-5"], PLAN["estates-3-4"])
    a = completed(2, 1)
    first = [None, None, None]
    settle_plans([a], plans, first, turn=1)
    assert first == [None, None, 1] and a.plan_points == [0, 0, 7]
    settle_plans([a], plans, first, turn=2)     # nothing new: nothing changes
    assert first == [None, None, 1] and a.plan_points == [0, 0, 7]


@pytest.mark.parametrize("variant, kinds", [
    ({}, ["random", "random", "random"]),
    ({}, ["greedy", "greedy"]),
    ({"advanced": True}, ["random", "greedy"]),
    ({"board": "ice-cream"}, ["random", "random"]),
    ({"solo": True}, ["random"]),
])
def test_skipping_plan_checks_while_the_unused_estates_stay_the_same_changes_nothing(variant, kinds, monkeypatch):
    """The game asks for plan claims only when a sheet's unused estates changed
    (estate plans) or always (other plans): the records equal those of games
    where every check is made (a fresh list every time defeats the skip)."""
    from welcometo_sim.games.welcome_to.game import Seat, play_game
    from welcometo_sim.games.welcome_to.variant import Variant
    from welcometo_sim.strategy import parse_strategy

    seats = [Seat(f"p{i}", kind, parse_strategy(kind)) for i, kind in enumerate(kinds)]
    rules = Variant(**variant)
    skipping = [play_game(rules, seats, seed, record=True).record for seed in range(6)]
    fresh = Sheet.unused_estates
    monkeypatch.setattr(Sheet, "unused_estates", lambda sheet: list(fresh(sheet)))
    checking = [play_game(rules, seats, seed, record=True).record for seed in range(6)]
    assert skipping == checking
    if "greedy" in kinds:  # plans are claimed in these games, so the checks matter
        assert any(action["plans"] for record in skipping for turn in record["turns"]
                   for action in turn["actions"])
