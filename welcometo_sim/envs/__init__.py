"""Farama environments over the engine, and a strategy that seats their policies.

- ``env(n_players, variant, game=...)``: the PettingZoo AEC environment of any
  registered game, any variant (Welcome To:
  :class:`~welcometo_sim.envs.aec.WelcomeToEnv`; Shake That City:
  :class:`~welcometo_sim.envs.city.ShakeThatCityEnv`), stepped on the game's
  State;
- ``SoloEnv(variant)``: Gymnasium environment for solo mode;
- ``PolicyStrategy``: plays a seat with ``policy(observation, action_mask)``.

The environments need the ``rl`` extra (``pip install 'welcometo-sim[rl]'``);
the encoding and ``PolicyStrategy`` need only numpy, so a trained policy
plays in `wtsim run` without PettingZoo or Gymnasium.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..games import game_module
from .encoding import STEPS, Decision, Layout, encode, first_legal, layout_for
from .policy import DecidingStrategy, PolicyStrategy, load_policy

_LAZY = {"WelcomeToEnv": "aec", "ShakeThatCityEnv": "city", "SoloEnv": "solo"}

__all__ = ["STEPS", "Decision", "Layout", "encode", "first_legal", "layout_for", "DecidingStrategy",
           "PolicyStrategy", "load_policy", "env", "raw_env", *_LAZY]


def env(n_players: int = 2, variant: Any = None, render_mode: str | None = None, *,
        game: str = "welcome-to", players: int | None = None) -> Any:
    """The PettingZoo AEC environment of `game` for `players` (or `n_players`)
    seats: `variant` is the game's `variant:` mapping as a config writes it
    (Welcome To also takes a Variant). Every registered game names its
    environment class (its module's ENVIRONMENT)."""
    module_name, _, class_name = game_module(game).ENVIRONMENT.partition(":")
    try:
        environment = getattr(import_module(module_name), class_name)
    except ModuleNotFoundError as exc:
        raise ImportError(f"welcometo_sim.envs.env needs the rl extra "
                          f"(pip install 'welcometo-sim[rl]'): {exc}") from None
    return environment(players if players is not None else n_players, variant, render_mode)


raw_env = env


def __getattr__(name: str) -> Any:
    """The environments, imported on first use (they need pettingzoo and gymnasium)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from importlib import import_module
        return getattr(import_module(f"{__name__}.{module}"), name)
    except ModuleNotFoundError as exc:
        raise ImportError(f"welcometo_sim.envs.{name} needs the rl extra "
                          f"(pip install 'welcometo-sim[rl]'): {exc}") from None
