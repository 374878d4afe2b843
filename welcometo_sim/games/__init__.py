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
`render`, `RESULT_COLUMNS`, `COLUMN_DTYPES`, `CATEGORIES`, `STRATEGIES`, `ENVIRONMENT`
(``module:Class`` of its PettingZoo AEC environment) and `CAPABILITIES` (a :class:`Capabilities`:
what the tournament machinery asks a game instead of comparing its name), and, for `wtsim plans`
and `balance`, `OBJECTIVES` (see welcometo_sim.games.objectives), `sweep_measures` and `OVERRIDE_KEYS` for `wtsim sweep`,
and, for `wtsim train`, `LEARNING` (``module:object``, see welcometo_sim.learning.train); and,
for `welcometo_sim.envs`, `ENV_EXPORTS` (the names it hands out for the game -> ``module:attribute``)
and `MOVED_MODULES` (the deprecated old names of modules that moved into the game -> their new names).
A game that plays a run's games on a driver of its own (faster, or with strategy calls
traced for `move_timeout`) provides `play_run_game(spec, index, seed, record, tracer=None)`
-> `welcometo_sim.sim.chunks.RunGame`, and may provide `prepare_chunk(spec, seeds, start)`;
without them the runner plays each game through `Game.play`.
For `wtsim show` and `verify` (see welcometo_sim.games.records) a module may also give
`record_problems(record)` (every problem `verify` prints, one line each; default: its
replay's error), `record_text(record, turn)` (what `show` prints; default: `render`) and
`record_turns(record)` (the turns or rounds a record holds, which bound `show --turn`),
and, for the shell completion of `wtsim sweep --set`, `sweep_keys()`."""

DEFAULT_GAME = "welcome-to"
"""The game a config plays when it has no `game:` key."""


class UnknownGame(ValueError):
    """A game name that is not registered."""


class GameRefusal(ValueError):
    """A game's one-line refusal of a request the machinery passed on (an unknown
    strategy name, parameters its strategy refuses); the caller adds where it came from."""


# ------------------------------------------------------------------ capabilities
@dataclass(frozen=True)
class Capabilities:
    """What the machinery (config, sim/, analysis/, cli/, tuning, viewer) needs to
    know about a game, asked here so that no code outside this package compares a
    game's name: a new game declares these and every command treats it alike.

    The functions take the run's :class:`~welcometo_sim.config.RunSpec` (whose
    `game_params` hold the game's parameters and `rules` the game's checked rules).
    """

    title: str
    """The game's name as messages write it ("Welcome To")."""
    read_config: Callable[[dict, str, Any], dict]
    """(raw config mapping, where, base_dir) -> the RunSpec fields of the game's keys
    (`players` and the game's rules); a problem is one ConfigError line."""
    config_section: Callable[[Any], dict]
    """RunSpec -> its game's keys as a config writes them: `variant`, `overrides`
    (and `game`, for a game a config must name)."""
    parse_players: Callable[..., tuple]
    """(entries, where, base_dir=None) -> PlayerConfigs, names resolved among the game's strategies."""
    check_seats: Callable[[Any, int], None]
    """(RunSpec, n) raises a ValueError when the run's rules do not seat n players."""
    strategy_class: Callable[[str], type]
    """A strategy reference -> its class (GameRefusal: not one of the game's)."""
    strategy_params: Callable[[type, dict], dict]
    """(class, parameters) -> its defaults overlaid with them (GameRefusal: refused)."""
    variant_label: Callable[[Any], str]
    """A result row (a pandas Series) -> the variant as the report's header says it."""
    shared_draws: Callable[[Any], bool] = lambda spec: False
    """Whether every seat of the run sees the same draws, so that seats with the same
    deterministic strategy write the same game (and `mirror_note` says so)."""
    move_timeout: bool = False
    """`move_timeout` can stop one of its strategies' calls (they run traced)."""
    trainable: bool = False
    """`wtsim train` can learn a value function for it."""
    strategy_files: bool = False
    """Its strategies may be loaded from files or modules (`mine.py:Bot`), whose sources
    a run's manifest then hashes."""
    summary_columns: tuple[str, ...] = ()
    """Columns beyond game, player, total, won and the categories that `summarize` reads."""
    report_figures: tuple[str, ...] = ("scores.png", "win_rates.png")
    """The report's figures its result table can draw (the first two need only
    player, total and rank)."""
    viewer: str = ""
    """``module:function`` building the HTML viewer's page data from a record and the
    turn to open after: `(record, start) -> dict`."""


def capabilities(name: str) -> Capabilities:
    """The :class:`Capabilities` of the game called `name` (UnknownGame when there is none)."""
    return game_module(name).CAPABILITIES


def games_that(can: str) -> tuple[str, ...]:
    """The titles of the registered games whose capability `can` is set, for messages
    such as "plays Welcome To only"."""
    return tuple(capabilities(name).title for name in known_games() if getattr(capabilities(name), can))


def known_games() -> tuple[str, ...]:
    """The registered games' names, the default game first, then the others sorted."""
    return (DEFAULT_GAME, *sorted(name for name in GAMES if name != DEFAULT_GAME))


def game_key(name: str) -> dict[str, str]:
    """`{"game": name}` as a written config or document names its game, or nothing
    for the default game (a config without `game:` plays it)."""
    return {} if name == DEFAULT_GAME else {"game": name}


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
        """A record's boards as text after a round (default: the end), which `show`
        prints unless the game gives a `record_text`."""
        return self._render(record, round_)

    @property
    def capabilities(self) -> "Capabilities":
        """What the machinery may ask this game (see :class:`Capabilities`)."""
        return capabilities(self.name)


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


def override_keys(name: Any) -> frozenset[str]:
    """The top keys of the `overrides:` section of the game called `name` (its
    module's `OVERRIDE_KEYS`), which `wtsim sweep --set` takes without
    `overrides.` in front; none for a game that has none or is not registered."""
    if not isinstance(name, str) or name not in GAMES:
        return frozenset()
    return frozenset(getattr(game_module(name), "OVERRIDE_KEYS", ()))


def game_sweep_keys(name: str) -> tuple[str, ...]:
    """The `wtsim sweep --set` keys a shell completes for the game called `name`
    (its module's `sweep_keys()`; none when it has none)."""
    listed = getattr(game_module(name), "sweep_keys", None)
    return () if listed is None else tuple(listed())


def game_learning(name: str) -> Any:
    """The learning object of the game called `name` (its module's `LEARNING`,
    ``module:object``), which `wtsim train` plays its training games through
    (UnknownGame when the game has none)."""
    reference = getattr(game_module(name), "LEARNING", None)
    if reference is None:
        raise UnknownGame(f"game {name!r} has no learned player to train")
    module, _, attribute = reference.partition(":")
    return getattr(import_module(module), attribute)


def load_game(name: str, params: Mapping | None = None, n_players: int | None = None) -> Game:
    """The game called `name` with `params` checked (for `n_players` seats, if given)."""
    module = game_module(name)
    rules = module.load_rules(params, n_players)
    return Game(name, rules, tuple(module.RESULT_COLUMNS), tuple(module.CATEGORIES),
                dict(module.COLUMN_DTYPES), module.STRATEGIES, module.play_game, module.replay,
                module.render, module.new_state)
