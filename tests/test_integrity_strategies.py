"""A strategy cannot cheat through the strategy API: every illegal answer is a
StrategyError, and every change a strategy makes to what it was handed (its
view, its sheet, the option lists, the data tables) leaves the game, its
record and its scores exactly as an honest strategy's game."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from strategies.greedy import GreedyStrategy
from strategies.random import RandomStrategy
from welcometo_sim.games.welcome_to.boards import SOLD
from welcometo_sim.games.welcome_to.effects import Effect, Offer, Play
from welcometo_sim.games.welcome_to.game import Game, GameView, Seat, StrategyError, play_game
from welcometo_sim.games.welcome_to.plans import PlanClaim
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant

from helpers import estates_sheet, scripted_seat

PLANS = ("estates-1-1-1-1-1-1", "estates-1-1-1-6", "estates-3-4")


class AlwaysEqual:
    """Equal to everything; counts how often anyone asked."""

    calls = 0

    def __eq__(self, other):
        AlwaysEqual.calls += 1
        return True

    def __ne__(self, other):
        AlwaysEqual.calls += 1
        return False

    __hash__ = object.__hash__


class EqualPlay(Play):
    def __eq__(self, other):
        AlwaysEqual.calls += 1
        return True

    __hash__ = Play.__hash__


class EqualEffect(Effect):
    def __eq__(self, other):
        AlwaysEqual.calls += 1
        return True

    __hash__ = Effect.__hash__


class EqualClaim(PlanClaim):
    def __eq__(self, other):
        AlwaysEqual.calls += 1
        return True

    __hash__ = PlanClaim.__hash__


@pytest.fixture(autouse=True)
def _count_equalities():
    AlwaysEqual.calls = 0
    yield
    assert AlwaysEqual.calls == 0, "the game called a strategy's __eq__"


def seat(cls, **kwargs) -> Seat:
    """Every strategy of these tests plays under the same name and id, so the
    records of an honest and a cheating game can be compared whole."""
    return Seat("player", "player", lambda rng: cls(rng, **kwargs))


def an_illegal_play(view, plays) -> Play:
    """A play of the right type and plain fields that the game did not offer."""
    for street, house, number in itertools.product(range(3), range(12), range(18)):
        play = Play(0, street, house, number)
        if play not in plays:
            return play
    raise AssertionError("every play is legal")


# ------------------------------------------------------------ illegal answers
class Cheater(RandomStrategy):
    """Random, except for the hook `hook`, which answers `answer(view, options)`."""

    name = "cheater"

    def __init__(self, rng, hook="choose_play", answer=None):
        super().__init__(rng)
        self.hook, self.answer = hook, answer

    def choose_play(self, view, plays):
        if self.hook == "choose_play":
            return self.answer(view, plays)
        return super().choose_play(view, plays)

    def choose_effect(self, view, options):
        if self.hook == "choose_effect":
            return self.answer(view, options)
        return super().choose_effect(view, options)

    def choose_roundabout(self, view, houses):
        if self.hook == "choose_roundabout":
            return self.answer(view, houses)
        return super().choose_roundabout(view, houses)

    def choose_pass(self, view, cards):
        if self.hook == "choose_pass":
            return self.answer(view, cards)
        return super().choose_pass(view, cards)


def appended_play(view, plays):
    play = an_illegal_play(view, plays)
    plays.append(play)
    return play


def replaced_plays(view, plays):
    play = an_illegal_play(view, plays)
    plays[:] = [play]
    return play


def appended_effect(view, options):
    effect = Effect("bis", 0, 0, 17)
    options.append(effect)
    return effect


CHEATS = {
    "appended play": ("choose_play", appended_play),
    "options list replaced": ("choose_play", replaced_plays),
    "always-equal object": ("choose_play", lambda view, plays: AlwaysEqual()),
    "Play subclass with __eq__": ("choose_play", lambda view, plays: EqualPlay(0, 0, 0, 17, True)),
    "Play holding an always-equal field": ("choose_play", lambda view, plays: Play(0, 0, 0, AlwaysEqual())),
    "plain tuple of a legal play": ("choose_play", lambda view, plays: tuple(plays[0])),
    "None when a play is due": ("choose_play", lambda view, plays: None),
    "appended effect": ("choose_effect", appended_effect),
    "always-equal effect": ("choose_effect", lambda view, options: AlwaysEqual()),
    "Effect subclass with __eq__": ("choose_effect", lambda view, options: EqualEffect("bis", 0, 0, 17)),
}


@pytest.mark.parametrize("name", list(CHEATS))
def test_illegal_answers_are_strategy_errors(name):
    hook, answer = CHEATS[name]
    with pytest.raises(StrategyError, match=f"answered an illegal .* to {hook}"):
        for seed in range(20):
            play_game(Variant(), [seat(Cheater, hook=hook, answer=answer), seat(RandomStrategy)], seed)


def test_an_illegal_play_changes_nothing_before_the_error():
    game = Game(Variant(), [seat(Cheater, answer=appended_play), seat(RandomStrategy)], 3, PLANS)
    with pytest.raises(StrategyError):
        game.play_turn()
    assert game.sheets[0].n_built() == 0 and game.sheets[0].refusals == 0


@pytest.mark.parametrize("answer", [[0, 0], (0, 0, 0), AlwaysEqual(), ("0", "0")],
                         ids=["list", "three values", "always equal", "strings"])
def test_illegal_roundabouts_are_strategy_errors(answer):
    cheater = seat(Cheater, hook="choose_roundabout", answer=lambda view, houses: answer)
    with pytest.raises(StrategyError, match="to choose_roundabout"):
        play_game(Variant(advanced=True), [cheater, seat(RandomStrategy)], 1)


@pytest.mark.parametrize("answer", [1.0, True, "1", None, 3, -1, AlwaysEqual()])
def test_illegal_passed_cards_are_strategy_errors(answer):
    cheater = seat(Cheater, hook="choose_pass", answer=lambda view, cards: answer)
    with pytest.raises(StrategyError, match="to choose_pass"):
        for seed in range(10):  # a refusal comes in every game of random players
            play_game(Variant(expert=True), [cheater, seat(RandomStrategy)], seed)


def test_numpy_integers_name_their_option_and_the_game_plays_its_own():
    def numpy_fields(view, plays):
        chosen = plays[-1] or plays[0]
        return Play(*(np.int64(v) for v in chosen[:4]), np.bool_(chosen.temp), chosen.truck)

    def numpy_card(view, cards):
        return np.int64(cards[-1])

    for hook, answer in (("choose_play", numpy_fields), ("choose_pass", numpy_card)):
        variant = Variant(expert=True)
        result = play_game(variant, [seat(Cheater, hook=hook, answer=answer), seat(RandomStrategy)], 4,
                           record=True)
        for turn in result.record["turns"]:
            written = turn["actions"][0]["written"]
            assert written is None or all(type(v) is int for v in written.values())
        json.dumps(result.record)


def test_unprintable_answers_and_errors_are_still_one_strategy_error():
    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no repr")

    class BadMessage(Exception):
        def __str__(self):
            raise RuntimeError("no str")

    def crash(view, plays):
        raise BadMessage()

    with pytest.raises(StrategyError, match=r"illegal <.*Unprintable object at .*> to choose_play"):
        play_game(Variant(), [seat(Cheater, answer=lambda view, plays: Unprintable())], 1)
    with pytest.raises(StrategyError, match="raised BadMessage: .* in choose_play"):
        play_game(Variant(), [seat(Cheater, answer=crash)], 1)


# ------------------------------------------------------------ choose_plans
def claims_game(plans_answer, reshuffle=False):
    """A game whose seat 0 can complete estates-3-6 and estates-3-4 in turn 1."""
    seats = [scripted_seat("a", plans=plans_answer, reshuffle=reshuffle), scripted_seat("b")]
    game = Game(Variant(), seats, 0, ("estates-3-3-3", "estates-3-6", "estates-3-4"), record=True)
    game.sheets[0] = estates_sheet([3, 4, 6])
    return game


def raising_generator(view, claimable):
    yield claimable[0]
    raise ValueError("halfway")


class IterRaises:
    def __iter__(self):
        raise OSError("cannot iterate")


PLAN_ANSWERS = {
    "a number": lambda view, claimable: 5,
    "a float": lambda view, claimable: 1.0,
    "a generator that raises": raising_generator,
    "an iterable that raises": lambda view, claimable: IterRaises(),
    "endless claims": lambda view, claimable: itertools.repeat(claimable[0]),
    "always-equal claims": lambda view, claimable: [AlwaysEqual()],
    "a PlanClaim subclass with __eq__": lambda view, claimable: [EqualClaim(1, ((9, 9, 3),))],
    "an appended claim": lambda view, claimable: claimable + [PlanClaim(1, ((0, 0, 3), (0, 0, 3), (0, 0, 3)))],
    "the same claim twice": lambda view, claimable: [claimable[0], claimable[0]],
    "a claim of a plain tuple": lambda view, claimable: [tuple(claimable[0])],
    "estates with an always-equal entry": lambda view, claimable: [PlanClaim(2, (AlwaysEqual(), (0, 3, 4)))],
}


@pytest.mark.parametrize("name", list(PLAN_ANSWERS))
def test_illegal_plan_answers_are_strategy_errors(name):
    game = claims_game(PLAN_ANSWERS[name])
    with pytest.raises(StrategyError, match="to choose_plans"):
        game.play_turn()


@pytest.mark.parametrize("answer", [1, "yes", None, np.int64(1), AlwaysEqual()])
def test_a_reshuffle_answer_must_be_a_bool(answer):
    game = claims_game(None, reshuffle=lambda view: answer)
    with pytest.raises(StrategyError, match="to choose_reshuffle"):
        game.play_turn()


def test_a_numpy_bool_reshuffle_answer_is_accepted():
    game = claims_game(None, reshuffle=lambda view: np.bool_(True))
    game.play_turn()
    assert game.reshuffle_pending


# ------------------------------------------------- changes that have no effect
VIEW_FIELDS = ("seat", "turn", "offers", "next_effects", "plans", "plan_first_turn", "public", "cards_left",
               "variant", "n_players", "hand")


def cheat_on_view(view):
    """Everything a strategy could change on what it was handed. Returns the
    view's fields as they were, for the strategy's own later questions."""
    saved = {name: getattr(view, name) for name in VIEW_FIELDS}
    saved["offers"] = list(view.offers)
    sheet = view.sheet
    sheet.plan_points[:] = [500, 500, 500]
    sheet.plan_turns[0] = 1
    sheet.temps, sheet.refusals, sheet.n_bis = 11, 0, 0
    sheet.real_estate[:] = [4, 4, 4, 4, 4, 4]
    sheet.parks[:] = [5, 5, 5]
    for street in range(3):  # the cached lists the game's sheet used to share
        sheet.runs(street).append((0, 1, True))
        sheet.street_bounds(street).clear()
        sheet.street_bis_options(street).append((street, 0, 5))
    sheet.unused_estates().append((0, 0, 1))
    for street, row in enumerate(sheet.numbers):
        for house, number in enumerate(row):
            if number is None:
                sheet.write(street, house, 0)
    if sheet.board is not None and hasattr(sheet.board, "cones"):
        for row in sheet.board.cones:
            row[:] = [SOLD] * len(row)
    view.offers[:] = [Offer(0, "bis", 0, 0)] * 3
    view.sheet = Sheet()
    view.plans, view.public, view.plan_first_turn, view.turn, view.seat = (), (), (None,) * 3, 99, 5
    view.cards_left, view.n_players, view.hand, view.next_effects = 0, 9, [], ("bis",) * 3
    return saved


def restored(view, saved):
    for name, value in (saved or {}).items():
        setattr(view, name, value)
    return view


class ViewCheater(RandomStrategy):
    """Random, changing its view (sheet, fields, options) after each answer
    (and putting the fields back for its own next questions)."""

    saved = None

    def choose_play(self, view, plays):
        answer = super().choose_play(view, plays)
        self.saved = cheat_on_view(view)
        plays.clear()
        return answer

    def choose_effect(self, view, options):
        answer = super().choose_effect(restored(view, self.saved), options)
        options[:] = [Effect("bis", 0, 0, 3)]
        return answer

    def choose_plans(self, view, claimable):
        answer = super().choose_plans(restored(view, self.saved), claimable)
        view.plans, view.sheet = (), Sheet()
        claimable.clear()
        return answer

    def choose_pass(self, view, cards):
        answer = super().choose_pass(restored(view, self.saved), cards)
        cards[:] = [7]
        return answer


class GreedyViewCheater(GreedyStrategy):
    saved = None

    def choose_play(self, view, plays):
        answer = super().choose_play(view, plays)
        self.saved = cheat_on_view(view)
        return answer

    def choose_effect(self, view, options):
        return super().choose_effect(restored(view, self.saved), options)

    def choose_plans(self, view, claimable):
        answer = super().choose_plans(restored(view, self.saved), claimable)
        view.plans, view.sheet = (), Sheet()
        return answer


@pytest.mark.parametrize("variant", [Variant(), Variant(advanced=True), Variant(board="ice-cream"),
                                     Variant(board="easter"), Variant(expert=True)],
                         ids=["base", "advanced", "ice-cream", "easter", "expert"])
@pytest.mark.parametrize("honest, cheater", [(RandomStrategy, ViewCheater), (GreedyStrategy, GreedyViewCheater)],
                         ids=["random", "greedy"])
def test_changing_the_view_has_no_effect_on_the_game(variant, honest, cheater):
    for game_seed in (1, 2):
        fair = play_game(variant, [seat(honest), seat(RandomStrategy)], game_seed, record=True)
        cheated = play_game(variant, [seat(cheater), seat(RandomStrategy)], game_seed, record=True)
        assert cheated.record == fair.record
        assert cheated.scores == fair.scores and cheated.ranks == fair.ranks


def test_the_plan_points_cheat_of_the_issue_does_not_score():
    class PlanPoints(RandomStrategy):
        def choose_play(self, view, plays):
            view.sheet.plan_points[0] = 500
            return super().choose_play(view, plays)

    fair = play_game(Variant(), [seat(RandomStrategy)], 8)
    cheated = play_game(Variant(), [seat(PlanPoints)], 8)
    assert cheated.scores == fair.scores and cheated.scores[0]["plans"] < 500


@pytest.mark.parametrize("cheat", [
    lambda view: view.variant.data.cones[0].__setitem__(0, 99),
    lambda view: view.sheet.data.eggs[0].__setitem__(2, 50),
    lambda view: view.variant.data.egg_holes.clear(),
    lambda view: view.variant.data.board_plans.__setitem__("easter", ()),
    lambda view: view.variant.overrides.__setitem__("temp_boxes", 99),
], ids=["cones", "eggs", "egg holes", "board plans", "overrides"])
def test_the_data_tables_a_strategy_sees_are_read_only(cheat):
    class TableCheater(RandomStrategy):
        def choose_play(self, view, plays):
            cheat(view)
            return super().choose_play(view, plays)

    with pytest.raises(StrategyError, match="raised (TypeError|AttributeError)"):
        play_game(Variant(board="easter"), [seat(TableCheater)], 1)
    assert Variant().data.cones[0][0] == 1 and Variant().data.eggs[0][2] == 1


def test_the_view_sheet_is_a_copy_that_follows_the_game():
    seen = []

    def look(view, plays):
        seen.append((view, view.sheet, view.sheet.n_built()))
        return plays[0]

    game = Game(Variant(), [scripted_seat("a", play=look)], 0, PLANS)
    for _ in range(3):
        game.play_turn()
    assert [built for _view, _sheet, built in seen] == [0, 1, 2]
    for view, sheet, _built in seen:
        assert isinstance(view, GameView) and sheet is not game.sheets[0]
        assert sheet.data is not game.sheets[0].data and sheet.data.street_houses == game.sheets[0].data.street_houses
    assert seen[-1][0].sheet is not seen[-1][1]          # copied again after the game wrote on it
    assert seen[-1][0].sheet.n_built() == 3


def test_a_view_replaced_by_dataclasses_replace_keeps_the_given_sheet():
    import dataclasses

    captured = []

    def look(view, plays):
        other = Sheet()
        captured.append((dataclasses.replace(view, sheet=other), other))
        return plays[0]

    Game(Variant(), [scripted_seat("a", play=look)], 0, PLANS).play_turn()
    replaced, other = captured[0]
    assert replaced.sheet is other


def test_a_sheet_copy_broken_by_its_strategy_breaks_nothing_else():
    class Breaker(RandomStrategy):
        def choose_play(self, view, plays):
            answer = super().choose_play(view, plays)
            view.sheet.numbers = 5
            view.sheet.street_cache = None
            return answer

    fair = play_game(Variant(), [seat(RandomStrategy), seat(RandomStrategy)], 5, record=True)
    broken = play_game(Variant(), [seat(Breaker), seat(RandomStrategy)], 5, record=True)
    assert broken.record == fair.record
