"""Sequential comparison: play until the evidence decides, at stated error rates.

A fixed number of games is either wasteful (a big difference is clear after
a hundred games) or too few (a small one needs thousands). A sequential
probability ratio test (SPRT, Wald 1945; chess engines are tested this way)
looks at the games after every batch and stops as soon as they decide.

The data are the paired score differences d = total(A) − total(B), one per
game (both players saw the same cards). Two one-sided SPRTs run side by
side on a normal model with the variance estimated from the games so far:

- "A better": H0 μ = 0 against H1 μ = +effect,
- "B better": H0 μ = 0 against H1 μ = −effect.

Each has the log-likelihood ratio
``LLR± = ±(effect / s²) · (Σd ∓ n·effect/2)`` and Wald's bounds
``upper = log((1 − β) / (α/2))``, ``lower = log(β / (1 − α/2))``. A side whose
LLR reaches `upper` declares its player better; when both LLRs are at or
below `lower` the verdict is "no difference" (any difference is smaller than
`effect`). So the chance of declaring a difference between equal players is
at most about α (α/2 per side), and the chance of missing a true difference
of `effect` points is about β. `tests/test_sequential.py` checks both rates
on simulated differences over many seeds. Without a verdict by `max_games`
the test stops "undecided".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

VARIANCE_FLOOR = 1e-6
"""Smallest variance used (games with identical totals would otherwise divide by 0)."""
NO_DIFFERENCE = "no difference"
UNDECIDED = "undecided"


class SequentialError(ValueError):
    """Settings of a sequential test that cannot be run, as one line."""


@dataclass(frozen=True)
class SprtSettings:
    """The error rates, the smallest difference that matters, and how games are played."""

    alpha: float = 0.05
    """Chance of declaring a difference between equal players (both directions together)."""
    beta: float = 0.05
    """Chance of "no difference" when the true difference is `effect` points."""
    effect: float = 3.0
    """The difference in points per game the test is built to detect."""
    batch: int = 100
    """Games between two looks."""
    max_games: int = 5000
    """Games after which the test stops undecided."""

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise SequentialError(f"--{name} {value}: must be between 0 and 0.5")
        if not (self.effect > 0 and math.isfinite(self.effect)):
            raise SequentialError(f"--effect {self.effect}: must be a positive number of points")
        if self.batch < 2:
            raise SequentialError(f"--batch {self.batch}: must be at least 2 games")
        if self.max_games < self.batch:
            raise SequentialError(f"--max-games {self.max_games}: must be at least --batch ({self.batch})")

    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) bounds on each side's log-likelihood ratio."""
        return (math.log(self.beta / (1 - self.alpha / 2)), math.log((1 - self.beta) / (self.alpha / 2)))


@dataclass(frozen=True)
class Look:
    """The test after one batch."""

    games: int
    mean: float
    sd: float
    llr_a: float
    llr_b: float


@dataclass
class SequentialResult:
    """The verdict ("A better", "B better", "no difference" or "undecided"),
    the games it took, and every look on the way."""

    verdict: str
    games: int
    looks: list[Look] = field(default_factory=list)
    differences: np.ndarray = field(default_factory=lambda: np.zeros(0))


def log_likelihood_ratios(n: int, total: float, variance: float, effect: float) -> tuple[float, float]:
    """(LLR of "A better by `effect`" against "equal", the same for B) after
    `n` differences summing to `total`, on a normal model of the given variance."""
    variance = max(variance, VARIANCE_FLOOR)
    half = n * effect / 2
    return (effect / variance * (total - half), -effect / variance * (total + half))


def decide(llr_a: float, llr_b: float, settings: SprtSettings, a: str = "A", b: str = "B") -> str | None:
    """The verdict the two ratios reach, or None to play on."""
    lower, upper = settings.bounds()
    if llr_a >= upper:
        return f"{a} better"
    if llr_b >= upper:
        return f"{b} better"
    if llr_a <= lower and llr_b <= lower:
        return NO_DIFFERENCE
    return None


def run_sequential(next_batch: Callable[[int, int], np.ndarray], settings: SprtSettings,
                   a: str = "A", b: str = "B") -> SequentialResult:
    """Ask `next_batch(batch_number, games)` for paired differences batch after
    batch until the test decides or `max_games` are played."""
    differences = np.zeros(0)
    looks: list[Look] = []
    number = 0
    while len(differences) < settings.max_games:
        size = min(settings.batch, settings.max_games - len(differences))
        differences = np.concatenate([differences, np.asarray(next_batch(number, size), dtype=float)])
        number += 1
        n = len(differences)
        variance = float(differences.var(ddof=1)) if n > 1 else 0.0
        llr_a, llr_b = log_likelihood_ratios(n, float(differences.sum()), variance, settings.effect)
        looks.append(Look(n, float(differences.mean()), math.sqrt(variance), llr_a, llr_b))
        verdict = decide(llr_a, llr_b, settings, a, b)
        if verdict is not None:
            return SequentialResult(verdict, n, looks, differences)
    return SequentialResult(UNDECIDED, len(differences), looks, differences)


def batch_seed(seed: int, number: int) -> int:
    """The run seed of batch `number`: the command's seed for the first, then
    independent fresh seeds, so no two batches play the same games."""
    if number == 0:
        return seed
    return int(np.random.SeedSequence([0x73707274, seed, number]).generate_state(1, np.uint32)[0])


__all__ = ["SprtSettings", "SequentialError", "SequentialResult", "Look", "log_likelihood_ratios", "decide",
           "run_sequential", "batch_seed", "NO_DIFFERENCE", "UNDECIDED"]
