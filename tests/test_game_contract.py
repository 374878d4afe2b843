"""The game contract (welcometo_sim/games/contract.py): both games are states
that anything can step, clone and score, with chance drawn from the seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from welcometo_sim.games.contract import CHANCE, State, play_out
from welcometo_sim.games.shake_that_city import load_rules as stc_rules
from welcometo_sim.games.shake_that_city.game import GameState as CityState
from welcometo_sim.games.shake_that_city.game import play_game as play_city
from welcometo_sim.games.welcome_to.game import GameState as WelcomeState
from welcometo_sim.games.welcome_to.game import IllegalAnswer, Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import load_strategy

WELCOME_TO_VARIANTS = {
    "base": (Variant(), 2),
    "advanced": (Variant(advanced=True), 3),
    "expert": (Variant(expert=True), 3),
    "solo": (Variant(solo=True), 1),
    "ice-cream": (Variant(board="ice-cream"), 2),
}
CITY_VARIANTS = {
    "inland": ({}, 2),
    "solo": ({"solo": True}, 1),
    "construction": ({"construction": True, "side": "seaside"}, 3),
}


def welcome_state(name: str, seed: int, record: bool = False) -> WelcomeState:
    variant, seats = WELCOME_TO_VARIANTS[name]
    return WelcomeState(variant, seats, seed, record=record)


def city_state(name: str, seed: int) -> CityState:
    variant, seats = CITY_VARIANTS[name]
    return CityState(stc_rules({"variant": variant}, seats), seats, seed)


def random_chooser(seed: int):
    """Answers any decision of either game at random (plans: the first claim or none)."""
    rng = np.random.default_rng(seed)

    def choose(decision):
        options = decision.options
        if decision.kind == "plans":
            return options[:1] if rng.random() < 0.5 else []
        return options[int(rng.integers(len(options)))]
    return choose


def finished_scores(state) -> str:
    return json.dumps(state.scores(), sort_keys=True)


STATES = [("welcome-to", name) for name in WELCOME_TO_VARIANTS] + \
         [("shake-that-city", name) for name in CITY_VARIANTS]


def new_state(game: str, name: str, seed: int):
    return welcome_state(name, seed) if game == "welcome-to" else city_state(name, seed)


@pytest.mark.parametrize("game, name", STATES)
def test_a_state_plays_out_to_the_end_the_same_way_for_the_same_seed_and_answers(game, name):
    first = play_out(new_state(game, name, 5), random_chooser(1))
    again = play_out(new_state(game, name, 5), random_chooser(1))
    assert isinstance(first, State)
    assert first.is_over and first.decision is None
    scores = first.scores()
    assert len(scores) == WELCOME_TO_VARIANTS.get(name, CITY_VARIANTS.get(name))[1]
    assert all(isinstance(score["total"], int) for score in scores)
    assert finished_scores(first) == finished_scores(again)
    other = play_out(new_state(game, name, 6), random_chooser(1))
    assert finished_scores(other) != finished_scores(first)


@pytest.mark.parametrize("game, name", STATES)
def test_a_clone_plays_on_like_the_original_and_shares_nothing_with_it(game, name):
    state = new_state(game, name, 9)
    play_out(state, random_chooser(3), max_decisions=8)
    assert not state.is_over
    before = finished_scores(state)
    twin = state.clone()
    play_out(twin, random_chooser(4))
    assert finished_scores(state) == before  # playing the clone left the original as it was
    assert state.decision is not None
    replica = state.clone()
    play_out(state, random_chooser(4))
    play_out(replica, random_chooser(4))
    assert finished_scores(state) == finished_scores(replica) == finished_scores(twin)


def test_the_first_decision_is_chance_and_a_seat_decides_after_it():
    for state in (welcome_state("base", 1), city_state("inland", 1)):
        assert state.decision.seat == CHANCE and state.decision.options == []
        state.apply(None)
        assert state.decision.seat >= 0 and state.decision.options


def test_an_illegal_answer_raises_and_leaves_the_game_as_it_was():
    state = welcome_state("base", 2)
    play_out(state, random_chooser(0), max_decisions=3)
    pending, before = state.decision, finished_scores(state)
    with pytest.raises(IllegalAnswer, match="answered an illegal 'nonsense'"):
        state.apply("nonsense")
    assert state.decision is pending and finished_scores(state) == before
    city = city_state("inland", 2)
    city.apply(None)
    with pytest.raises(ValueError):
        city.apply(("park", False, 99, 99))
    assert city.decision.kind == "move"


def test_stepping_a_state_by_hand_with_a_strategy_gives_the_game_play_game_plays():
    """The engine's own driver is the same loop: answering each decision with
    the strategy objects' hooks reproduces play_game's record."""
    greedy = load_strategy("greedy")
    seats = [Seat("a", "greedy", greedy), Seat("b", "greedy", greedy)]
    expected = play_game(Variant(), seats, 21, record=True).record
    from welcometo_sim.games.welcome_to.game import HOOKS
    from welcometo_sim.games.seeding import seat_generators

    state = WelcomeState(Variant(), 2, 21, record=True)
    strategies = [greedy(rng) for rng in seat_generators(21, 2)[1]]

    def choose(decision):
        hook = getattr(strategies[decision.seat], HOOKS[decision.kind])
        if decision.kind == "reshuffle":
            return hook(decision.view)
        return hook(decision.view, decision.options[:])
    play_out(state, choose)
    assert state.result([("a", "greedy"), ("b", "greedy")]).record == expected


def test_shake_that_city_stepped_by_hand_gives_the_game_play_game_plays():
    from welcometo_sim.games.shake_that_city.strategies import seat_strategies
    from welcometo_sim.games.seeding import seat_generators

    expected = play_city(["greedy", "random"], 13)
    players = seat_strategies(["greedy", "random"], seat_generators(13, 2)[1])
    state = CityState(stc_rules({}, 2), 2, 13)
    play_out(state, lambda d: players[d.seat].strategy.choose(d.view, d.options[:]))
    assert state.scores() == expected.record["scores"]


@pytest.mark.parametrize("name, params, seats", [("welcome-to", {"variant": {"expert": True}}, 3),
                                                 ("shake-that-city", {"variant": {"family": True}}, 2)])
def test_every_registered_game_hands_out_a_state_to_step(name, params, seats):
    from welcometo_sim.games import load_game

    game = load_game(name, params, seats)
    state = play_out(game.new_state(seats, 4), random_chooser(2))
    assert isinstance(state, State) and state.is_over
    assert len(state.scores()) == seats
    assert set(game.categories) <= set(state.scores()[0])


def test_every_game_raises_the_one_strategy_error_of_the_contract():
    """Welcome To and Shake That City report a failing strategy with the same
    class and fields; a game played in rounds names the round."""
    import pickle

    from welcometo_sim.games import contract
    from welcometo_sim.games import shake_that_city
    from welcometo_sim.games.welcome_to import game as welcome_to_game
    assert welcome_to_game.StrategyError is contract.StrategyError is shake_that_city.StrategyError
    error = contract.StrategyError("mine.py:Bot", 2, 77, 5, "raised ValueError: no", unit="round")
    assert str(error) == "strategy 'mine.py:Bot' (seat 2) raised ValueError: no in game seed 77, round 5"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.strategy, copy.seat, copy.seed, copy.turn, copy.problem, copy.unit, copy.round) == \
        ("mine.py:Bot", 2, 77, 5, "raised ValueError: no", "round", 5)
