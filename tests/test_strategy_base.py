"""One strategy base for every game: made as Strategy(rng, params), the seat's
generator from the one seat-generator scheme; Shake That City's first API
(Strategy(params), then bind) kept as a compatibility path."""

from __future__ import annotations

import numpy as np
import pytest

from welcometo_sim.games.shake_that_city import Strategy as CityStrategy
from welcometo_sim.games.shake_that_city import play_game as play_city
from welcometo_sim.games.shake_that_city.strategies import STRATEGIES as CITY_STRATEGIES
from welcometo_sim.games.shake_that_city.strategies import GreedyStrategy as CityGreedy
from welcometo_sim.games.strategy_base import BaseStrategy, StrategyLoadError
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.seeding import seat_generators
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import Strategy, builtin_strategies, load_strategy

from strategies.example_custom import ScheduleStrategy


@pytest.mark.parametrize("cls", [Strategy, CityStrategy, *CITY_STRATEGIES.values(),
                                 *(load_strategy(name) for name in builtin_strategies())])
def test_every_strategy_class_of_both_games_has_the_one_base(cls):
    assert issubclass(cls, BaseStrategy)


def test_a_documented_welcome_to_custom_strategy_is_made_with_the_seats_generator_first():
    rng = np.random.default_rng(5)
    strategy = ScheduleStrategy(rng, {"fence_every": 4})
    assert strategy.rng is rng
    assert strategy.params == {"use_bis": False, "fence_every": 4}


def test_a_shake_that_city_strategy_is_made_the_same_way():
    rng = np.random.default_rng(5)
    strategy = CityGreedy(rng, {"open": 0.25})
    assert strategy.rng is rng
    assert strategy.params["open"] == 0.25 and strategy.params["space"] == CityGreedy.defaults["space"]


class Recording(CityStrategy):
    """Plays the first move and keeps its generator's state at its first decision."""

    name = "recording"
    states: list = []

    def choose(self, view, moves):
        if view.round == 1:
            Recording.states.append((view.seat, self.rng.bit_generator.state))
        return moves[0]


def expected_states(seed: int, n_players: int) -> list:
    return [(seat, rng.bit_generator.state) for seat, rng in enumerate(seat_generators(seed, n_players)[1])]


def test_shake_that_city_seats_made_from_a_class_get_their_seats_generator_at_construction():
    Recording.states = []
    play_city([Recording, Recording], 31)
    assert sorted(Recording.states, key=lambda s: s[0]) == expected_states(31, 2)


def test_compatibility_path_an_instance_given_as_a_seat_is_bound_to_its_seats_generator():
    Recording.states = []
    early = Recording()
    play_city(["random", early], 31)
    assert early.seat == 1
    assert Recording.states == [expected_states(31, 2)[1]]


def test_compatibility_path_params_first_still_builds_the_strategy_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"GreedyStrategy\(rng, params\)") as warned:
        old = CityGreedy({"open": 0.25})
    assert [w.filename for w in warned] == [__file__]  # named at the caller's line, not in the library
    assert old.params == CityGreedy(None, {"open": 0.25}).params
    by_name = play_city([{"strategy": "greedy", "params": {"open": 0.25}}, "random"], 8)
    by_old_object = play_city([old, "random"], 8)
    assert by_old_object.record["rounds"] == by_name.record["rounds"]


def test_both_games_check_parameters_with_the_same_words():
    with pytest.raises(StrategyLoadError) as city:
        CityGreedy(None, {"opne": 1.0})
    with pytest.raises(StrategyLoadError) as welcome_to:
        load_strategy("greedy")(np.random.default_rng(0), {"opne": 1.0})
    assert str(city.value).startswith("strategy 'greedy': unknown parameter 'opne' (known: ")
    assert str(welcome_to.value).startswith("strategy 'greedy': unknown parameter 'opne' (known: ")


class FirstPlay(Strategy):
    """A Welcome To strategy that keeps its generator's state when made."""

    name = "first-play"
    states: list = []

    def __init__(self, rng, params=None):
        super().__init__(rng, params)
        FirstPlay.states.append(rng.bit_generator.state)

    def choose_play(self, view, plays):
        return plays[0]


def test_welcome_to_seats_get_the_same_scheme_of_generators():
    FirstPlay.states = []
    play_game(Variant(), [Seat("a", "first-play", FirstPlay), Seat("b", "first-play", FirstPlay)], 31)
    assert [(seat, state) for seat, state in enumerate(FirstPlay.states)] == expected_states(31, 2)
