"""The native sheet (welcometo_sim/native/sheet.pyx) against the Python rules
(games/welcome_to/sheet.py, effects.py, plans.py, scoring.py), the reference.

Random legal sequences, played as the game plays a turn (a roundabout, a
play or a refusal, the offer's effect, a plan claim), on the published,
advanced and solo data, on changed tracks and on other street layouts: after
every step both sheets list the same options in the same order (plays,
effect uses, bis spots, fence slots, roundabout spots), hold the same record,
estates and score, and a native sheet read from the Python one, or a Python
sheet made from the native one, is the same again.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from welcometo_sim.games.welcome_to.boards import BOARD_RULES
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA, SURVEYOR, TEMP, GameData
from welcometo_sim.games.welcome_to.effects import Offer, apply_effect, apply_play, effect_options, legal_plays
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.games.welcome_to.plans import PLAN_KINDS, apply_claim, claim_options
from welcometo_sim.games.welcome_to.scoring import score_sheet
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

from native_support import native_or_skip

native = native_or_skip("sheet")

from welcometo_sim.native import moves  # noqa: E402  (after the skip: it needs the module)

LONG_TRACKS = Variant.with_overrides({
    "tracks": {"pool_track": [0, 5, 7, 40, 41, 42, 43, 44, 45, 46],
               "real_estate_tracks": [[1, 2], [2, 9], [3, 4, 5, 6, 7, 8, 9], [4], [5, 6], [6, 20]],
               "park_tracks": [[0, 1], [0, 5, 6, 7, 8, 9, 10, 11, 12, 13], [0, 2, 4]],
               "bis_track": [0, 2, 5], "roundabout_track": [0, 1, 2, 9]}}, advanced=True)

SEEDS = st.integers(0, 2**64 - 1)
"""A seed of the random player: hypothesis varies the whole sequence through it."""

VARIANTS = {
    "base": Variant(),
    "advanced": Variant(advanced=True),
    "solo": Variant(solo=True),
    "tracks": LONG_TRACKS,
}
"""The published rules, advanced (roundabouts, advanced plans), solo, and
shorter and longer tracks than the published ones."""


def layout_data(lengths: tuple[int, ...]) -> GameData:
    """The published data on streets of these lengths (no pools, one park a street)."""
    return dataclasses.replace(DEFAULT_DATA, street_houses=lengths, pool_houses=tuple(() for _ in lengths),
                               park_tracks=tuple((0, 3) for _ in lengths))


# ------------------------------------------------------------------ checks
def assert_same_state(sheet: Sheet, mirror) -> None:
    """Everything the two sheets answer without a move in hand is equal."""
    record = sheet.to_record()
    assert mirror.to_record() == record
    assert mirror.bis_options() == sheet.bis_options()
    assert mirror.fence_options() == sheet.fence_options()
    assert mirror.roundabout_options() == sheet.roundabout_options()
    assert mirror.completed_estates() == sheet.completed_estates()
    assert mirror.unused_estates() == sheet.unused_estates()
    assert mirror.estate_counts() == sheet.estate_counts()
    assert (mirror.is_full(), mirror.n_built(), mirror.n_pools) == (sheet.is_full(), sheet.n_built(), sheet.n_pools)
    assert (mirror.plan_turns, mirror.plan_points) == (sheet.plan_turns, sheet.plan_points)
    for temps, bonus in ((0, 0), (7, 3)):
        assert mirror.score(temps, bonus) == score_sheet(sheet, temps, bonus)
    assert native.NativeSheet.from_sheet(sheet).to_record() == record
    back = mirror.to_sheet()
    assert back.to_record() == record
    assert (back.fits, back.fence_options(), back.bis_options(), back.unused_estates()) == (
        sheet.fits, sheet.fence_options(), sheet.bis_options(), sheet.unused_estates())
    for name in STATE_SLOTS:
        assert getattr(back, name) == getattr(sheet, name), name


STATE_SLOTS = ("numbers", "is_bis", "roundabouts", "fences", "plan_use", "parks", "pools", "real_estate", "temps",
               "n_bis", "refusals", "n_roundabouts", "plan_turns", "plan_points", "n_houses", "_filled", "fits")
"""The slots of a `Sheet` that hold its state (the others are caches worked out on first use)."""


def random_offers(rng: random.Random, data: GameData) -> list[Offer]:
    """One to six offers of any number and effect of the deck (the standard
    game's three pairs, the solo and expert combinations, and more)."""
    cards = [rng.choice(data.deck) for _ in range(rng.randint(1, 6))]
    effects = [rng.choice(data.deck)[1] for _ in cards]
    return [Offer(number, effect, index, index) for index, ((number, _), effect) in enumerate(zip(cards, effects))]


class Pair:
    """A Python sheet and its native mirror, moved together by a random
    player that follows a game turn's order, checking at every step."""

    def __init__(self, variant: Variant, data: GameData, rng: random.Random) -> None:
        self.sheet = Sheet(data)
        self.mirror = native.NativeSheet(data)
        self.variant, self.data, self.rng = variant, data, rng
        decks = data.plans_of_deck if data.street_houses != DEFAULT_DATA.street_houses else variant.plan_deck
        self.plans = tuple(rng.choice(decks(deck)) for deck in (1, 2, 3))  # other layouts: estate plans only
        self.steps = 0

    def check_play_lookup(self, offers: list[Offer], plays: list) -> None:
        """The plays counted and picked by index without listing them are the listed ones."""
        listed = self.mirror.legal_plays(offers)
        assert self.mirror.count_plays(offers) == (len(plays), sum(not play.temp for play in plays))
        for index in {0, len(listed) - 1, self.rng.randrange(len(listed))} if listed else ():
            assert self.mirror.play_at(offers, index) is listed[index]
        with pytest.raises(IndexError):
            self.mirror.play_at(offers, len(listed))

    def turn(self, turn: int) -> None:
        if self.variant.advanced and self.sheet.n_roundabouts < self.data.max_roundabouts:
            self.roundabout()
        offers = random_offers(self.rng, self.data)
        plays = legal_plays(self.sheet, offers)
        assert moves.legal_plays(self.mirror, offers) == plays
        self.check_play_lookup(offers, plays)
        if not plays:
            self.sheet.refusals = min(self.sheet.refusals + 1, self.data.max_refusals)
            self.mirror.refuse()
        else:
            self.play(offers, plays)
        self.claim(turn)
        self.check()

    def roundabout(self) -> None:
        spots = self.sheet.roundabout_options()
        assert self.mirror.roundabout_options() == spots
        if spots and self.rng.random() < 0.15:
            spot = self.rng.choice(spots)
            self.sheet.build_roundabout(*spot)
            self.mirror.build_roundabout(*spot)
            self.check()

    def play(self, offers: list[Offer], plays: list) -> None:
        """A random legal play, also taken by its index on a copy of the mirror."""
        chosen = self.rng.randrange(len(plays))
        play = plays[chosen]
        by_index = self.mirror.copy()
        assert by_index.apply_play_at(offers, chosen) == len(plays)
        apply_play(self.sheet, play)
        self.mirror.apply_play(play)
        self.check()
        assert by_index.to_record() == self.mirror.to_record()
        offer = offers[play.offer]
        uses = effect_options(self.sheet, offer, play)
        assert moves.effect_options(self.mirror, offer, play) == uses
        if uses and self.rng.random() < 0.9:
            use = self.rng.choice(uses)
            apply_effect(self.sheet, use)
            self.mirror.apply_effect(use)
            self.check()

    def claim(self, turn: int) -> None:
        """Take a plan claim when there is one (as often as a player would)."""
        claims = claim_options(self.sheet, self.plans)
        if not claims:
            return
        claim = self.rng.choice(claims)
        spec = self.plans[claim.deck - 1]
        for street, house in PLAN_KINDS[spec.kind].houses(spec, self.sheet, claim.estates):
            self.mirror.mark_plan(street, house, claim.deck)
        apply_claim(self.sheet, self.plans, claim, turn)
        self.mirror.complete_plan(claim.deck, turn)
        points = spec.points[self.rng.randint(0, 1)]
        self.sheet.plan_points[claim.deck - 1] = points
        self.mirror.set_plan_points(claim.deck, points)

    def check(self) -> None:
        assert_same_state(self.sheet, self.mirror)
        self.steps += 1


def play_out(variant: Variant, data: GameData, rng: random.Random, turns: int = 40) -> Pair:
    pair = Pair(variant, data, rng)
    for turn in range(1, turns + 1):
        pair.turn(turn)
        if pair.sheet.is_full():  # refusals past the game's end only stay at the track's end
            break
    return pair


# ------------------------------------------------------------------- tests
@settings(max_examples=80, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=SEEDS)
def test_random_games_give_the_same_options_records_and_scores(variant, seed):
    pair = play_out(VARIANTS[variant], VARIANTS[variant].data, random.Random(seed))
    assert pair.steps > 0


@settings(max_examples=35, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(lengths=st.lists(st.integers(1, 64), min_size=1, max_size=8).map(tuple),
       seed=SEEDS)
def test_other_street_layouts_give_the_same_options_records_and_scores(lengths, seed):
    """Streets of 1 to 64 houses (every bit of the masks), one to eight streets,
    with roundabouts (a number may then fit in two gaps of a street)."""
    play_out(Variant(advanced=True), layout_data(lengths), random.Random(seed), turns=30)


@pytest.mark.parametrize("variant, kinds", [
    (Variant(), ["greedy", "greedy"]),
    (Variant(advanced=True), ["greedy", "greedy", "random"]),
    (Variant(expert=True), ["greedy", "greedy"]),
    (Variant(solo=True), ["greedy"]),
], ids=["base", "advanced", "expert", "solo"])
def test_the_sheets_of_real_games_give_the_same_options(variant, kinds):
    """Sheets and offers as games make them (plan claims, expert hands, the
    solo card): after every turn each seat's sheet read natively lists the
    same plays, and the same effect uses after each of them."""
    game = Game(variant, [Seat(f"p{i}", kind, parse_strategy(kind)) for i, kind in enumerate(kinds)], 27)
    turns = 0
    while not game.play_turn():
        turns += 1
        for seat, sheet in enumerate(game.sheets):
            mirror = native.NativeSheet.from_sheet(sheet)
            offers = game.deck.offers(seat)
            plays = legal_plays(sheet, offers)
            assert moves.legal_plays(mirror, offers) == plays
            assert_same_state(sheet, mirror)
            for play in plays[::7]:
                after, after_mirror = sheet.copy(), mirror.copy()
                apply_play(after, play)
                after_mirror.apply_play(play)
                assert moves.effect_options(after_mirror, offers[play.offer], play) == effect_options(
                    after, offers[play.offer], play)
    assert turns > 10
    assert any(sheet.plans_completed() for sheet in game.sheets)  # plan lines on the sheets


def test_a_long_game_fills_the_sheet_the_same_way():
    """Enough turns that streets fill up, bis pairs form and estates complete."""
    rng = random.Random(27)
    pair = play_out(VARIANTS["advanced"], DEFAULT_DATA, rng, turns=200)
    assert pair.sheet.n_built() > 20
    assert pair.sheet.completed_estates()


def test_a_copy_is_independent_of_its_original():
    rng = random.Random(5)
    pair = play_out(VARIANTS["base"], DEFAULT_DATA, rng, turns=10)
    before = pair.mirror.to_record()
    copy = pair.mirror.copy()
    assert copy.to_record() == before
    spot = copy.roundabout_options()[0]
    copy.build_roundabout(*spot)
    copy.apply_effect(("real_estate", None, 3, None))
    assert pair.mirror.to_record() == before
    assert copy.to_record() != before


def test_temp_offers_list_the_plain_number_then_every_changed_one():
    """The order a draw by index relies on: 8 plain, then 6, 7, 8, 9, 10 with the agency."""
    mirror = native.NativeSheet(layout_data((1,)))
    plays = mirror.legal_plays([Offer(8, TEMP, 0, 0)])
    assert [(number, temp) for _offer, _street, _house, number, temp in plays] == [
        (8, False), (6, True), (7, True), (8, True), (9, True), (10, True)]


@pytest.mark.parametrize("board", ["ice-cream", "christmas", "easter"])
def test_a_thematic_board_is_refused_by_name(board):
    data = Variant(board=board).data
    sheet = Sheet(data, BOARD_RULES[board].new_state(data))
    with pytest.raises(ValueError, match=f"base board only, not the {board} board"):
        native.NativeSheet.from_sheet(sheet)


def test_an_index_past_the_legal_plays_applies_nothing():
    mirror = native.NativeSheet()
    offers = [Offer(3, TEMP, 0, 0)]
    count = len(mirror.legal_plays(offers))
    assert mirror.apply_play_at(offers, count) == count == 33 * 6
    assert mirror.to_record() == Sheet().to_record()


def test_a_layout_beyond_the_native_limits_is_refused():
    with pytest.raises(ValueError, match="1 to 8 streets of 1 to 64 houses"):
        native.NativeSheet(layout_data((65,)))
    with pytest.raises(ValueError, match="1 to 8 streets"):
        native.NativeSheet(layout_data((3,) * 9))


def test_bad_moves_name_the_house_instead_of_writing_out_of_bounds():
    mirror = native.NativeSheet()
    with pytest.raises(ValueError, match="no house 10 on street 0"):
        mirror.apply_play((0, 0, 10, 5, False))
    with pytest.raises(ValueError, match="no fence slot 9 on street 0"):
        mirror.apply_effect((SURVEYOR, 0, 9, None))
    with pytest.raises(ValueError, match="offer 0: house numbers are 0 to 17, not 18"):
        mirror.legal_plays([Offer(18, TEMP, 0, 0)])
