"""Automatic re-balancing: point values that make every plan (objective) of a deck worth the same.

`wtsim balance` calls :func:`balance`. The objectives are the game's (see
welcometo_sim.games.objectives: Welcome To's city plans, Shake That City's
bonus tiles). A plan's worth is its points per player-game (what the seats
scored from it, high value, low value or 0, as in `wtsim plans`). The
search starts from the current values and, round after round, scales each
plan's high and low values by the deck's target (the deck's average worth
at the start) over the plan's worth, rounded to integers, keeping the
high/low ratio (at most x2 or /2 a round, high above low, both at least 1;
an objective with one value, high equal to low, keeps one value, at least 1). Every round plays the same seeds (common random
numbers), so rounds are compared on paired games; it stops when the spread
(best minus worst plan) is within the tolerance or the values stop changing.

The best round is then replayed with the starting values on fresh seeds,
more games, as `wtsim tune` confirms its winner: the spread of the search's
own games is biased low (the values were fitted to them). Spreads carry
bootstrap intervals that resample whole game seeds, every plan together.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from ..config import RunSpec
from ..games.objectives import merge_overrides, objectives_of
from .plan_balance import plan_points
from .stats import paired_bootstrap_ci

FRESH_STREAM = 0x62616C61
"""Mixed into the seed of the confirmation games."""
MAX_STEP = 2.0
"""A plan's values change by at most this factor a round (a never-completed plan would jump to infinity)."""
SPREAD_RESAMPLES = 1000


class BalanceError(ValueError):
    """A re-balancing request that cannot be run, as one line."""


@dataclass(frozen=True)
class BalanceSettings:
    deck: int
    games: int = 100
    rounds: int = 4
    tolerance: float = 0.5
    final_games: int | None = None

    def fresh_games(self) -> int:
        return self.final_games or 2 * self.games


Points = dict[str, tuple[int, int]]


@dataclass
class Round:
    """One set of values and the worth of each plan under it, on the search seeds."""

    number: int
    points: Points
    worth: pd.DataFrame
    """games × plans: each plan's points per player-game, per game seed."""

    @property
    def means(self) -> pd.Series:
        return self.worth.mean(axis=0)

    @property
    def spread(self) -> float:
        means = self.means
        return float(means.max() - means.min())


@dataclass
class BalanceResult:
    rounds: list[Round]
    best: Round
    before: Round
    """The starting values, replayed on the fresh seeds."""
    after: Round
    """The best values, replayed on the fresh seeds."""
    target: float
    overrides: dict = field(default_factory=dict)
    blank: dict = field(default_factory=dict)
    """The game's overrides block for these objectives with no value set (the
    place the balanced config always has, changed values or not)."""


def with_points(spec: RunSpec, points: Points) -> RunSpec:
    """`spec` with the objectives' values set by overrides (other overrides kept)."""
    return objectives_of(spec.game).with_points(spec, points)


def deck_worth(spec: RunSpec, deck: int, games: int, progress: Callable[[int], None] | None) -> pd.DataFrame:
    """games × plans of `deck`: points per player-game of each forced plan, per game seed."""
    goals = objectives_of(spec.game)
    trials = goals.trials(spec, games, (deck,), progress)
    catalog = {p.id: p for p in goals.deck(spec, deck)}
    columns = {}
    for plan_id, block in trials.groupby("forced_plan", sort=False):
        per_seat = pd.Series(plan_points(block, catalog[plan_id], goals.outcome), index=block["game"].to_numpy())
        columns[plan_id] = per_seat.groupby(level=0).mean()
    return pd.DataFrame(columns)


def next_points(points: Points, means: pd.Series, target: float) -> Points:
    """Each plan's values scaled by target / worth (at most MAX_STEP either way),
    as integers with the high/low ratio kept, high above low, both at least 1
    (an objective with one value, high equal to low, keeps one value)."""
    new = {}
    for plan_id, (high, low) in points.items():
        worth = float(means[plan_id])
        factor = MAX_STEP if worth <= 0 else min(MAX_STEP, max(1 / MAX_STEP, target / worth))
        if high == low:
            value = max(1, int(round(high * factor)))
            new[plan_id] = (value, value)
            continue
        new_high = max(2, int(round(high * factor)))
        new_low = min(new_high - 1, max(1, int(round(new_high * low / high))))
        new[plan_id] = (new_high, new_low)
    return new


def spread_interval(worth: pd.DataFrame, seed: int = 0) -> tuple[float, float, float]:
    """(spread, low, high): best minus worst plan mean, with a bootstrap
    interval that resamples game seeds (every plan's game together)."""
    matrix = worth.to_numpy(dtype=float)
    spread = float(matrix.mean(axis=0).max() - matrix.mean(axis=0).min())
    rng = np.random.Generator(np.random.PCG64(seed))
    index = rng.integers(0, len(matrix), size=(SPREAD_RESAMPLES, len(matrix)))
    means = matrix[index].mean(axis=1)
    spreads = means.max(axis=1) - means.min(axis=1)
    low, high = np.quantile(spreads, [0.025, 0.975])
    return (spread, float(low), float(high))


def fresh_seed(seed: int) -> int:
    """The run seed of the confirmation games (they share no game with the search)."""
    return int(np.random.SeedSequence([FRESH_STREAM, seed]).generate_state(1, np.uint32)[0])


def total_games(spec: RunSpec, settings: BalanceSettings) -> int:
    goals, deck = objectives_of(spec.game), (settings.deck,)
    return (goals.trial_games(spec, settings.games, deck) * settings.rounds
            + 2 * goals.trial_games(spec, settings.fresh_games(), deck))


def balance(spec: RunSpec, settings: BalanceSettings,
            progress: Callable[[int], None] | None = None) -> BalanceResult:
    """Search integer plan values for `settings.deck`, then confirm the best on fresh seeds."""
    goals = objectives_of(spec.game)
    decks = goals.decks(spec)
    if settings.deck not in decks:
        listed = ", ".join(f"{number} ({what})" for number, what in decks.items())
        raise BalanceError(f"--deck {settings.deck}: this config's {goals.noun}s come in deck {listed}")
    deck = goals.deck(spec, settings.deck)
    if len(deck) < 2:
        raise BalanceError(f"--deck {settings.deck}: the deck has {len(deck)} {goals.noun}(s); nothing to balance")
    points: Points = {p.id: (int(p.points[0]), int(p.points[1])) for p in deck}
    if not any(high for high, _low in points.values()):
        raise BalanceError(f"--deck {settings.deck}: the {decks[settings.deck]} score no points; nothing to balance")
    rounds: list[Round] = []
    target = None
    for number in range(settings.rounds):
        worth = deck_worth(with_points(spec, points), settings.deck, settings.games, progress)
        rounds.append(Round(number, points, worth))
        target = float(worth.mean(axis=0).mean()) if target is None else target
        if rounds[-1].spread <= settings.tolerance:
            break
        proposal = next_points(points, rounds[-1].means, target)
        if proposal == points:
            break
        points = proposal
    best = min(rounds, key=lambda r: r.spread)
    fresh = replace(spec, seed=fresh_seed(spec.seed))
    before = Round(-1, rounds[0].points, deck_worth(fresh, settings.deck, settings.fresh_games(), progress))
    after = Round(best.number, best.points,
                  deck_worth(with_points(fresh, best.points), settings.deck, settings.fresh_games(), progress))
    changed = {plan_id: values for plan_id, values in best.points.items() if values != rounds[0].points[plan_id]}
    return BalanceResult(rounds, best, before, after, float(target or 0.0),
                         goals.overrides(changed) if changed else {}, goals.overrides({}))


def rounds_table(result: BalanceResult) -> pd.DataFrame:
    """One row per round: its spread, and for each plan its values and worth
    as numbers (columns `<plan>.high_points`, `<plan>.low_points`, `<plan>.worth`)."""
    rows = []
    for r in result.rounds:
        row: dict = {"round": r.number, "spread": r.spread}
        for plan_id, (high, low) in r.points.items():
            row.update({f"{plan_id}.high_points": int(high), f"{plan_id}.low_points": int(low),
                        f"{plan_id}.worth": float(r.means[plan_id])})
        rows.append(row)
    return pd.DataFrame(rows).set_index("round")


def round_plans(rounds: pd.DataFrame) -> list[str]:
    """The plan ids of a rounds table, in its column order."""
    return [column[:-len(".worth")] for column in rounds.columns if column.endswith(".worth")]


SPREAD_ROW = "spread (best - worst)"
"""The confirmation table's last row: the deck's spread (it has no point values)."""


def confirmation_table(result: BalanceResult) -> pd.DataFrame:
    """Per plan, on the fresh seeds: values (high_points_before, low_points_before,
    ... _after, integers) and points per player-game with its 95% interval
    (before, before_low, before_high, after, ...), and the deck's spread on a
    last row, whose point values are missing (NA)."""
    rows = []
    for plan_id in result.before.worth.columns:
        row: dict = {"plan": plan_id}
        for label, r in (("before", result.before), ("after", result.after)):
            high, low = r.points[plan_id]
            row[f"high_points_{label}"], row[f"low_points_{label}"] = int(high), int(low)
            mean, lo, hi = paired_bootstrap_ci(r.worth[plan_id].to_numpy(dtype=float), resamples=SPREAD_RESAMPLES)
            row[label], row[f"{label}_low"], row[f"{label}_high"] = mean, lo, hi
        rows.append(row)
    spread: dict = {"plan": SPREAD_ROW}
    for label, r in (("before", result.before), ("after", result.after)):
        spread[f"high_points_{label}"] = spread[f"low_points_{label}"] = None
        spread[label], spread[f"{label}_low"], spread[f"{label}_high"] = spread_interval(r.worth)
    rows.append(spread)
    table = pd.DataFrame(rows).set_index("plan")
    points = [c for c in table.columns if c.startswith(("high_points_", "low_points_"))]
    return table.astype({column: "Int64" for column in points})


def balanced_document(config: dict, result: BalanceResult) -> dict:
    """The config with the found values added to its `overrides:` block
    (what `wtsim run` plays), as a plain dict for YAML."""
    document = copy.deepcopy(config)
    document["overrides"] = merge_overrides(merge_overrides(document.get("overrides"), result.blank),
                                            result.overrides)
    return document


__all__ = ["BalanceSettings", "BalanceResult", "BalanceError", "balance", "rounds_table", "confirmation_table",
           "round_plans", "SPREAD_ROW",
           "balanced_document", "total_games", "with_points", "next_points", "spread_interval"]
