"""Farama environments over the engine, and a strategy that seats their policies.

- ``env(n_players, variant, game=...)``: the PettingZoo AEC environment of any
  registered game, any variant (the class its module names as
  `ENVIRONMENT`), stepped on the game's State;
- the names each registered game hands out here (its module's
  `ENV_EXPORTS`, ``name -> "module:attribute"``): its environments, and what
  a trained policy plays with, such as an observation encoding and a strategy
  that seats the policy (docs/rl.md lists them; so does ``dir()``);
- `stepped` (what every game's environment shares) and `state_env` (the
  environment of a game written as a State).

The environments need the ``rl`` extra (``pip install 'welcometo-sim[rl]'``);
the encoding and ``PolicyStrategy`` need only numpy, so a trained policy
plays in `wtsim run` without PettingZoo or Gymnasium.

A game's modules live in its package; this one asks the registry for them
when a name is first used, so that a new game adds its environment without
changing this package. The old names of the modules that moved from here
into their game (each game's `MOVED_MODULES`: ``welcometo_sim.envs.policy``
...) still import, as the moved modules themselves, with a
DeprecationWarning naming the new one (see welcometo_sim.moved_modules).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Iterator

from ..games import DEFAULT_GAME, game_module, known_games
from ..moved_modules import MovedModules, install

GENERIC = ("env", "raw_env")
"""The names this package defines itself, for every game."""


def env(n_players: int = 2, variant: Any = None, render_mode: str | None = None, *,
        game: str = DEFAULT_GAME, players: int | None = None) -> Any:
    """The PettingZoo AEC environment of `game` for `players` (or `n_players`)
    seats: `variant` is the game's `variant:` mapping as a config writes it
    (a game may also take its own variant object). Every registered game
    names its environment class (its module's ENVIRONMENT)."""
    module_name, _, class_name = game_module(game).ENVIRONMENT.partition(":")
    try:
        environment = getattr(import_module(module_name), class_name)
    except ModuleNotFoundError as exc:
        raise ImportError(f"welcometo_sim.envs.env needs the rl extra "
                          f"(pip install 'welcometo-sim[rl]'): {exc}") from None
    return environment(players if players is not None else n_players, variant, render_mode)


raw_env = env


def _game_modules() -> Iterator[Any]:
    """The registered games' modules, the default game first (so that asking
    for one of its names imports no other game)."""
    for name in known_games():
        yield game_module(name)


def _declared(table: str, key: str) -> str | None:
    """What the first registered game whose `table` (a module-level dict) has
    `key` maps it to, or None when none has it."""
    for module in _game_modules():
        found = getattr(module, table, {}).get(key)
        if found is not None:
            return found
    return None


def _exported_names() -> list[str]:
    """Every name this package hands out: its own and the registered games'."""
    return [*GENERIC, *sorted({name for module in _game_modules() for name in getattr(module, "ENV_EXPORTS", {})})]


install(MovedModules(__name__, lambda old: _declared("MOVED_MODULES", old)), first=False)


def __getattr__(name: str) -> Any:
    """A name a registered game exports here, imported on first use (the
    environments need pettingzoo and gymnasium); `__all__`, read from the
    registry."""
    if name == "__all__":
        return _exported_names()
    reference = None if name.startswith("__") else _declared("ENV_EXPORTS", name)
    if reference is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, _, attribute = reference.partition(":")
    try:
        value = getattr(import_module(module_name), attribute)
    except ModuleNotFoundError as exc:
        raise ImportError(f"welcometo_sim.envs.{name} needs the rl extra "
                          f"(pip install 'welcometo-sim[rl]'): {exc}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_exported_names()})
