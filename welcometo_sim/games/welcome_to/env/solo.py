"""Gymnasium environment for solo mode: one seat, the same steps and encoding
as the AEC environment."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ....envs.stepped import MAX_SEED, action_index
from ..game import GameResult
from ..variant import Variant
from .encoding import Decision, layout_for
from .session import GameSession, SessionOwner


class SoloEnv(SessionOwner, gym.Env):
    """Solo Welcome To (`variant` must be a solo variant; default: base board).

    Observation ``{"observation", "action_mask"}`` and Discrete actions as in
    :class:`~.aec.WelcomeToEnv`; the reward of a step is the
    change of score, so an episode's rewards add up to the final score.
    An action outside the mask plays the first legal one and sets
    ``info["illegal_action"]``. After the last step the mask is empty."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, variant: Variant | None = None, render_mode: str | None = None) -> None:
        self.variant = variant if variant is not None else Variant(solo=True)
        if not self.variant.solo:
            raise ValueError("SoloEnv plays solo variants (Variant(solo=True, ...)); "
                             "use welcometo_sim.envs.env() for more seats")
        self.variant.check(1)
        self.render_mode = render_mode
        self.layout = layout_for(self.variant.data, 1)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.layout.n_actions,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(self.layout.n_actions)
        self._session: GameSession | None = None
        self._score = 0
        self._obs: dict[str, np.ndarray] | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """With `seed`, the engine's solo game of that seed; without, the next
        seed of the environment's generator."""
        super().reset(seed=seed)
        self.game_seed = int(seed) if seed is not None else int(self.np_random.integers(MAX_SEED))
        self.close()
        self._session = GameSession(self.variant, 1, self.game_seed)
        self._score = 0
        reward, info = self._advance()
        return self._obs, info  # type: ignore[return-value]

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        session = self._session
        if session is None or session.over:
            raise RuntimeError("the game is over: call reset()")
        decision = session.pending
        assert isinstance(decision, Decision)
        illegal = action_index(action) not in decision.actions
        session.answer(decision.option(decision.actions[0] if illegal else action))
        reward, info = self._advance()
        if illegal:
            info["illegal_action"] = True
        return self._obs, float(reward), session.over, False, info  # type: ignore[return-value]

    def _advance(self) -> tuple[int, dict]:
        session = self._session
        assert session is not None
        total = session.totals()[0]
        reward, self._score = total - self._score, total
        pending = session.pending
        if isinstance(pending, GameResult):
            mask = np.zeros(self.layout.n_actions, np.int8)
            observation = self._obs["observation"] if self._obs else np.zeros(self.layout.n_observations, np.float32)
            self._obs = {"observation": observation, "action_mask": mask}
            return reward, {"score": total, "end_reasons": list(pending.end_reasons)}
        self._obs = {"observation": pending.observation, "action_mask": pending.mask}
        return reward, {"step": pending.kind}

    @property
    def decision(self) -> Decision | None:
        """The pending question with the engine's view and options (see
        `WelcomeToEnv.decision`); None when the game is over."""
        pending = None if self._session is None else self._session.pending
        return pending if isinstance(pending, Decision) else None

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._session is None:
            return None
        return f"turn {self._session.game.turn}, score {self._score}"
