"""The config keys of a game other than Welcome To: its `variant`/`overrides`
checked by the game itself, and players resolved in that game's strategy registry.

Strategy names are looked up within the config's game only: `greedy` in a
Shake That City config is Shake That City's greedy, and a name that only
another game knows is refused with one line naming that game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Mapping

from ..config_files import ConfigError
from ..messages import shown
from ..player_entries import StrategyLookup, parse_player_entries, player_list
from ..strategy import builtin_strategies
from . import GAMES, load_game

WELCOME_TO = "welcome-to"
GAME_KEYS = {"variant", "overrides"}


@dataclass(frozen=True)
class GameStrategy:
    """A seat's strategy of another game: its registered name and parameters
    (picklable, so workers build the strategy object themselves)."""

    ref: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def id(self) -> str:
        """The strategy id written to result tables."""
        return self.ref

    def seat(self, name: str) -> dict:
        """The seat spec the game's `play` takes."""
        return {"strategy": self.ref, "params": self.params, "name": name}


def _registry(game: str) -> dict:
    return import_module(GAMES[game]).STRATEGIES


def _fail(message: str) -> Exception:
    return ConfigError(message)


def parse_game(game: str, raw: dict, where: str, base_dir: Any = None) -> tuple[tuple, dict]:
    """The players and the checked `{variant, overrides}` of a config of `game`
    (relative `params_file` paths are read from `base_dir`)."""
    if raw.get("move_timeout") is not None:
        raise _fail(f"{where}: move_timeout: limits Welcome To strategies only (not {game}'s)")
    entries = player_list(raw.get("players"), where)
    params: dict[str, Any] = {}
    for key in ("variant", "overrides"):  # the variant alone first: an error is then named by its key
        if raw.get(key) is None:
            continue
        if not isinstance(raw[key], dict):
            raise _fail(f"{where}: {key}: must be a mapping")
        params[key] = raw[key]
        loaded = _loaded(game, params, len(entries), where, key)
    if not params:
        loaded = _loaded(game, params, len(entries), where, "players")
    return game_players(game, entries, where, loaded.strategies, base_dir), params


def _loaded(game: str, params: dict, n_players: int, where: str, key: str):
    """The game with `params`; a problem is one ConfigError line (`key` names it when
    the game's own message does not)."""
    try:
        return load_game(game, params, n_players)
    except ValueError as exc:
        raise _fail(f"{where}: {exc}") from None
    except (TypeError, AttributeError, LookupError, ArithmeticError, RecursionError) as exc:
        raise _fail(f"{where}: {key}: cannot read a value ({type(exc).__name__})") from None


def strategy_lookup(game: str, registry: Mapping[str, type] | None = None) -> StrategyLookup:
    """How the player-entry parser finds the strategies of `game`, a game whose
    strategies are the classes of its registry (`STRATEGIES`), named only by their
    registered names. A seat holds a GameStrategy; a seat named by default is
    called by the strategy's name, without inline parameters."""
    def table() -> Mapping[str, type]:
        return registry if registry is not None else _registry(game)

    def make(ref: str, params: dict) -> GameStrategy:
        table()[ref](None, params)  # the strategy checks its parameters (a ValueError, or a TypeError)
        return GameStrategy(ref, dict(params))

    return StrategyLookup(game=game, builtins=table, make=make,
                          elsewhere=lambda ref: other_game_of(ref, game), names_keep_params=False)


def game_players(game: str, entries: Any, where: str, registry: Mapping[str, type] | None = None,
                 base_dir: Any = None) -> tuple:
    """PlayerConfigs of `game` from config entries or command-line names, resolved
    in that game's strategy registry (see welcometo_sim.player_entries)."""
    return parse_player_entries(entries, where, strategy_lookup(game, registry), base_dir)


def other_game_of(ref: str, game: str) -> str | None:
    """'x is a <other game> strategy, not one of <game>' when a strategy name is
    registered only in another game; None otherwise."""
    if not isinstance(ref, str):
        return None
    for other in _games_knowing(ref):
        if other != game and not _knows(game, ref):
            return f"{shown(ref)} is a {other} strategy, not one of {game}"
    return None


def _games_knowing(ref: str) -> list[str]:
    return [name for name in dict.fromkeys((WELCOME_TO, *GAMES)) if _knows(name, ref)]


def _knows(game: str, ref: str) -> bool:
    if game == WELCOME_TO:
        return ref in builtin_strategies()
    return ref in _registry(game)
