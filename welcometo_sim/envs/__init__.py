"""Farama environments over the engine, and a strategy that seats their policies.

- ``env(n_players, variant)``: PettingZoo AEC environment, any variant
  (:class:`~welcometo_sim.envs.aec.WelcomeToEnv`);
- ``SoloEnv(variant)``: Gymnasium environment for solo mode;
- ``PolicyStrategy``: plays a seat with ``policy(observation, action_mask)``.

The environments need the ``rl`` extra (``pip install 'welcometo-sim[rl]'``);
the encoding and ``PolicyStrategy`` need only numpy, so a trained policy
plays in `wtsim run` without PettingZoo or Gymnasium.
"""

from __future__ import annotations

from typing import Any

from .encoding import STEPS, Decision, Layout, encode, first_legal, layout_for
from .policy import DecidingStrategy, PolicyStrategy, load_policy

_LAZY = {"env": "aec", "raw_env": "aec", "WelcomeToEnv": "aec", "SoloEnv": "solo"}

__all__ = ["STEPS", "Decision", "Layout", "encode", "first_legal", "layout_for", "DecidingStrategy",
           "PolicyStrategy", "load_policy", *_LAZY]


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
