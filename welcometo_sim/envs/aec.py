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
from pettingzoo import AECEnv

from ..games.welcome_to import load_rules
from ..rules.game import GameResult
from ..rules.variant import Variant
from .encoding import Decision, layout_for, waiting_observation
from .session import GameSession, SessionOwner

MAX_SEED = 2**32


class WelcomeToEnv(SessionOwner, AECEnv):
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
        super().__init__()
        if isinstance(variant, Mapping):  # a config's `variant:` mapping
            variant = load_rules({"variant": dict(variant)}).variant
        self.variant = variant if variant is not None else Variant()
        self.variant.check(n_players)
        self.n_players = n_players
        self.render_mode = render_mode
        self.layout = layout_for(self.variant.data, n_players)
        self.possible_agents = [f"player_{i}" for i in range(n_players)]
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.layout.n_actions,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(self.layout.n_actions)
        self._session: GameSession | None = None
        self._seeds = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ---------------------------------------------------------------- driving
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game: with `seed`, the engine game of that seed; without, the
        next seed of the environment's generator."""
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
        self._last_obs = {a: waiting_observation(self.layout) for a in self.agents}
        self._scores = [0] * self.n_players
        self.game_seed = game_seed
        self._session = GameSession(self.variant, self.n_players, game_seed)
        self._advance()

    def step(self, action: Any) -> None:
        """Answer the selected agent's decision (None once it is terminated);
        the engine then plays on to the next decision or the end."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        decision = self._decision()
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}
        if action is None or not is_legal_action(decision, action):
            self.infos[agent]["illegal_action"] = True
            action = decision.actions[0]
        self._session.answer(decision.option(action))  # type: ignore[union-attr]
        self._advance()
        self._accumulate_rewards()

    def _advance(self) -> None:
        """After the engine moved on: rewards, and the next agent or the end."""
        session = self._session
        assert session is not None
        totals = session.totals()
        self.rewards = {a: totals[i] - self._scores[i] for i, a in enumerate(self.agents)}
        self._scores = totals
        pending = session.pending
        if isinstance(pending, GameResult):
            for i, agent in enumerate(self.agents):
                self.terminations[agent] = True
                self.infos[agent].update(score=pending.scores[i]["total"], rank=pending.ranks[i],
                                         end_reasons=list(pending.end_reasons))
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.agents[pending.seat]
            self._last_obs[self.agent_selection] = pending.observation  # type: ignore[assignment]

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

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's latest decision; its mask is empty unless it is the one to act."""
        session = self._session
        mask = np.zeros(self.layout.n_actions, np.int8)
        if session is not None and not session.over and agent == self.agent_selection:
            mask = self._decision().mask.copy()  # type: ignore[union-attr]
        return {"observation": self._last_obs[agent].copy(), "action_mask": mask}

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


def is_legal_action(decision: Decision, action: Any) -> bool:
    """Whether `action` (whatever an agent passed) is one of the decision's
    legal action numbers; shared by every environment of the game."""
    try:
        return int(action) in decision.actions
    except (TypeError, ValueError, OverflowError):
        return False


def env(n_players: int = 2, variant: Variant | None = None, render_mode: str | None = None) -> WelcomeToEnv:
    """The AEC environment (PettingZoo's usual entry point); see `WelcomeToEnv`."""
    return WelcomeToEnv(n_players, variant, render_mode)


raw_env = env
