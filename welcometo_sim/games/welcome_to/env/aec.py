"""PettingZoo AEC environment: any variant, 1 to 12 seats.

Seats act in turn on the same offers, as the engine plays them: seat 0 takes
its whole turn (roundabout, play, effect, plans, pass: one step each, plans
one claim at a time), then seat 1, and so on; the reshuffle question follows
the turn of the game's first plan. `agent_selection` is always the seat the
engine is asking.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from ....envs.stepped import SteppedEnv
from .. import load_rules
from ..game import GameResult
from ..variant import Variant
from .encoding import Decision, layout_for, waiting_observation
from .session import GameSession


class WelcomeToEnv(SteppedEnv):
    """Welcome To as an AEC environment.

    Observations: ``{"observation": float32 vector, "action_mask": int8 vector}``
    (fields in docs/rl.md; `layout.fields` lists them).
    Actions: one Discrete(`layout.n_actions`). Rewards: each step, every
    seat's change of score (so a seat's rewards add up to its final score).
    `reset(seed=s)` plays the game `play_game` plays with seed s. An action
    outside the mask plays the first legal one and sets
    ``infos[agent]["illegal_action"]``."""

    metadata = {"name": "welcometo_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, n_players: int = 2, variant: Variant | Mapping | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__(n_players, render_mode)
        if isinstance(variant, Mapping):  # a config's `variant:` mapping
            variant = load_rules({"variant": dict(variant)}).variant
        self.variant = variant if variant is not None else Variant()
        self.variant.check(n_players)
        self.layout = layout_for(self.variant.data, n_players)
        self._set_spaces(spaces.Box(self.layout.low, self.layout.high, dtype=np.float32), self.layout.n_actions)
        self._session: GameSession | None = None

    # ------------------------------------------------------------ the game's hooks
    def _start(self, game_seed: int) -> None:
        self._session = GameSession(self.variant, self.n_players, game_seed)

    def _seat(self) -> int | None:
        decision = self.decision
        return None if decision is None else decision.seat

    def _observation(self) -> np.ndarray:
        return self._decision().observation  # type: ignore[return-value]

    def _legal(self) -> list[int]:
        return self._decision().actions

    def _apply(self, action: int) -> None:
        self._session.answer(self._decision().option(action))  # type: ignore[union-attr]

    def _totals(self) -> list[int]:
        return self._session.totals()  # type: ignore[union-attr]

    def _final_infos(self, seat: int) -> dict[str, Any]:
        result = self._session.pending  # type: ignore[union-attr]
        assert isinstance(result, GameResult)
        return {"rank": result.ranks[seat], "end_reasons": list(result.end_reasons)}

    def _waiting_observation(self) -> np.ndarray:
        return waiting_observation(self.layout)

    # ------------------------------------------------------------ the engine's objects
    @property
    def decision(self) -> Decision | None:
        """The question the engine is asking `agent_selection` (its view, its legal
        options and their action indices), for agents that read the engine's
        objects rather than the arrays, e.g. to imitate a built-in strategy;
        None when no game is in progress or it is over."""
        pending = None if self._session is None else self._session.pending
        return pending if isinstance(pending, Decision) else None

    def _decision(self) -> Decision:
        decision = self.decision
        assert decision is not None
        return decision

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._session is None:
            return None
        game = self._session.game
        lines = [f"turn {game.turn}, scores {self._scores}"]
        if not self._session.over:
            decision = self._decision()
            lines.append(f"{self.agent_selection} to answer a {decision.kind} step "
                         f"({len(decision.options)} legal)")
        return "\n".join(lines)

    def close(self) -> None:
        self._session = None


def env(n_players: int = 2, variant: Variant | None = None, render_mode: str | None = None) -> WelcomeToEnv:
    """The AEC environment (PettingZoo's usual entry point); see `WelcomeToEnv`."""
    return WelcomeToEnv(n_players, variant, render_mode)


raw_env = env
