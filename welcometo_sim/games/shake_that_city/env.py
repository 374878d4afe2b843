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

from typing import Mapping

import numpy as np
from gymnasium import spaces

from ...envs.stepped import SteppedEnv
from ..contract import CHANCE
from . import BUILDINGS, Move, load_rules
from .game import GameState
from .shake import CUBE_NAMES

OTHER_SEATS = 3


class ShakeThatCityEnv(SteppedEnv):
    """Shake That City as an AEC environment (see the module's docstring)."""

    metadata = {"name": "shake_that_city_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, n_players: int = 2, variant: Mapping | None = None, render_mode: str | None = None,
                 overrides: Mapping | None = None) -> None:
        super().__init__(n_players, render_mode)
        self.rules = load_rules({"variant": dict(variant or {}), "overrides": dict(overrides or {})}, n_players)
        layout = self.rules.layout
        self.rows, self.cols = layout.rows, layout.cols
        size = self.rows * self.cols * (len(BUILDINGS) + 1) + 9 * len(CUBE_NAMES) + 12 + 12 \
            + OTHER_SEATS * len(BUILDINGS)
        self._set_spaces(spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                         len(BUILDINGS) * 2 * self.rows * self.cols)
        self._state: GameState | None = None

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

    # ------------------------------------------------------------ the game's hooks
    def _start(self, game_seed: int) -> None:
        self._state = GameState(self.rules, self.n_players, game_seed)
        self._roll()

    def _roll(self) -> None:
        """Apply the chance decisions (the shakes) up to a seat's question or the end."""
        state = self._state
        while state.decision is not None and state.decision.seat == CHANCE:
            state.apply(None)

    def _seat(self) -> int | None:
        state = self._state
        return None if state is None or state.decision is None else state.decision.seat

    def _observation(self) -> np.ndarray:
        return self._observe(self._state.decision.view)  # type: ignore[union-attr]

    def _legal(self) -> list[int]:
        """The legal actions, lowest first (an illegal action plays the lowest)."""
        return sorted({self.action_of(move) for move in self._state.decision.options})  # type: ignore[union-attr]

    def _apply(self, action: int) -> None:
        self._state.apply(self.move_of(action))  # type: ignore[union-attr]
        self._roll()

    def _totals(self) -> list[int]:
        return [score["total"] for score in self._state.scores()]  # type: ignore[union-attr]

    def _observe(self, view) -> np.ndarray:
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
