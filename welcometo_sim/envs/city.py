"""PettingZoo AEC environment for Shake That City, stepped on the game's
:class:`~welcometo_sim.games.shake_that_city.game.GameState` directly.

Each round, the seats with a legal placement choose one, from the round's
start player on (a seat with none is skipped, as the rules pass it);
`agent_selection` is always the seat the game is asking.

Actions: one Discrete over (building, wild, row, col): index
``((building * 2 + wild) * rows + row) * cols + col``, `row`/`col` the
top-left cell of the placed shape's bounding box, as in the game's Move.

Observation (float32, all in [0, 1]), in this order:
- the seat's board: per cell, one value per building (built there) and one
  for a construction tile still on it (rows × cols × 6);
- the pattern: per pattern cell, one value per cube colour, wild last (9 × 6);
- the colours open to the seat now (5), whether it is the start player (1),
  the start player's colour this round (5, all 0 when none), the round as a
  fraction of the game (1);
- the cubes in the shaker now and in the next round's, as fractions of the
  largest count (6 + 6);
- per other seat, in seat order after this one (up to 3; zeros past the
  table), each building's cell count as a fraction of the board (3 × 5).

Rewards: each step, every seat's change of score (a seat's rewards add up
to its final total).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..games.contract import CHANCE
from ..games.shake_that_city import BUILDINGS, Move, load_rules
from ..games.shake_that_city.game import GameState
from ..games.shake_that_city.shake import CUBE_NAMES

MAX_SEED = 2**32
OTHER_SEATS = 3


class ShakeThatCityEnv(AECEnv):
    """Shake That City as an AEC environment (see the module's docstring)."""

    metadata = {"name": "shake_that_city_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, n_players: int = 2, variant: Mapping | None = None, render_mode: str | None = None,
                 overrides: Mapping | None = None) -> None:
        super().__init__()
        self.rules = load_rules({"variant": dict(variant or {}), "overrides": dict(overrides or {})}, n_players)
        self.n_players = n_players
        self.render_mode = render_mode
        layout = self.rules.layout
        self.rows, self.cols = layout.rows, layout.cols
        self.n_actions = len(BUILDINGS) * 2 * self.rows * self.cols
        size = self.rows * self.cols * (len(BUILDINGS) + 1) + 9 * len(CUBE_NAMES) + 12 + 12 \
            + OTHER_SEATS * len(BUILDINGS)
        self.possible_agents = [f"player_{i}" for i in range(n_players)]
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.n_actions,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(self.n_actions)
        self._state: GameState | None = None
        self._seeds = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ---------------------------------------------------------------- actions
    def action_of(self, move: Move) -> int:
        """The action index of a Move."""
        building = BUILDINGS.index(move.building)
        return ((building * 2 + int(move.wild)) * self.rows + move.row) * self.cols + move.col

    def move_of(self, action: int) -> Move:
        """The Move an action index names."""
        rest, col = divmod(int(action), self.cols)
        rest, row = divmod(rest, self.rows)
        building, wild = divmod(rest, 2)
        return Move(BUILDINGS[building], bool(wild), row, col)

    # ---------------------------------------------------------------- driving
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game: with `seed`, the game of that seed; without, the next
        seed of the environment's generator."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeds.integers(MAX_SEED))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        size = self._observation_space["observation"].shape[0]
        self._last_obs = {a: np.zeros(size, np.float32) for a in self.agents}
        self._scores = [0] * self.n_players
        self.game_seed = game_seed
        self._state = GameState(self.rules, self.n_players, game_seed)
        self._advance()

    def step(self, action: Any) -> None:
        """Answer the selected agent's decision (None once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._state
        assert state is not None and state.decision is not None
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}
        legal = self._legal_actions()
        try:
            chosen = int(action)
        except (TypeError, ValueError, OverflowError):
            chosen = -1
        if chosen not in legal:
            self.infos[agent]["illegal_action"] = True
            chosen = min(legal)
        state.apply(self.move_of(chosen))
        self._advance()
        self._accumulate_rewards()

    def _legal_actions(self) -> set[int]:
        return {self.action_of(move) for move in self._state.decision.options}  # type: ignore[union-attr]

    def _advance(self) -> None:
        """Chance applied, then rewards, and the next agent or the end."""
        state = self._state
        assert state is not None
        while state.decision is not None and state.decision.seat == CHANCE:
            state.apply(None)
        totals = [score["total"] for score in state.scores()]
        self.rewards = {a: totals[i] - self._scores[i] for i, a in enumerate(self.agents)}
        self._scores = totals
        if state.decision is None:
            for i, agent in enumerate(self.agents):
                self.terminations[agent] = True
                self.infos[agent].update(score=totals[i])
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.agents[state.decision.seat]
            self._last_obs[self.agent_selection] = self._observe(state.decision.view)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's latest observation; its mask is empty unless it is the one to act."""
        mask = np.zeros(self.n_actions, np.int8)
        state = self._state
        if state is not None and state.decision is not None and agent == self.agent_selection:
            mask[list(self._legal_actions())] = 1
        return {"observation": self._last_obs[agent], "action_mask": mask}

    def _observe(self, view: Any) -> np.ndarray:
        layout, cells = self.rules.layout, self.rows * self.cols
        board = np.zeros((cells, len(BUILDINGS) + 1), np.float32)
        for index, mask in enumerate(view.board.masks):
            board[[i for i in range(cells) if mask >> i & 1], index] = 1.0
        for cell_mask, _pair in view.board.construction:
            board[[i for i in range(cells) if cell_mask >> i & 1], len(BUILDINGS)] = 1.0
        pattern = np.zeros((9, len(CUBE_NAMES)), np.float32)
        for index, name in enumerate(view.pattern):
            pattern[index, CUBE_NAMES.index(name)] = 1.0
        allowed = [float(b in view.allowed) for b in BUILDINGS]
        start = [float(b == view.start_choice) for b in BUILDINGS]
        shaker = np.array([view.shaker.get(c, 0) for c in CUBE_NAMES], np.float32)
        following = np.array([view.next_shaker.get(c, 0) for c in CUBE_NAMES], np.float32)
        scale = max(1.0, float(shaker.max()), float(following.max()))
        others = np.zeros((OTHER_SEATS, len(BUILDINGS)), np.float32)
        for k in range(1, min(view.n_players, OTHER_SEATS + 1)):
            other = view.boards[(view.seat + k) % view.n_players]
            others[k - 1] = [bin(mask).count("1") / layout.n for mask in other.masks]
        return np.concatenate([board.ravel(), pattern.ravel(), allowed, [float(view.is_start)], start,
                               [view.round / view.rounds], shaker / scale, following / scale,
                               others.ravel()]).astype(np.float32)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._state is None:
            return None
        return f"round {self._state.round}, scores {self._scores}"

    def close(self) -> None:
        self._state = None


def env(n_players: int = 2, variant: Mapping | None = None, render_mode: str | None = None) -> ShakeThatCityEnv:
    """The AEC environment; see `ShakeThatCityEnv`."""
    return ShakeThatCityEnv(n_players, variant, render_mode)
