"""`heuristic` seats (and its presets `safe`, `planner`, `specialist`) and
`greedy` seats in the native game driver (welcometo_sim/native/heuristic.pyx
and game.pyx) against the Python game loop with `HeuristicStrategy` and
`GreedyStrategy` (the references).

The native seat works out the move evaluator's terms from the native
sheet's C state with the Python operations in the Python order, so every
value, and so every tie, is the Python one: for several seeds of every
supported family (two players, with learned and random seats, four seats,
solo, a game alone, advanced rules with roundabouts, other parameters), a
game played natively gives the same record, result rows and sheets as the
same game forced onto the Python loop. Seats the native seat cannot vouch
for (temperature, the refusal-risk weight, a subclass that decides
otherwise, a method replaced, a strategy that has decided before) are
played by the Python loop.
"""

from __future__ import annotations


import pytest

from welcometo_sim.games.welcome_to.game import Game, Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategies.greedy import GreedyStrategy
from welcometo_sim.strategies.heuristic import HeuristicStrategy
from welcometo_sim.strategies.lookahead import LookaheadStrategy
from welcometo_sim.strategy import parse_strategy

from native_support import native_or_skip

native = native_or_skip("game", needs_all=True)


def seats(kinds: list) -> list[Seat]:
    """Seats of strategy references, or of (name, factory) pairs."""
    return [Seat(f"p{i}", kind, parse_strategy(kind)) if isinstance(kind, str) else Seat(f"p{i}", *kind)
            for i, kind in enumerate(kinds)]


def played(variant: Variant, kinds: list, seed: int, native_allowed: bool) -> Game:
    """The finished game (its result in `game.finished`), natively when allowed and supported."""
    game = Game(variant, seats(kinds), seed, record=True)
    game.native = native_allowed
    game.finished = game.play()
    return game


def same_games(fast: Game, reference: Game) -> None:
    left, right = fast.finished, reference.finished
    assert left.record == right.record
    assert (left.scores, left.ranks, left.turns, left.end_reasons, left.plan_first_turn, left.race) == \
        (right.scores, right.ranks, right.turns, right.end_reasons, right.plan_first_turn, right.race)
    assert [sheet.to_record() for sheet in left.sheets] == [sheet.to_record() for sheet in right.sheets]
    for mine, theirs in zip(fast.strategies, reference.strategies):
        assert mine.rng.bit_generator.state == theirs.rng.bit_generator.state


def check_family(variant: Variant, kinds: list, seeds) -> int:
    """Every seed the driver plays natively gives the Python game; how many it played."""
    count = 0
    for seed in seeds:
        fresh = Game(variant, seats(kinds), seed)
        if not native.can_play(fresh.state, fresh.strategies):
            continue
        same_games(played(variant, kinds, seed, True), played(variant, kinds, seed, False))
        count += 1
    return count


FAMILIES = [
    (Variant(), ["heuristic", "heuristic"], range(8)),
    (Variant(), ["learned", "heuristic"], range(8)),
    (Variant(), ["heuristic", "random", "learned", "heuristic"], range(4)),
    (Variant(solo=True), ["heuristic"], range(8)),
    (Variant(), ["heuristic"], range(4)),
    (Variant(), ["safe", "planner", "specialist"], range(4)),
    (Variant(solo=True), ["planner"], range(4)),
    (Variant(), ["greedy", "greedy"], range(8)),
    (Variant(), ["greedy", "heuristic", "learned", "greedy"], range(4)),
    (Variant(solo=True), ["greedy"], range(8)),
]


@pytest.mark.parametrize("variant,kinds,seeds", FAMILIES,
                         ids=["2 heuristic", "against learned", "4 mixed", "solo", "alone", "presets",
                              "solo preset", "2 greedy", "greedy mixed", "greedy solo"])
def test_native_heuristic_games_equal_python_games(variant, kinds, seeds) -> None:
    assert check_family(variant, kinds, seeds) == len(seeds)


ADVANCED = [
    (Variant(advanced=True), ["heuristic"], 22),
    (Variant(solo=True, advanced=True), ["heuristic"], 18),
    (Variant(advanced=True), ["heuristic", "heuristic", "random"], 79),
    (Variant(advanced=True), ["greedy"], 18),
    (Variant(solo=True, advanced=True), ["greedy"], 28),
    (Variant(advanced=True), ["greedy", "greedy", "random"], 79),
]
"""Advanced games (plain estate plans) where a heuristic or greedy seat
builds a roundabout when no write without the temp agency fits, and refuses."""


@pytest.mark.parametrize("variant,kinds,seed", ADVANCED,
                         ids=["alone", "solo", "3 players", "greedy alone", "greedy solo", "greedy 3 players"])
def test_native_heuristic_roundabouts_and_refusals_equal_python(variant, kinds, seed) -> None:
    fresh = Game(variant, seats(kinds), seed)
    assert native.can_play(fresh.state, fresh.strategies)
    fast = played(variant, kinds, seed, True)
    same_games(fast, played(variant, kinds, seed, False))
    mine = [action for turn in fast.finished.record["turns"] for action in turn["actions"]
            if kinds[action["seat"]] != "random"]
    assert any(action["roundabout"] for action in mine) and any(action["refusal"] for action in mine)


def with_params(params: dict):
    return "heuristic", lambda rng: HeuristicStrategy(rng, params)


@pytest.mark.parametrize("params", [
    {"plan_commitment": 0.0},
    {"shortlist": 1, "horizon": 20, "urgency_turns": 12, "flex_margin": 0},
    {"weights": {"pool_chance": 2.0, "temp_race": 1.5, "open_estates": 0.0, "flexibility": 0.7}},
    {"horizon": 24, "plan_commitment": 1.25},
], ids=["no plan commitment", "short shortlist and horizon", "other weights", "stronger plan commitment"])
def test_other_parameters_play_natively_as_in_python(params) -> None:
    kinds = [with_params(params), "heuristic"]
    assert check_family(Variant(), kinds, range(4)) == 4
    assert check_family(Variant(solo=True), [with_params(params)], range(3)) == 3


@pytest.mark.parametrize("params", [
    {"shortlist": 1},
    {"shortlist": 9, "weights": {"flexibility": 0.4, "estate_potential": 1.5, "temp": 1.2}},
], ids=["shortlist of one", "other weights"])
def test_other_greedy_parameters_play_natively_as_in_python(params) -> None:
    kinds = [("greedy", lambda rng: GreedyStrategy(rng, params)), "greedy"]
    assert check_family(Variant(), kinds, range(4)) == 4
    assert check_family(Variant(solo=True), kinds[:1], range(3)) == 3


def test_the_native_driver_plays_heuristic_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game.play hands a heuristic game to the driver (and the Python loop is not asked)."""
    monkeypatch.setattr(Game, "_drive", lambda self, one_turn: pytest.fail("the Python loop ran"))
    result = play_game(Variant(), seats(["heuristic", "learned"]), 11)
    assert result.end_reasons and result.turns > 0


class GreedyProbe(GreedyStrategy):
    """A subclass that decides otherwise: its effects judged one at a time."""
    name = "greedy"

    def _scores_in_bulk(self) -> bool:
        return False


class Probe(HeuristicStrategy):
    """A subclass that decides otherwise: never a bis."""
    name = "heuristic"

    def _effect_value(self, view, after, effect, evaluator):
        value = super()._effect_value(view, after, effect, evaluator)
        return value - 100.0 if effect.kind == "bis" else value


def test_heuristic_seats_the_driver_cannot_vouch_for_are_played_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Temperature, the refusal-risk weight, a subclass with methods of its
    own (`lookahead`, a probe), a replaced method, a strategy that has
    prepared a turn before: the driver declines the game, and the Python
    loop plays it."""
    def declined(*kinds) -> bool:
        game = Game(Variant(), seats(list(kinds)), 5)
        return not native.can_play(game.state, game.strategies)

    def prepared(rng):
        strategy = HeuristicStrategy(rng)
        strategy._turn_key = (1, 0)
        return strategy

    assert not declined("heuristic", "heuristic")
    assert declined("heuristic:temperature=0.5", "heuristic")
    assert declined(with_params({"weights": {"refusal_risk": 1.0}}), "heuristic")
    assert declined(("probe", lambda rng: Probe(rng)), "heuristic")
    assert declined(("lookahead", lambda rng: LookaheadStrategy(rng)), "heuristic")
    assert declined(("heuristic", prepared), "heuristic")
    assert declined("greedy:temperature=0.2", "greedy")
    assert declined(("probe", lambda rng: GreedyProbe(rng)), "greedy")
    assert not declined("greedy", "heuristic")
    with monkeypatch.context() as patched:
        patched.setattr(HeuristicStrategy, "_candidates", lambda self, view, scored: scored[:1])
        assert declined("heuristic", "heuristic")
    assert not declined("heuristic", "heuristic")
    game = Game(Variant(), seats([("probe", lambda rng: Probe(rng)), "heuristic"]), 3, record=True)
    game.finished = game.play()
    same_games(game, played(Variant(), [("probe", lambda rng: Probe(rng)), "heuristic"], 3, False))


@pytest.mark.parametrize("variant,kinds", [
    (Variant(expert=True), ["heuristic", "heuristic"]),
    (Variant(board="easter"), ["heuristic", "heuristic"]),
    (Variant(), ["heuristic", "lookahead"]),
], ids=["expert rules", "a thematic board", "a lookahead seat"])
def test_unsupported_heuristic_games_fall_back_to_python(variant, kinds) -> None:
    game = Game(variant, seats(kinds), 3, record=True)
    assert not native.can_play(game.state, game.strategies)
    game.finished = game.play()
    same_games(game, played(variant, kinds, 3, False))
