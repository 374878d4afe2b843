"""The config keys of a game other than Welcome To: its `variant`/`overrides`
checked by the game itself, and players resolved in that game's strategy registry.

Strategy names are looked up within the config's game only: `greedy` in a
Shake That City config is Shake That City's greedy, and a name that only
another game knows is refused with one line naming that game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from ..config_files import ConfigError, PlayerConfig, entry_with_file_params, read_params_file, unique_name
from ..messages import shown
from ..strategy import StrategyLoadError, builtin_strategies, parse_inline_params
from . import GAMES, load_game

WELCOME_TO = "welcome-to"
PLAYER_KEYS = {"strategy", "name", "params", "params_file"}
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
    entries = raw.get("players")
    if not isinstance(entries, list) or not entries:
        raise _fail(f"{where}: players: missing or not a non-empty list of strategies")
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


def game_players(game: str, entries: list, where: str, registry: dict | None = None,
                 base_dir: Any = None) -> tuple:
    """PlayerConfigs of `game` from config entries or command-line names, resolved
    in that game's strategy registry."""
    if registry is None:
        registry = _registry(game)
    players, taken = [], set()
    for index, entry in enumerate(entries):
        strategy, name = _player(entry, registry, game, where, f"players[{index}]", base_dir)
        players.append(PlayerConfig(unique_name(name, taken), strategy))
    return tuple(players)


def _player(entry: Any, registry: dict, game: str, where: str, at: str,
            base_dir: Any = None) -> tuple[GameStrategy, str]:
    if isinstance(entry, str):
        entry = {"strategy": entry}
    if not isinstance(entry, dict):
        raise _fail(f"{where}: {at}: must be a strategy name or a mapping")
    for key in entry:
        if key not in PLAYER_KEYS:
            raise _fail(f"{where}: {at}.{key}: unknown key (known: {', '.join(sorted(PLAYER_KEYS))})")
    from_file = "params_file" in entry
    if from_file:
        entry = _with_params_file(entry, game, where, at, base_dir)
    ref = entry.get("strategy")
    if not isinstance(ref, str) or not ref:
        raise _fail(f"{where}: {at}.strategy: missing or not a string")
    ref, inline = _inline(ref, where, at)
    if ref not in registry:
        other = other_game_of(ref, game)
        known = ", ".join(registry)
        raise _fail(f"{where}: {at}.strategy: {other or f'unknown strategy {shown(ref)}'} "
                    f"(strategies of {game}: {known})")
    params = entry.get("params") or {}
    if not isinstance(params, dict):
        raise _fail(f"{where}: {at}.params: must be a mapping")
    params = {**params, **inline}
    try:
        registry[ref](None, params)
    except (ValueError, TypeError) as exc:
        if from_file:  # the strategy's message may quote a value of the file, which may hold secrets
            raise _fail(f"{where}: {at}.params: refused by strategy {shown(ref)} with the params_file's "
                        f"values (the values are not shown)") from None
        raise _fail(f"{where}: {at}.params: {exc}") from None
    name = entry.get("name") or ref
    if not isinstance(name, str):
        raise _fail(f"{where}: {at}.name: must be a string")
    return GameStrategy(ref, dict(params)), name


def _with_params_file(entry: dict, game: str, where: str, at: str, base_dir: Any) -> dict:
    """The player entry with the strategy and parameters of its `params_file`
    (as `wtsim tune` writes it for this game); the entry's own `params`
    override the file's."""
    here, file_ref, file_params = read_params_file(entry["params_file"], where, at, base_dir)
    if file_ref is not None and not isinstance(file_ref, str):
        raise _fail(f"{here}: strategy: must be a strategy name")
    ref = entry.get("strategy")
    if ref is not None and file_ref is not None and ref != file_ref:
        held = shown(file_ref) if file_ref in _registry(game) else "another strategy"  # never quote the file
        raise _fail(f"{here} holds parameters of {held}, not of {shown(ref)}")
    return entry_with_file_params(entry, file_ref, file_params, where, at)


def _inline(ref: str, where: str, at: str) -> tuple[str, dict]:
    """'lookahead:samples=4' -> ('lookahead', {'samples': 4}), as Welcome To strategies take them."""
    head, sep, tail = ref.strip().partition(":")
    if not (sep and "=" in tail):
        return ref.strip(), {}
    try:
        return head, parse_inline_params(tail, f"strategy {shown(ref)}")
    except (StrategyLoadError, ValueError) as exc:
        raise _fail(f"{where}: {at}.strategy: {exc}") from None


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
