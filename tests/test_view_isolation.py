"""Nothing a strategy receives reaches the game's live state.

A strategy gets a view (and copies of its options) at every decision. The
test walks every object reachable from them by attribute, slot, container
item and field, private ones included, and checks that none of the mutable
ones is an object of the game in progress; then a strategy that writes to
everything it can reach (with ``object.__setattr__``, past frozen
dataclasses) plays a game whose result must be the same as an honest one's.
The limit, documented in the README's threat model: a strategy is code
running with the user's rights, so the interpreter itself (``gc``, frames,
module globals) can reach anything."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any, Iterator

import numpy as np
import pytest

from welcometo_sim.games.welcome_to.game import Game, GameState, Seat, StrategyError
from welcometo_sim.games.welcome_to.record_replay import verify
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import load_strategy

IMMUTABLE_LEAVES = (int, float, complex, str, bytes, bool, type(None), range, type, np.generic)


def children(value: Any) -> Iterator[Any]:
    """The objects `value` holds: items, values, fields, attributes and slots."""
    if isinstance(value, (list, tuple, set, frozenset)):
        yield from value
        return
    if isinstance(value, (dict, MappingProxyType)):
        yield from value.keys()
        yield from value.values()
        return
    if isinstance(value, np.ndarray):
        return
    if hasattr(value, "__dict__"):
        yield from vars(value).values()
    for klass in type(value).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name in ("__dict__", "__weakref__"):
                continue
            try:
                yield object.__getattribute__(value, name)
            except AttributeError:
                pass


def is_immutable(value: Any) -> bool:
    if isinstance(value, IMMUTABLE_LEAVES):
        return True
    if type(value) is tuple or (isinstance(value, tuple) and hasattr(value, "_fields")):
        return all(is_immutable(item) for item in value)
    if isinstance(value, frozenset):
        return all(is_immutable(item) for item in value)
    return False


def reachable(*roots: Any, skip: tuple[int, ...] = ()) -> dict[int, Any]:
    """Every object reachable from `roots` (by id), not entering `skip`."""
    seen: dict[int, Any] = {}
    stack = list(roots)
    while stack:
        value = stack.pop()
        if id(value) in seen or id(value) in skip or callable(value) and not hasattr(value, "__dict__"):
            continue
        seen[id(value)] = value
        if not isinstance(value, IMMUTABLE_LEAVES):
            stack.extend(children(value))
    return seen


def mutable(objects: dict[int, Any]) -> dict[int, Any]:
    return {key: value for key, value in objects.items() if not is_immutable(value)
            and not isinstance(value, MappingProxyType)}


def game_objects(state: GameState) -> dict[int, Any]:
    """What the game in progress owns: everything reachable from the state but
    the views and options it hands out and the read-only variant it shows."""
    handed = state.decision
    skip = (id(handed), id(handed.view), id(handed.options), id(state._view), id(state._view_variant),
            *map(id, state._view_plans))
    return mutable(reachable(state, skip=skip))


VARIANTS = [Variant(), Variant(advanced=True), Variant(expert=True), Variant(solo=True),
            Variant(board="ice-cream"), Variant(board="easter")]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.board}-{v.advanced}-{v.expert}-{v.solo}")
def test_no_object_a_strategy_receives_belongs_to_the_game(variant: Variant) -> None:
    players = 1 if variant.solo else 2
    state = GameState(variant, players, 3)
    checked = 0
    while state.decision is not None:
        decision = state.decision
        if decision.seat < 0:
            state.apply(None)
            continue
        view = decision.view
        view.sheet  # the copy a strategy reads
        handed = mutable(reachable(view, decision.options[:]))
        shared = set(handed) & set(game_objects(state))
        assert not shared, [type(handed[key]).__name__ for key in shared]
        checked += 1
        options = decision.options
        state.apply(options[:1] if decision.kind == "plans" else options[0])
    assert checked > 10


def vandalise(*roots: Any, skip: tuple[int, ...] = ()) -> None:
    """Write to every object reachable from `roots`, frozen dataclasses included."""
    for value in list(reachable(*roots, skip=skip).values()):
        if isinstance(value, list):
            value[:] = [None] * len(value)
        elif isinstance(value, dict):
            for key in list(value):
                value[key] = 50
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for field in dataclasses.fields(value):
                try:
                    object.__setattr__(value, field.name, None)
                except (AttributeError, TypeError):
                    pass
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            for name in list(vars(value)):
                try:
                    object.__setattr__(value, name, 50)
                except (AttributeError, TypeError):
                    pass


class Vandal:
    """Answers like `honest`, then writes to everything it can reach from what it
    was given (but the shared rule tables with `spare_rules`)."""

    honest_class: Any = None
    spare_rules = True

    def __init__(self, rng: np.random.Generator) -> None:
        self.honest = self.honest_class(rng)

    def __getattr__(self, hook: str):
        honest = getattr(self.honest, hook)

        def answer(view, *options):
            try:  # its view may be wrecked by now: then the first option
                chosen = honest(view, *[o[:] for o in options])
            except Exception:
                chosen = ([] if hook == "choose_plans" else options[0][0]) if options else False
            skip = (id(view.variant), id(view._data)) if self.spare_rules else ()
            vandalise(view, *options, skip=skip)
            return chosen
        return answer


class FirstOption:
    """Answers the first option of every question, reading nothing."""

    def __init__(self, rng: np.random.Generator) -> None:
        pass

    def __getattr__(self, hook: str):
        return lambda view, options=None: [] if hook == "choose_plans" else (
            False if options is None else options[0])


class GreedyVandal(Vandal):
    honest_class = load_strategy("greedy")


class TotalVandal(Vandal):
    honest_class = FirstOption
    spare_rules = False


def in_a_child(play: Any, *args: Any) -> Any:
    """`play(*args)`, run in a process forked for it: what a vandal wrecks of the
    strategies' shared read-only tables (the documented limit) must not reach
    the games the other tests play in this process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(play, *args).result(timeout=300)


def _vandal_game(variant: Variant) -> tuple[int, dict]:
    greedy = load_strategy("greedy")
    vandal = Game(variant, [Seat("a", "g", GreedyVandal), Seat("b", "g", greedy)], 8, record=True).play()
    return vandal.turns, vandal.record


@pytest.mark.parametrize("variant", [Variant(), Variant(advanced=True, board="ice-cream"), Variant(expert=True)],
                         ids=["base", "advanced-ice-cream", "expert"])
def test_a_strategy_that_writes_everything_it_reaches_changes_nothing_in_the_game(variant: Variant) -> None:
    """The vandal's later answers read what it wrecked, so its game is not an
    honest one's; but the game itself is untouched: the record replays, move
    by move, to the very scores and sheets the game gave."""
    turns, record = in_a_child(_vandal_game, variant)
    assert turns > 5
    assert verify(record) == []


def test_the_game_sheet_is_out_of_a_strategys_reach() -> None:
    """The reproduction of the old hole: `view._source` was the game's sheet."""

    class Cheat(load_strategy("greedy")):
        def choose_play(self, view, plays):
            view._source.plan_points[0] = 50
            return super().choose_play(view, plays)

    greedy = load_strategy("greedy")
    with pytest.raises(StrategyError, match="raised AttributeError"):
        Game(Variant(), [Seat("cheat", "cheat", Cheat), Seat("b", "g", greedy)], 1).play()


@pytest.mark.parametrize("variant", [Variant(board="easter"), Variant(solo=True)], ids=["easter", "solo"])
def test_writing_into_the_rule_tables_a_strategy_sees_leaves_the_games_rules_alone(variant: Variant) -> None:
    """The rule tables a view shows are the strategies' read-only copy: forcing
    writes into them (which disturbs other strategies of the process, the
    documented limit) changes nothing of the game's own rules or plans."""
    honest, vandal = in_a_child(_honest_and_total_vandal, variant)
    assert vandal == honest


def _honest_and_total_vandal(variant: Variant) -> tuple[dict, dict]:
    seats = 1 if variant.solo else 2
    honest = Game(variant, [Seat(str(i), "f", FirstOption) for i in range(seats)], 5, record=True).play()
    vandal = Game(variant, [Seat("0", "f", TotalVandal), *[Seat(str(i), "f", FirstOption)
                                                           for i in range(1, seats)]], 5, record=True).play()
    return honest.record, vandal.record
