"""What every game's PettingZoo AEC environment does the same way.

A game's environment steps the game's own State: it says how a game starts
(`_start`), who is asked now (`_seat`, None once the game is over), what
that seat sees and may answer (`_observation`, `_legal`), how an action is
applied (`_apply`), and the seats' scores as they stand (`_totals`). This
base holds the rest, for every game alike: the agents, the seeded resets,
the rewards (each step, every seat's change of score, so that a seat's
rewards add up to its final score), the masks, an illegal action played as
the first legal one and flagged in ``infos[agent]["illegal_action"]``, and
the bookkeeping PettingZoo's API asks of an AEC environment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

MAX_SEED = 2**32
"""Seeds drawn by an environment reset without one are below this."""


class SteppedEnv(AECEnv):
    """An AEC environment over a game's State (see the module's docstring).
    A subclass calls `_set_spaces` in its constructor and implements the
    hooks below."""

    def __init__(self, n_players: int, render_mode: str | None) -> None:
        super().__init__()
        self.n_players = n_players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(n_players)]
        self._seeds = np.random.default_rng()
        self._observation_size = 0
        self.n_actions = 0

    def _set_spaces(self, observation: spaces.Box, n_actions: int) -> None:
        """Every agent's spaces: a dict of `observation` and an int8 action mask, and Discrete(n_actions)."""
        self.n_actions = n_actions
        self._observation_size = observation.shape[0]
        self._observation_space = spaces.Dict({
            "observation": observation,
            "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(n_actions)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ------------------------------------------------------------ the game's hooks
    def _start(self, game_seed: int) -> None:
        """Start the game of `game_seed`, up to its first question."""
        raise NotImplementedError

    def _seat(self) -> int | None:
        """The seat the game is asking now; None once it is over."""
        raise NotImplementedError

    def _observation(self) -> np.ndarray:
        """What the seat asked now sees (float32, `_observation_size` values)."""
        raise NotImplementedError

    def _legal(self) -> list[int]:
        """The actions the seat asked now may take, in the game's order of its options."""
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        """Answer the question with a legal `action`; the game moves on to its next question or its end."""
        raise NotImplementedError

    def _totals(self) -> list[int]:
        """Every seat's score as the game stands (the final scores once over)."""
        raise NotImplementedError

    def _final_infos(self, seat: int) -> dict[str, Any]:
        """What `infos` holds for `seat` at the end, beside its score."""
        return {}

    def _waiting_observation(self) -> np.ndarray:
        """What a seat that has not been asked yet observes."""
        return np.zeros(self._observation_size, np.float32)

    # ------------------------------------------------------------ driving
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game: with `seed`, the game of that seed; without, the next
        seed of the environment's generator."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeds.integers(MAX_SEED))
        self.close()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._last_obs = {a: self._waiting_observation() for a in self.agents}
        self._scores = [0] * self.n_players
        self.game_seed = game_seed
        self._start(game_seed)
        self._advance()

    def step(self, action: Any) -> None:
        """Answer the selected agent's question (None once it is terminated);
        the game then plays on to the next question or the end."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}
        legal = self._legal()
        chosen = action_index(action)
        if chosen not in legal:
            self.infos[agent]["illegal_action"] = True
            chosen = legal[0]
        self._apply(chosen)
        self._advance()
        self._accumulate_rewards()

    def _advance(self) -> None:
        """After the game moved on: rewards, and the next agent or the end."""
        totals = self._totals()
        self.rewards = {a: totals[i] - self._scores[i] for i, a in enumerate(self.agents)}
        self._scores = totals
        seat = self._seat()
        if seat is None:
            for i, agent in enumerate(self.agents):
                self.terminations[agent] = True
                self.infos[agent].update(score=totals[i], **self._final_infos(i))
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.agents[seat]
            self._last_obs[self.agent_selection] = self._observation()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's latest observation; its mask is empty unless it is the one to act."""
        mask = np.zeros(self.n_actions, np.int8)
        if self._seat() is not None and agent == self.agent_selection:
            mask[self._legal()] = 1
        return {"observation": self._last_obs[agent].copy(), "action_mask": mask}


def action_index(action: Any) -> int:
    """An agent's action as an index (-1 when it is not an integer)."""
    try:
        return int(action)
    except (TypeError, ValueError, OverflowError):
        return -1
