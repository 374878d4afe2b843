"""A toy third game, registered only by the tests: the game contract and the
kit (welcometo_sim.games.kit) are all it needs for every command.

Race: each round the game draws a card 1..6; every seat in turn either takes
it (the card adds to its pile) or banks (one chip). After `rounds` rounds a
pile over `limit` scores nothing; the score is the pile plus the chips.
Taking past the limit busts; seats see the card and every pile, but not what
another seat answers this round before its own turn comes (answers are one
after another, on the same card).
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

import numpy as np

from welcometo_sim.games.contract import CHANCE
from welcometo_sim.games.kit import StateGame
from welcometo_sim.games.objectives import Objective

NAME = "toy-race"


GOALS = {"pile-10": 4, "chips-3": 3}
"""The objectives, each worth its points once: a pile that reached 10, three chips."""


class Rules(NamedTuple):
    rounds: int
    limit: int
    points: dict
    params: dict


def load_rules(params: Mapping | None = None, n_players: int | None = None) -> Rules:
    variant = dict((params or {}).get("variant") or {})
    overrides = dict((params or {}).get("overrides") or {})
    unknown = set(variant) - {"rounds", "limit"}
    if unknown:
        raise ValueError(f"variant.{sorted(unknown)[0]}: unknown key (known: rounds, limit)")
    points = {**GOALS, **dict(overrides.get("objectives") or {})}
    if set(points) != set(GOALS) or set(overrides) - {"objectives"}:
        raise ValueError(f"overrides: only objectives.{{{', '.join(GOALS)}}} can be set")
    if n_players is not None and not 1 <= n_players <= 4:
        raise ValueError(f"{NAME} seats 1 to 4 players, not {n_players}")
    return Rules(int(variant.get("rounds", 6)), int(variant.get("limit", 15)), points,
                 {"variant": variant, **({"overrides": overrides} if overrides else {})})


def achieved(state: "RaceState", seat: int) -> list[str]:
    """The objectives `seat` has completed (a pile only grows, chips too)."""
    return [goal for goal, done in (("pile-10", state.piles[seat] >= 10), ("chips-3", state.chips[seat] >= 3))
            if done]


def objectives(rules: Rules) -> list[Objective]:
    return [Objective(goal, goal, 1, (points, points)) for goal, points in rules.points.items()]


class View(NamedTuple):
    seat: int
    round: int
    card: int
    piles: tuple[int, ...]
    chips: tuple[int, ...]


class RaceState:
    """The game in progress (the State contract of welcometo_sim.games.contract)."""

    def __init__(self, rules: Rules, n_players: int, rng: np.random.Generator) -> None:
        self.rules, self.rng = rules, rng
        self.piles, self.chips = [0] * n_players, [0] * n_players
        self.round, self.card, self.asked = 0, None, 0

    @property
    def is_over(self) -> bool:
        return self.round >= self.rules.rounds

    @property
    def decision(self) -> Any:
        if self.is_over:
            return None
        if self.card is None:
            return (CHANCE, "draw", None, None)
        seat = self.asked
        return (seat, "take", ["take", "bank"], View(seat, self.round, self.card, tuple(self.piles), tuple(self.chips)))

    def apply(self, answer: Any) -> None:
        if self.card is None:
            self.card = int(self.rng.integers(1, 7))
            return
        if answer not in ("take", "bank"):
            raise ValueError(f"{answer!r} is not take or bank")
        if answer == "take":
            self.piles[self.asked] += self.card
        else:
            self.chips[self.asked] += 1
        self.asked += 1
        if self.asked == len(self.piles):
            self.round, self.card, self.asked = self.round + 1, None, 0

    def clone(self) -> "RaceState":
        copy = RaceState(self.rules, len(self.piles), np.random.Generator(type(self.rng.bit_generator)()))
        copy.rng.bit_generator.state = self.rng.bit_generator.state
        copy.piles, copy.chips = self.piles[:], self.chips[:]
        copy.round, copy.card, copy.asked = self.round, self.card, self.asked
        return copy

    def scores(self) -> list[dict[str, int]]:
        return [{"pile": 0 if pile > self.rules.limit else pile, "chips": chips,
                 "objectives": sum(self.rules.points[goal] for goal in achieved(self, seat))}
                for seat, (pile, chips) in enumerate(zip(self.piles, self.chips))]

    def __str__(self) -> str:
        return "\n".join(f"seat {s}: pile {p}, chips {c}" for s, (p, c) in enumerate(zip(self.piles, self.chips)))


GAME = StateGame(NAME, "Race", load_rules, RaceState, ("pile", "chips", "objectives"),
                 environment="tests.games.toy_race:RaceEnv", objectives=objectives, achieved=achieved)
globals().update(GAME.exports(__name__))


def observe(view: View) -> np.ndarray:
    """A seat's observation: the card, its own pile and chips, the round (all in [0, 1])."""
    return np.array([view.card / 6, min(view.piles[view.seat], 30) / 30, view.chips[view.seat] / 10,
                     view.round / 10], dtype=np.float32)


def __getattr__(name: str) -> Any:
    if name == "RaceEnv":  # built on first use: it needs the rl extra
        from welcometo_sim.envs.state_env import state_env
        return state_env(GAME, observe, 4, ["take", "bank"])
    raise AttributeError(name)
