"""Objectives, a game capability: the things a designer balances.

Welcome To's objectives are its city plans, Shake That City's its bonus tiles
(and, with the construction tiles, their building pairs). `wtsim plans` and
`wtsim balance` ask a game for its objectives through the object its module
names as ``OBJECTIVES`` (the :class:`Objectives` protocol, as
``"module:attribute"``) and hold no game's name:

- the catalogue of a config's objectives, grouped in decks (a plan deck; a
  kind of objective), each with an id and its points (high and low values:
  the first seats to complete a raced objective score the high one; an
  objective with no race has the two equal);
- the trial games of a deck: for every objective, games on the same seeds in
  which it is in play ("forced"), as one table with the result columns plus
  ``forced_deck`` and ``forced_plan`` (the objective's id) and ``turns``;
- per trial row, whether and when the seat completed the objective and at
  which value (:meth:`Objectives.outcome`);
- the config with other points for some objectives (:meth:`Objectives.with_points`)
  and the ``overrides:`` block that says so in a config file.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np
import pandas as pd

from . import game_module

Points = dict[str, tuple[int, int]]
"""Objective id -> (high, low) values."""
Progress = Callable[[int], None] | None


@dataclass(frozen=True)
class Objective:
    """One objective: `deck` groups those balanced against each other; `points`
    is (high, low), equal when completing it first earns nothing more."""

    id: str
    name: str
    deck: int
    points: tuple[int, int]


class Objectives(Protocol):
    """What a game module exports as ``OBJECTIVES`` (see the module docstring)."""

    noun: str
    """What one objective is called in messages ("plan", "bonus tile")."""
    races: bool
    """Whether the first seats to complete an objective score its high value."""

    def decks(self, spec: Any) -> dict[int, str]: ...

    def deck(self, spec: Any, deck: int) -> Sequence[Any]: ...

    def catalogue(self, spec: Any) -> Mapping[str, Any]: ...

    def trial_games(self, spec: Any, games: int, decks: Sequence[int]) -> int: ...

    def trials(self, spec: Any, games: int, decks: Sequence[int], progress: Progress) -> pd.DataFrame: ...

    def outcome(self, trial: pd.DataFrame, objective: Any) -> tuple[np.ndarray, np.ndarray]: ...

    def with_points(self, spec: Any, points: Points) -> Any: ...

    def overrides(self, points: Points) -> dict: ...


class NoObjectives(ValueError):
    """A game that has no objectives (a command that needs them says so in one line)."""


def objectives_of(game: str) -> Objectives:
    """The objectives capability of the game called `game` (NoObjectives when it
    has none). A game module names it as ``"module:attribute"`` (loaded here, so
    that playing a game does not load what balancing it needs) or holds it."""
    found = getattr(game_module(game), "OBJECTIVES", None)
    if found is None:
        raise NoObjectives(f"{game} defines no objectives to balance")
    if isinstance(found, str):
        module, _, name = found.partition(":")
        found = getattr(import_module(module), name)
    return found


def check_decks(goals: Objectives, spec: Any, decks: Sequence[int]) -> tuple[int, ...]:
    """`decks` (all of the config's when empty), each one the game has; a
    ValueError names a deck it does not have and the ones it has."""
    known = goals.decks(spec)
    for deck in decks:
        if deck not in known:
            listed = ", ".join(f"{number} ({what})" for number, what in known.items())
            raise ValueError(f"--deck {deck}: this config's {goals.noun}s come in deck {listed}")
    return tuple(decks) or tuple(known)


def objective_points(goals: Objectives, trial: pd.DataFrame, objective: Any) -> np.ndarray:
    """The points each row (player-game) of `trial` got from `objective`:
    its high value when completed first, its low value when completed later, else 0."""
    turn, first = goals.outcome(trial, objective)
    done = ~np.isnan(turn)
    high, low = objective.points
    return np.where(first & done, high, np.where(done, low, 0)).astype(float)


def merge_overrides(overrides: Mapping | None, change: Mapping) -> dict:
    """`overrides` with `change` laid over it, mapping by mapping (neither is modified)."""
    merged = copy.deepcopy(dict(overrides or {}))
    for key, value in change.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_overrides(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


__all__ = ["NoObjectives", "Objective", "Objectives", "Points", "check_decks", "merge_overrides",
           "objective_points", "objectives_of"]
