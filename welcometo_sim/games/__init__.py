"""Games the tournament machinery can host, loaded by name with their parameters.

``load_game("shake-that-city", {"variant": {...}, "overrides": {...}})`` returns a
:class:`Game`: its checked rules, `play(seats, seed)` (result rows with the
game's own score columns, and a JSON-able record) and `replay(record)`.
Parameters are checked when the game is loaded, so a bad config fails before
any game is played.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Mapping, Sequence

GAMES: dict[str, str] = {
    "welcome-to": "welcometo_sim.games.welcome_to",
    "shake-that-city": "welcometo_sim.games.shake_that_city",
}
"""Game name -> module; the module provides `load_rules`, `new_state`, `play_game`, `replay`,
`render`, `RESULT_COLUMNS`, `COLUMN_DTYPES`, `CATEGORIES`, `STRATEGIES` and `ENVIRONMENT`
(``module:Class`` of its PettingZoo AEC environment), and, for `wtsim plans` and `balance`,
`OBJECTIVES` (see welcometo_sim.games.objectives), and `sweep_measures` for `wtsim sweep`."""


class UnknownGame(ValueError):
    """A game name that is not registered."""


@dataclass(frozen=True)
class Game:
    """A game with its parameters, ready to play seeded games."""

    name: str
    rules: Any
    columns: tuple[str, ...]
    categories: tuple[str, ...]
    dtypes: Mapping[str, str]
    strategies: Mapping[str, type]
    _play: Callable
    _replay: Callable
    _render: Callable
    _new_state: Callable

    def new_state(self, n_players: int, seed: int):
        """A game at its start, to step through the contract of
        :mod:`welcometo_sim.games.contract` (chance comes from `seed`)."""
        return self._new_state(self.rules, n_players, seed)

    def play(self, seats: Sequence[Any], seed: int):
        """One game: a result (rows, record, ...) from seat strategies and a seed."""
        return self._play(seats, seed, self.rules)

    def replay(self, record: Mapping):
        """A record played again and re-scored; raises the game's ReplayError."""
        return self._replay(record)

    def render(self, record: Mapping, round_: int | None = None) -> str:
        """A record's boards as text after a round (default: the end), for `show`."""
        return self._render(record, round_)


def register_game(name: str, module: str) -> None:
    """Makes `load_game(name)` import `module` (see :data:`GAMES` for what it provides)."""
    GAMES[name] = module


def game_module(name: str) -> Any:
    """The module of the game called `name` (UnknownGame when there is none)."""
    if name not in GAMES:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})")
    return import_module(GAMES[name])


def game_measures(name: str) -> Callable | None:
    """The `sweep_measures(frame, rows, games)` of the game called `name`: its
    own measures of a grid point for `wtsim sweep` (None when it has none)."""
    return getattr(game_module(name), "sweep_measures", None)


def load_game(name: str, params: Mapping | None = None, n_players: int | None = None) -> Game:
    """The game called `name` with `params` checked (for `n_players` seats, if given)."""
    module = game_module(name)
    rules = module.load_rules(params, n_players)
    return Game(name, rules, tuple(module.RESULT_COLUMNS), tuple(module.CATEGORIES),
                dict(module.COLUMN_DTYPES), module.STRATEGIES, module.play_game, module.replay,
                module.render, module.new_state)
