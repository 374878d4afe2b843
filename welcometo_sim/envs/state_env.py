"""The PettingZoo AEC environment of any game described by a kit StateGame
(welcometo_sim.games.kit), stepped on its State directly.

The game names its whole action list once (every option any decision can
offer, in a fixed order) and how a seat's view becomes an observation; the
rest (agents, seeded resets, score-change rewards, masks, illegal actions)
is :class:`~welcometo_sim.envs.stepped.SteppedEnv`'s.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from gymnasium import spaces

from ..games.contract import CHANCE
from .stepped import SteppedEnv


def state_env(game: Any, observe: Callable[[Any], np.ndarray], observation_size: int,
              actions: Sequence[Any]) -> type:
    """An environment class for `game` (a StateGame): `observe(view)` gives
    `observation_size` float32 values in [0, 1]; `actions` lists every option,
    an action being its index there."""
    action_list = list(actions)

    class StateEnv(SteppedEnv):
        metadata = {"name": f"{game.name}_v0", "render_modes": ["ansi"], "is_parallelizable": False}

        def __init__(self, n_players: int = 2, variant: Any = None, render_mode: str | None = None) -> None:
            super().__init__(n_players, render_mode)
            self.rules = game.load_rules({"variant": dict(variant or {})}, n_players)
            self.state = None
            self._set_spaces(spaces.Box(0.0, 1.0, (observation_size,), dtype=np.float32), len(action_list))

        def _start(self, game_seed: int) -> None:
            self.state = game.start(self.rules, self.n_players, game_seed)
            self._skip_chance()

        def _skip_chance(self) -> None:
            while self.state.decision is not None and self.state.decision[0] == CHANCE:
                self.state.apply(None)

        def _seat(self) -> int | None:
            decision = self.state.decision if self.state is not None else None
            return None if decision is None else decision[0]

        def _observation(self) -> np.ndarray:
            return np.asarray(observe(self.state.decision[3]), dtype=np.float32)

        def _legal(self) -> list[int]:
            return [action_list.index(option) for option in self.state.decision[2]]

        def _apply(self, action: int) -> None:
            self.state.apply(action_list[action])
            self._skip_chance()

        def _totals(self) -> list[int]:
            return [sum(score.values()) for score in self.state.scores()]

        def render(self) -> str | None:
            return None if self.render_mode is None or self.state is None else str(self.state)

        def close(self) -> None:
            """Nothing to free: the game is plain Python objects."""

    StateEnv.__name__ = StateEnv.__qualname__ = f"{game.title.replace(' ', '')}Env"
    return StateEnv
