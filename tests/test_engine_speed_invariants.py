"""The engine's caches against fresh computations from the raw sheet lists.

The sheet keeps its legal placements (per-street, per-number house bitmasks)
up to date on every write, updates its runs and unused estates in place, and
caches fence slots and bis spots per street; plays, effects and offers are
shared through memos. Every check here re-derives the answer from the sheet's
lists (numbers, roundabouts, fences, plan lines) with plain loops written for
the test, and runs after every single change of a sheet during random and
greedy games of several variants, on the game's sheets and on copies.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import sheet_from
from welcometo_sim.games.welcome_to.evaluation import (SHIFTING_EFFECTS, MoveEvaluator, linear_score,
                                                       plan_progress_from, street_facts, street_features,
                                                       street_flexibility, street_gaps)
from welcometo_sim.games.welcome_to.evaluation import fences as fence_changes
from welcometo_sim.games.welcome_to import effects
from welcometo_sim.games.welcome_to.data import (MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, SURVEYOR, TEMP,
                                                 TEMP_MODIFIERS, PlanSpec)
from welcometo_sim.games.welcome_to.effects import Effect, Offer, apply_effect, apply_play, effect_options, legal_plays
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.games.welcome_to.sheet import Sheet, houses_of, masks_from_bounds
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
VARIANTS = {
    "base": Variant(),
    "advanced": Variant(advanced=True),
    "ice-cream": Variant(board="ice-cream"),
    "expert": Variant(expert=True),
}


# ------------------------------------------------------- fresh computations
def fresh_bounds(sheet: Sheet, street: int) -> list[tuple[int, int, int]]:
    """(house, lo, hi) of every empty house: the nearest written numbers on
    each side within its segment (-1 / 18 at a street end or roundabout)."""
    numbers, rounds = sheet.numbers[street], sheet.roundabouts[street]
    bounds = []
    for house, value in enumerate(numbers):
        if value is not None or rounds[house]:
            continue
        lo = next((numbers[k] for k in range(house - 1, -1, -1)
                   if rounds[k] or numbers[k] is not None), None)
        hi = next((numbers[k] for k in range(house + 1, len(numbers))
                   if rounds[k] or numbers[k] is not None), None)
        bounds.append((house, MIN_NUMBER - 1 if lo is None else lo, MAX_NUMBER + 1 if hi is None else hi))
    return bounds


def fresh_placements(sheet: Sheet) -> dict[int, list[tuple[int, int]]]:
    """number -> every (street, house) where it may be written, in sheet order."""
    placements: dict[int, list[tuple[int, int]]] = {n: [] for n in range(MIN_NUMBER, MAX_NUMBER + 1)}
    for street in range(len(sheet.numbers)):
        for house, lo, hi in fresh_bounds(sheet, street):
            for number in range(lo + 1, hi):
                placements[number].append((street, house))
    return placements


def fresh_runs(sheet: Sheet, street: int) -> list[tuple[int, int, bool]]:
    numbers, rounds, fences = sheet.numbers[street], sheet.roundabouts[street], sheet.fences[street]
    runs, first = [], 0
    for house in range(len(numbers)):
        if house == len(numbers) - 1 or fences[house]:
            houses = range(first, house + 1)
            built = all(numbers[h] is not None and not rounds[h] for h in houses)
            runs.append((first, len(houses), built and len(houses) <= MAX_ESTATE_SIZE))
            first = house + 1
    return runs


def fresh_unused(sheet: Sheet) -> list[tuple[int, int, int]]:
    return [
        (street, first, length)
        for street in range(len(sheet.numbers))
        for first, length, done in fresh_runs(sheet, street)
        if done and not any(sheet.plan_use[street][h] for h in range(first, first + length))
    ]


def fresh_fence_options(sheet: Sheet) -> list[tuple[int, int]]:
    options = []
    for street, fences in enumerate(sheet.fences):
        numbers, use = sheet.numbers[street], sheet.plan_use[street]
        for slot, fenced in enumerate(fences):
            bis_pair = numbers[slot] is not None and numbers[slot] == numbers[slot + 1]
            one_line = use[slot] != 0 and use[slot] == use[slot + 1]
            if not (fenced or bis_pair or one_line):
                options.append((street, slot))
    return options


def fresh_bis_options(sheet: Sheet) -> list[tuple[int, int, int]]:
    if sheet.n_bis >= len(sheet.data.bis_track) - 1:
        return []
    options = []
    for street, numbers in enumerate(sheet.numbers):
        fences, rounds = sheet.fences[street], sheet.roundabouts[street]
        for house, value in enumerate(numbers):
            if value is not None or rounds[house]:
                continue
            if house > 0 and not fences[house - 1] and numbers[house - 1] is not None:
                options.append((street, house, numbers[house - 1]))
            if house < len(numbers) - 1 and not fences[house] and numbers[house + 1] is not None:
                options.append((street, house, numbers[house + 1]))
    return options


def fresh_plays(sheet: Sheet, offers: list[Offer]) -> list[tuple]:
    """(offer, street, house, number, temp) of every play, in the documented order."""
    placements = fresh_placements(sheet)
    plays = []
    for index, (number, effect, _n, _e) in enumerate(offers):
        plays += [(index, s, h, number, False) for s, h in placements[number]]
        if effect == TEMP:
            for value in (number + d for d in TEMP_MODIFIERS):
                plays += [(index, s, h, value, True) for s, h in placements.get(value, [])]
    return plays


def check_caches(sheet: Sheet) -> None:
    """Every cached or incrementally kept fact of the sheet equals its fresh value."""
    placements = fresh_placements(sheet)
    for street in range(len(sheet.numbers)):
        bounds = fresh_bounds(sheet, street)
        assert tuple(sheet.fits[street]) == masks_from_bounds(bounds), street
        assert sheet.street_bounds(street) == [b for b in bounds if b[1] + 1 < b[2]], street
        assert sheet.runs(street) == fresh_runs(sheet, street), street
    for number in range(MIN_NUMBER, MAX_NUMBER + 1):
        assert sheet.houses_for(number) == placements[number], number
        assert sheet.accepts(number) == bool(placements[number])
    assert sheet.unused_estates() == fresh_unused(sheet)
    assert sheet.fence_options() == fresh_fence_options(sheet)
    assert sheet.bis_options() == fresh_bis_options(sheet)
    uncached = sheet.copy()
    uncached.street_cache = [None] * len(sheet.numbers)
    for street in range(len(sheet.numbers)):
        assert street_features(sheet, street) == street_features(uncached, street), street
        assert street_gaps(sheet, street) == fresh_gaps(sheet, street), street


def fresh_gaps(sheet: Sheet, street: int) -> list[tuple[int, int, int, int]]:
    """Live empty houses grouped into gaps: consecutive houses with the same bounds."""
    gaps: list[list] = []
    for house, lo, hi in fresh_bounds(sheet, street):
        if lo + 1 >= hi:
            continue
        if gaps and gaps[-1][0] + gaps[-1][1] == house and gaps[-1][2:] == [lo, hi]:
            gaps[-1][1] += 1
        else:
            gaps.append([house, 1, lo, hi])
    return [tuple(gap) for gap in gaps]


# ----------------------------------------------------- checks during games
@contextmanager
def checked_sheets():
    """While active, every change of any sheet checks all of that sheet's caches."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("write", "add_fence", "mark_plan", "build_roundabout"):
            method = getattr(Sheet, name)

            def checked(self, *args, _method=method, **kwargs):
                _method(self, *args, **kwargs)
                check_caches(self)

            patch.setattr(Sheet, name, checked)
        yield


def seats(kinds: list[str]) -> list[Seat]:
    return [Seat(f"p{i}", kind, parse_strategy(kind)) for i, kind in enumerate(kinds)]


@settings(max_examples=12, deadline=None, database=None)
@given(seed=SEEDS, variant=st.sampled_from(sorted(VARIANTS)),
       kinds=st.lists(st.sampled_from(["random", "greedy"]), min_size=2, max_size=3))
def test_caches_equal_fresh_values_after_every_change(seed, variant, kinds):
    game = Game(VARIANTS[variant], seats(kinds), seed)
    with checked_sheets():
        while not game.play_turn():
            for sheet in game.sheets:
                check_caches(sheet)


@settings(max_examples=12, deadline=None, database=None)
@given(seed=SEEDS, variant=st.sampled_from(["base", "advanced", "expert"]))
def test_plays_are_every_legal_placement_in_order(seed, variant):
    """Also with roundabouts (a number's houses may then lie in two gaps) and
    with expert hands (six offers a seat)."""
    check_plays_every_turn(Game(VARIANTS[variant], seats(["random", "random"]), seed))


@settings(max_examples=10, deadline=None, database=None)
@given(seed=SEEDS, lengths=st.lists(st.integers(3, 20), min_size=1, max_size=4).map(tuple),
       data=st.data())
def test_plays_on_sheets_of_other_street_lengths(seed, lengths, data):
    """Sheets of two layouts, played in turn, while the play table keeps one
    layout at a time (it is emptied at every switch): every list of plays is
    still every legal placement, in order."""
    other = Sheet(dataclasses.replace(VARIANTS["base"].data, street_houses=lengths,
                                      pool_houses=tuple(() for _ in lengths),
                                      park_tracks=tuple((0, 1) for _ in lengths)))
    game = Game(VARIANTS["advanced"], seats(["random"]), seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(effects, "_ROW_SHAPES_LIMIT", 1)
        while not game.play_turn():
            offers = game.deck.offers(0)
            for sheet in (other, game.sheets[0]):
                assert [tuple(p[:5]) for p in legal_plays(sheet, offers)] == fresh_plays(sheet, offers)
            number = data.draw(st.integers(MIN_NUMBER, MAX_NUMBER))
            fitting = other.houses_for(number)
            if fitting:
                other.write(*data.draw(st.sampled_from(fitting)), number)
            spots = other.roundabout_options()
            if spots and data.draw(st.integers(0, 3)) == 0:  # segments: a number may fit in two gaps
                other.build_roundabout(*data.draw(st.sampled_from(spots)))


def check_plays_every_turn(game: Game) -> None:
    while True:
        for seat, sheet in enumerate(game.sheets):
            offers = game.deck.offers(seat) if game.turn else []
            plays = legal_plays(sheet, offers)
            assert [tuple(p[:5]) for p in plays] == fresh_plays(sheet, offers)
            assert all(p.truck is None for p in plays)
        if game.play_turn():
            break


@settings(max_examples=15, deadline=None, database=None)
@given(seed=SEEDS, data=st.data())
def test_a_copy_and_its_original_keep_separate_caches(seed, data):
    """Moves tried on copies (as search strategies do) leave the original's caches right."""
    game = Game(VARIANTS["advanced"], seats(["random"]), seed)
    while not game.play_turn():
        original = game.sheets[0]
        before = fresh_placements(original), fresh_unused(original), fresh_fence_options(original)
        offers = [Offer(n, effect, 0, 0) for n, effect in ((data.draw(st.integers(0, 17)), "surveyor"),
                                                           (data.draw(st.integers(0, 17)), "bis"))]
        for play in legal_plays(original, offers)[:6]:
            trial = original.copy()
            apply_play(trial, play)
            check_caches(trial)
            for effect in effect_options(trial, offers[play.offer], play)[:4]:
                deeper = trial.copy()
                apply_effect(deeper, effect)
                check_caches(deeper)
        check_caches(original)
        assert (fresh_placements(original), fresh_unused(original), fresh_fence_options(original)) == before


@settings(max_examples=15, deadline=None, database=None)
@given(seed=SEEDS, variant=st.sampled_from(["base", "advanced"]))
def test_bis_uses_after_a_write_are_those_of_the_sheet_after_it(seed, variant):
    """`bis_uses_after_write` (no copy) lists what `effect_options` lists for a
    bis offer on a copy after the write, in the same order, for every plain
    write of every turn, with the bis track filling up (random seats)."""
    game = Game(VARIANTS[variant], seats(["random"]), seed)
    while not game.play_turn():
        sheet = game.sheets[0]
        offers = [Offer(n, "bis", 0, 0) for n in range(MIN_NUMBER, MAX_NUMBER + 1)]
        for play in legal_plays(sheet, offers):
            if play.temp:
                continue
            after = sheet.copy()
            apply_play(after, play)
            assert effects.bis_uses_after_write(sheet, play.street, play.house, play.number) == \
                effect_options(after, offers[play.offer], play)
        check_caches(sheet)
    sheet.n_bis = sheet.data.max_bis  # a full bis track: no bis at all
    assert all(effects.bis_uses_after_write(sheet, street, house, 5) == []
               for street, row in enumerate(sheet.numbers) for house, number in enumerate(row) if number is None)


# ------------------------------------------------------- hand-built sheets
def test_a_write_narrows_only_its_own_gap():
    sheet = sheet_from("2 . . . . . 9 . . .")
    sheet.write(0, 3, 5)
    assert sheet.houses_for(4) == [(0, 1), (0, 2)] + [(1, h) for h in range(11)] + [(2, h) for h in range(12)]
    assert [h for s, h in sheet.houses_for(6) if s == 0] == [4, 5]
    assert [h for s, h in sheet.houses_for(12) if s == 0] == [7, 8, 9]
    check_caches(sheet)


def test_bis_copies_keep_the_neighbouring_gap():
    sheet = sheet_from("3 . . 8")
    sheet.write(0, 1, 3, bis=True)  # copies the left neighbour: the rest of the gap keeps 3 < n < 8
    assert [h for s, h in sheet.houses_for(4) if s == 0] == [2]
    sheet.write(0, 2, 8, bis=True)  # copies the right neighbour
    assert [s for s, _h in sheet.houses_for(5)] == [1] * 11 + [2] * 12
    check_caches(sheet)


def test_out_of_order_hand_built_numbers_recompute_their_street():
    sheet = sheet_from("9 . . . . 3")  # never legal, but the helpers may build it
    check_caches(sheet)
    sheet.write(0, 8, 1)                # 1 right of 3: the houses between 3 and 1 admit nothing
    check_caches(sheet)
    assert [h for s, h in sheet.houses_for(2) if s == 0] == [9]
    assert not any(sheet.can_write(0, h, n) for h in (1, 2, 3, 4, 6, 7) for n in range(18))


def test_a_roundabout_widens_the_gaps_it_splits():
    sheet = sheet_from("5 . 6 . . . . 7")  # houses 1 and 3..6 admit nothing
    assert not any(sheet.can_write(0, h, n) for h in (1, 3, 4, 5, 6) for n in range(18))
    sheet.build_roundabout(0, 4)           # house 3 now ends a segment, houses 5-6 start one
    check_caches(sheet)
    assert [h for s, h in sheet.houses_for(10) if s == 0] == [3, 8, 9]
    assert [h for s, h in sheet.houses_for(0) if s == 0] == [5, 6]


def test_completing_a_run_adds_it_to_the_unused_estates_in_sheet_order():
    sheet = sheet_from("1 2 | 3 . | 5 6 |", "1 | 2")
    assert sheet.unused_estates() == [(0, 0, 2), (0, 4, 2), (1, 0, 1)]
    sheet.write(0, 3, 4)
    assert sheet.unused_estates() == [(0, 0, 2), (0, 2, 2), (0, 4, 2), (1, 0, 1)]
    check_caches(sheet)


def test_houses_of_lists_the_set_bits_left_to_right():
    assert houses_of(0) == ()
    assert houses_of(0b1011) == (0, 1, 3)
    assert houses_of(1 << 11) == (11,)


# ------------------------------------------------------- move evaluation
PLAN_IDS = ("estates-3-3-3", "estates-1-1-1-6", "estates-2-5")


def _random_offers(rng, deck) -> list[Offer]:
    return [Offer(n, e, i, i) for i, (n, e) in enumerate(deck[i] for i in rng.integers(len(deck), size=3))]


def evaluation_cases(seed: int, variant: str = "base"):
    """(sheet, plans, first_turn, offers) at every turn of a random game."""
    rng = np.random.default_rng(seed)
    game = Game(VARIANTS[variant], seats(["random", "greedy"]), seed, plan_ids=PLAN_IDS)
    while not game.play_turn():
        for sheet in game.sheets:
            yield sheet, game.plans, tuple(game.first_turn), _random_offers(rng, sheet.data.deck)


WEIGHTS = (1.0, 0.5, 1.5, 0.5, 1.0)


@settings(max_examples=6, deadline=None, database=None)
@given(seed=SEEDS)
def test_scores_in_bulk_are_the_linear_scores_of_the_terms(seed):
    """write_scores and effect_scores give exactly (==) linear_score of the Terms
    that after_write and the after_* methods return, move by move."""
    for sheet, plans, first, offers in evaluation_cases(seed):
        evaluator = MoveEvaluator(sheet, plans, first, 0.5)
        plays = legal_plays(sheet, offers)
        expected = [linear_score(WEIGHTS, evaluator.after_write(p.street, p.house, p.number, False, p.temp))
                    for p in plays]
        assert evaluator.write_scores(plays, WEIGHTS) == expected
        for play in plays[:8]:
            if play.temp:
                continue
            after = sheet.copy()
            apply_play(after, play)
            options = effect_options(after, offers[play.offer], play)
            after_write = evaluator.after_write_evaluator(play.street, play.house, play.number)
            assert after_write.effect_scores(options, WEIGHTS) == [
                linear_score(WEIGHTS, after_write.after_effect(effect)) for effect in options]


@settings(max_examples=6, deadline=None, database=None)
@given(seed=SEEDS, variant=st.sampled_from(["base", "advanced"]))
def test_the_evaluator_after_a_write_agrees_with_a_fresh_one_on_a_copy(seed, variant):
    """after_write_evaluator (no copy, sums carried over) starts exactly where
    after_write ends, and predicts every effect's terms as a new evaluator of
    the copied sheet does (up to float rounding); a plain write leaves every
    effect's options but the bis unchanged, which greedy relies on."""
    for sheet, plans, first, offers in evaluation_cases(seed, variant):
        evaluator = MoveEvaluator(sheet, plans, first, 0.5)
        for play in legal_plays(sheet, offers)[:10]:
            if play.temp:
                continue
            after = sheet.copy()
            apply_play(after, play)
            offer = offers[play.offer]
            options = effect_options(after, offer, play)
            if offer.effect != "bis":
                assert effect_options(sheet, offer, play) == options
            derived = evaluator.after_write_evaluator(play.street, play.house, play.number)
            fresh = MoveEvaluator(after, plans, first, 0.5)
            assert derived.base() == evaluator.after_write(play.street, play.house, play.number)
            assert derived.base() == pytest.approx(fresh.base(), abs=1e-9)
            for effect in options:
                assert derived.after_effect(effect) == pytest.approx(fresh.after_effect(effect), abs=1e-9)


@settings(max_examples=6, deadline=None, database=None)
@given(seed=SEEDS)
def test_shifting_effect_scores_after_a_write_equal_those_of_the_evaluator_after_it(seed):
    """shifting_effect_scores_after_write (real-estate, park and pool uses
    scored without deriving an evaluator) gives exactly (==) the effect_scores
    of after_write_evaluator, for the options of each of these effects after
    every write."""
    for sheet, plans, first, offers in evaluation_cases(seed):
        evaluator = MoveEvaluator(sheet, plans, first, 0.5)
        for play in legal_plays(sheet, offers):
            if play.temp:
                continue
            after = sheet.copy()
            apply_play(after, play)
            derived = evaluator.after_write_evaluator(play.street, play.house, play.number)
            for kind in SHIFTING_EFFECTS:
                options = effect_options(after, Offer(play.number, kind, play.offer, play.offer), play)
                assert evaluator.shifting_effect_scores_after_write(
                    play.street, play.house, play.number, options, WEIGHTS) == derived.effect_scores(options, WEIGHTS)


@pytest.mark.parametrize("seed", [3, 7])
def test_plan_progress_remembered_across_evaluators_equals_a_fresh_computation(seed):
    """Evaluators share plan progress by unused-estate counts across turns and
    sheets (for the same plans, completed plans and first turns): at every
    turn of a game where the players complete plans on different turns, it
    equals plan_progress_from on the sheet's own counts, with one estate of
    any size more or less."""
    game = Game(VARIANTS["base"], seats(["greedy", "greedy:shortlist=1"]), seed, plan_ids=PLAN_IDS)
    completed = set()
    while not game.play_turn():
        for sheet in game.sheets:
            evaluator = MoveEvaluator(sheet, game.plans, tuple(game.first_turn), 0.5)
            unused = [sum(counts) for counts in zip(*(street_features(sheet, s).unused for s in range(3)))]
            assert evaluator.progress == plan_progress_from(unused, sheet.plan_turns, game.plans, game.first_turn)
            for size in range(MAX_ESTATE_SIZE):
                for change in (1, -1):
                    changed = unused[:]
                    changed[size] += change
                    assert evaluator._progress_after({size: change}) == plan_progress_from(
                        changed, sheet.plan_turns, game.plans, game.first_turn)
            completed.add(tuple(sheet.plan_turns))
    assert len(completed) >= 3  # plans completed by one player, then the other


def every_fence(sheet: Sheet) -> list[Effect]:
    """A surveyor use for every slot of the sheet without a fence."""
    return [Effect(SURVEYOR, street, slot) for street, fences in enumerate(sheet.fences)
            for slot, fenced in enumerate(fences) if not fenced]


def assert_fence_scores_are_fresh(evaluator: MoveEvaluator, sheet_after: Sheet, fences: list[Effect]) -> None:
    """`evaluator` (built on a sheet, or derived from one after a write that
    gives `sheet_after`) scores every fence exactly (==) as the linear score of
    its `after_fence` (worked out from the runs, without the kept changes), and
    keeps for every street the changes that a new evaluator on a copy of
    `sheet_after`, with no street facts and an empty memo, works out."""
    assert evaluator.effect_scores(fences, WEIGHTS) == [
        linear_score(WEIGHTS, evaluator.after_fence(effect.street, effect.position)) for effect in fences]
    kept = [evaluator._fence_changes(street)[:] for street in range(len(sheet_after.numbers))]
    copy = sheet_after.copy()
    copy.street_cache = [None] * len(copy.street_cache)
    memo = dict(fence_changes.RUN_FENCE_CHANGES)
    fence_changes.RUN_FENCE_CHANGES.clear()
    try:
        fresh = MoveEvaluator(copy, evaluator.plans, evaluator.first_turn, 0.5)
        assert kept == [fresh._fence_changes(street) for street in range(len(copy.numbers))]
    finally:
        fence_changes.RUN_FENCE_CHANGES.update(memo)


def test_fence_scores_on_a_known_sheet_with_estates_plan_lines_and_a_roundabout():
    sheet = sheet_from("1 2 3 | 4 . 6 . | 8 9 10", "0~1 1~1 | 2 . 4 5 6 7", "3 4 . . . 8 . 9 10 11 12")
    sheet.build_roundabout(1, 3)
    plans = (PlanSpec("ones", 1, "estates", (8, 4), (1, 1, 1)),
             PlanSpec("twos-and-three", 2, "estates", (9, 5), (2, 2, 3)))
    evaluator = MoveEvaluator(sheet, plans, (None, None, None), 0.5)
    assert_fence_scores_are_fresh(evaluator, sheet, every_fence(sheet))
    for street, house, number in ((0, 4, 5), (1, 1, 1), (2, 2, 5), (2, 6, 9)):
        if sheet.numbers[street][house] is not None or sheet.roundabouts[street][house]:
            continue
        after = sheet.copy()
        after.write(street, house, number)
        derived = evaluator.after_write_evaluator(street, house, number)
        assert_fence_scores_are_fresh(derived, after, every_fence(sheet))


@settings(max_examples=6, deadline=None, database=None)
@given(seed=SEEDS, variant=st.sampled_from(["base", "advanced"]))
def test_fence_scores_from_kept_changes_equal_fresh_ones_all_game_long(seed, variant):
    """The changes of fences are kept with the street facts (so later turns
    reuse them for the streets that did not change), shared by the evaluators
    after different writes, and remembered by run pattern across sheets: on
    the sheets of a whole game, before and after several writes each turn,
    they give the same scores and changes as a fresh computation."""
    for sheet, plans, first, offers in evaluation_cases(seed, variant):
        evaluator = MoveEvaluator(sheet, plans, first, 0.5)
        fences = every_fence(sheet)
        assert_fence_scores_are_fresh(evaluator, sheet, fences)
        for play in [play for play in legal_plays(sheet, offers) if not play.temp][:4]:
            after = sheet.copy()
            apply_play(after, play)
            derived = evaluator.after_write_evaluator(play.street, play.house, play.number)
            assert_fence_scores_are_fresh(derived, after, fences)


@settings(max_examples=4, deadline=None, database=None)
@given(seed=SEEDS, variant=st.sampled_from(["base", "advanced"]))
def test_street_facts_keep_the_street_gaps_their_flexibility_comes_from(seed, variant):
    """The gaps a street's facts keep (and move evaluation reuses) are the
    street's gaps as they are, and its flexibility is street_flexibility."""
    for sheet, _plans, _first, _offers in evaluation_cases(seed, variant):
        for street in range(len(sheet.numbers)):
            facts = street_facts(sheet, street)
            assert facts.street_gaps == street_gaps(sheet, street)
            assert facts.features.flexibility == street_flexibility(sheet, street)


def test_street_facts_are_shared_by_copies_until_a_street_changes():
    sheet = sheet_from("1 2 | 5", "3")
    facts = [street_facts(sheet, s) for s in range(3)]
    copy = sheet.copy()
    copy.write(1, 4, 9)
    assert street_facts(copy, 0) is facts[0] and street_facts(copy, 2) is facts[2]
    assert street_features(copy, 1) == street_features(sheet_from("1 2 | 5", "3 . . . 9"), 1)
    assert street_features(copy, 1) != facts[1].features
    assert street_facts(sheet, 1) is facts[1]  # the original keeps its own


def test_a_deck_cache_never_serves_the_weights_of_a_deck_freed_at_the_same_address():
    """The evaluation caches its number weights per deck object: an entry left
    by a deck that was freed, filed under the id a new deck then gets, must not
    be served for the new deck (it moved a fixed run's scores by the games run
    before it in the same process)."""
    from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
    from welcometo_sim.games.welcome_to.evaluation import streets

    without_eights = tuple(card for card in DEFAULT_DATA.deck if card[0] != 8)
    custom = Sheet(dataclasses.replace(DEFAULT_DATA, deck=without_eights))
    base_weights = streets._weights(Sheet(DEFAULT_DATA))
    streets._WEIGHT_CACHE[id(without_eights)] = streets._WEIGHT_CACHE[id(DEFAULT_DATA.deck)]
    weights = streets._weights(custom)
    assert weights == streets.number_weights(without_eights) != base_weights
