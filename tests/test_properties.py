"""Property tests over random legal games (RULES.md invariants checked after every turn).

Games are driven turn by turn with ``Game.play_turn`` so that the sheets, the
deck and the end condition can be inspected between turns. The checks below
re-derive every invariant from the raw sheet fields and the rules tables of
RULES.md instead of calling the engine's own helpers where possible.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies.random import RandomStrategy
from helpers import (check_track_bounds, BIS_BOXES, EXPECTED_CARDS, REFUSAL_BOXES, STREET_HOUSES,
                     TEMP_BOXES)
from welcometo_sim.games.welcome_to.game import Game, Seat, end_reasons, play_game
from welcometo_sim.games.welcome_to.record_replay import verify
from welcometo_sim.games.welcome_to.scoring import SCORE_FIELDS, rank_key, score_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

# ----------------------------------------------------------------- rules data

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
BASE = Variant()


class ReshufflingRandom(RandomStrategy):
    """The random baseline, but it always asks for the plan reshuffle (exercises
    the reshuffle-all path of the deck)."""

    name = "random-reshuffle"

    def choose_reshuffle(self, view) -> bool:
        return True


def make_seats(kinds: list[str]) -> list[Seat]:
    seats = []
    for i, kind in enumerate(kinds):
        if kind == "random-reshuffle":
            seats.append(Seat(f"p{i}", kind, lambda rng: ReshufflingRandom(rng)))
        else:
            spec = parse_strategy(kind)
            seats.append(Seat(f"p{i}", spec.id, spec))
    return seats


# ----------------------------------------------------------------- invariants
def snapshot(sheet) -> dict:
    return {
        "numbers": [row[:] for row in sheet.numbers],
        "is_bis": [row[:] for row in sheet.is_bis],
        "refusals": sheet.refusals,
        "fences": [row[:] for row in sheet.fences],
    }


def check_street_order(sheet, street: int) -> None:
    numbers = sheet.numbers[street]
    is_bis = sheet.is_bis[street]
    assert len(numbers) == STREET_HOUSES[street]
    built = [(h, v) for h, v in enumerate(numbers) if v is not None]
    for h, v in built:
        assert isinstance(v, int) and 0 <= v <= 17, (street, h, v)
    # Non-bis numbers strictly increase from left to right.
    plain = [v for h, v in built if not is_bis[h]]
    assert all(a < b for a, b in zip(plain, plain[1:])), (street, numbers, is_bis)
    # All written numbers (bis included) never decrease; equal consecutive
    # built houses must be physical neighbours with at least one a bis copy.
    for (h1, v1), (h2, v2) in zip(built, built[1:]):
        assert v1 <= v2, (street, numbers)
        if v1 == v2:
            assert h2 == h1 + 1, (street, numbers)
            assert is_bis[h1] or is_bis[h2], (street, numbers, is_bis)
    # A bis house copies a built neighbour of the same street.
    for h, flag in enumerate(is_bis):
        if flag:
            assert numbers[h] is not None
            neighbours = [numbers[k] for k in (h - 1, h + 1) if 0 <= k < len(numbers)]
            assert numbers[h] in neighbours, (street, h, numbers)


def check_fences(sheet, street: int) -> None:
    fences = sheet.fences[street]
    numbers = sheet.numbers[street]
    # One slot between each pair of neighbouring houses: slots 0..n-2.
    assert len(fences) == STREET_HOUSES[street] - 1
    assert all(isinstance(f, bool) for f in fences)
    for k, fenced in enumerate(fences):
        if fenced and numbers[k] is not None:
            assert numbers[k] != numbers[k + 1], f"fence inside a bis pair: street {street} slot {k}"


def check_counters(sheet) -> None:
    assert 0 <= sheet.temps <= TEMP_BOXES
    assert 0 <= sheet.n_bis <= BIS_BOXES
    assert sheet.n_bis == sum(sum(row) for row in sheet.is_bis)
    assert 0 <= sheet.refusals <= REFUSAL_BOXES
    assert sheet.n_roundabouts == 0
    assert not any(any(row) for row in sheet.roundabouts)
    assert len(sheet.real_estate) == 6
    assert len(sheet.parks) == 3
    check_track_bounds(sheet)


def check_turn_delta(before: dict, sheet) -> None:
    """Each turn a seat either refuses (nothing written) or writes exactly one
    number, plus at most one bis copy; written numbers and fences are permanent."""
    new_plain = new_bis = 0
    for street, row in enumerate(sheet.numbers):
        for h, value in enumerate(row):
            old = before["numbers"][street][h]
            if old is not None:
                assert value == old and sheet.is_bis[street][h] == before["is_bis"][street][h]
            elif value is not None:
                if sheet.is_bis[street][h]:
                    new_bis += 1
                else:
                    new_plain += 1
        for k, fenced in enumerate(before["fences"][street]):
            if fenced:
                assert sheet.fences[street][k]
    if sheet.refusals == before["refusals"] + 1:
        assert (new_plain, new_bis) == (0, 0)
    else:
        assert sheet.refusals == before["refusals"]
        assert new_plain == 1 and new_bis <= 1


def check_deck(game: Game) -> None:
    deck = game.deck
    ids = sorted(c for pile in deck.stacks + deck.discards for c in pile)
    assert ids == list(range(81)), "every construction card exactly once in stacks + discards"
    assert Counter(deck.cards) == EXPECTED_CARDS
    assert len(deck.stacks) == 3 and len(deck.discards) == 3
    # Every stack still shows a number for the next turn, and the stacks stay even.
    assert all(deck.stacks)
    assert len({len(s) for s in deck.stacks}) == 1


def check_plans(game: Game) -> None:
    for d, spec in enumerate(game.plans):
        high, low = spec.points
        turns = [s.plan_turns[d] for s in game.sheets if s.plan_turns[d] is not None]
        if not turns:
            assert game.first_turn[d] is None
            assert all(s.plan_points[d] == 0 for s in game.sheets)
            continue
        assert game.first_turn[d] == min(turns)
        for sheet in game.sheets:
            t = sheet.plan_turns[d]
            if t is None:
                assert sheet.plan_points[d] == 0
            else:
                assert 1 <= t <= game.turn
                assert sheet.plan_points[d] == (high if t == game.first_turn[d] else low)


def check_scores(scores: list[dict]) -> None:
    for score in scores:
        assert set(score) == {*SCORE_FIELDS, "total"}
        assert sum(score[f] for f in SCORE_FIELDS) == score["total"]
        for f in ("bis", "roundabouts", "refusals"):
            assert score[f] <= 0
        for f in ("plans", "parks", "pools", "temps", "estates"):
            assert score[f] >= 0
        assert score["bonus"] == 0


def expected_reasons(sheets) -> list[str]:
    """End conditions of RULES.md §7, from the raw sheet fields."""
    reasons = []
    if any(s.refusals >= REFUSAL_BOXES for s in sheets):
        reasons.append("refusals")
    if any(all(t is not None for t in s.plan_turns) for s in sheets):
        reasons.append("plans")
    if any(all(v is not None for row in s.numbers for v in row) for s in sheets):
        reasons.append("houses")
    return reasons


def play_checked(kinds: list[str], seed: int) -> Game:
    """Play one game turn by turn, checking every invariant after each turn."""
    game = Game(BASE, make_seats(kinds), seed, record=True)
    check_deck(game)
    reasons: list[str] = []
    while not reasons:
        before = [snapshot(s) for s in game.sheets]
        reasons = game.play_turn()
        assert game.turn < 200, "game does not end"
        for snap, sheet in zip(before, game.sheets):
            check_turn_delta(snap, sheet)
            for street in range(3):
                check_street_order(sheet, street)
                check_fences(sheet, street)
            check_counters(sheet)
        check_deck(game)
        check_plans(game)
        check_scores(score_game(game.sheets))
        # The game goes on exactly while no end condition holds.
        assert reasons == end_reasons(game.sheets)
        assert reasons == expected_reasons(game.sheets)
    result = game.result(reasons)
    assert result.turns == game.turn
    assert result.end_reasons == reasons
    check_scores(result.scores)
    keys = [rank_key(s["total"], sheet) for s, sheet in zip(result.scores, result.sheets)]
    for key, rank in zip(keys, result.ranks):
        assert rank == 1 + sum(other > key for other in keys)
    assert min(result.ranks) == 1
    assert verify(result.record) == []
    return game


# ----------------------------------------------------------------------- tests
random_kinds = st.lists(st.sampled_from(["random", "random-reshuffle"]), min_size=1, max_size=5)


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kinds=random_kinds, seed=SEEDS)
def test_random_games_keep_invariants(kinds, seed):
    play_checked(kinds, seed)


@settings(max_examples=8, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kinds=st.lists(st.sampled_from(["greedy", "random"]), min_size=1, max_size=3)
       .filter(lambda ks: "greedy" in ks),
       seed=SEEDS)
def test_greedy_games_keep_invariants(kinds, seed):
    play_checked(kinds, seed)


def test_long_greedy_game_covers_deck_exhaustion():
    """A solo-seat greedy game lasts past turn 27 and so crosses a deck exhaustion."""
    game = play_checked(["greedy"], 3)
    events = [e for t in game.turn_records for e in t["events"]]
    assert game.turn > 27
    assert "deck-reshuffled" in events


@settings(max_examples=25, deadline=None, database=None)
@given(n=st.integers(min_value=1, max_value=5), seed=SEEDS)
def test_games_are_pure_functions_of_the_seed(n, seed):
    kinds = ["random"] * n
    first = play_game(BASE, make_seats(kinds), seed, record=True)
    second = play_game(BASE, make_seats(kinds), seed, record=True)
    assert first.record == second.record
    assert first.scores == second.scores and first.ranks == second.ranks


def test_plan_reshuffle_keeps_all_cards():
    """Find a game where the reshuffle is asked for and check it happens before the next reveal."""
    for seed in range(400):
        game = Game(BASE, make_seats(["random-reshuffle"] * 4), seed, record=True)
        reasons: list[str] = []
        asked_on = None
        while not reasons:
            reasons = game.play_turn()
            record = game.turn_records[-1]
            if any(a["reshuffle"] for a in record["actions"]):
                asked_on = game.turn
                break
        if asked_on is None or reasons:
            continue
        game.play_turn()
        check_deck(game)
        assert "plan-reshuffle" in game.turn_records[-1]["events"]
        # 81 cards redealt into 3 stacks of 27, then one revealed from each.
        assert [len(s) for s in game.deck.stacks] == [26, 26, 26]
        assert [len(p) for p in game.deck.discards] == [1, 1, 1]
        return
    pytest.fail("no game with a plan reshuffle among 400 seeds")
