"""Parameter tuning: a seeded search for the strategy parameters that play best.

`wtsim tune` calls :func:`tune`. Each candidate is the starting strategy
with some numeric parameters changed; it sits at a table with the opponents
and plays the same game seeds as every other candidate (common random
numbers), seats rotated from game to game, so candidates are compared on
paired games and the luck of the deal cancels.

The search is a cross-entropy loop in the unit cube of the ranges: a first
generation drawn uniformly, then each generation drawn from a normal
distribution fitted to the best trials so far (the elite), clipped to the
ranges. The best few trials are then played again on fresh games, because
the best of many noisy estimates is biased upwards (winner's curse); the
winner is the best on the fresh games, reported with a paired bootstrap
interval of its gain over the starting parameters.

Everything derives from the seed: trial i of a run with seed S draws the
same parameters and plays the same games whatever the number of workers.

Both games tune the same way: the base spec's `game` says where the strategy
and its `defaults` come from (a Welcome To reference, or a name in another
game's registry, e.g. Shake That City's greedy with open, bonus, space...).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .analysis.stats import paired_bootstrap_ci
from .config import WELCOME_TO, PlayerConfig, RunSpec
from .games import game_module, load_game
from .rules.variant import VariantError
from .sim.runner import run_chunks
from .strategy import StrategySpec, load_strategy, resolve_params

OBJECTIVES = ("diff", "score", "winrate")
"""diff: own total minus the opponents' mean total; score: own total;
winrate: share of opponents finished ahead of (a tie counts half)."""

TUNED_PLAYER = "tuned"
SEARCH_STREAM = 0x74756E65
"""Mixed into the seed of the parameter draws so they are independent of the game seeds."""
FRESH_STREAM = 0x66726573
"""Mixed into the seed of the replay games."""
BOOTSTRAP_SEED = 0
SIGNIFICANT_DIGITS = 4
"""Sampled float values are rounded so that the written YAML is exactly what was played."""
MIN_SPREAD = 0.05
"""Smallest standard deviation (in units of the range) of a generation's draws."""


class TuneError(ValueError):
    """A tuning request that cannot be run, phrased as one line."""


# ------------------------------------------------------------------ ranges
@dataclass(frozen=True)
class ParamRange:
    """A parameter to tune: dotted key and bounds. Integer parameters (an int
    default) take integers; `log` draws uniformly in the logarithm."""

    key: str
    low: float
    high: float
    integer: bool = False
    log: bool = False

    def from_unit(self, u: float) -> int | float:
        """The parameter value at position u in [0, 1] of the range."""
        if self.log:
            value = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            value = self.low + u * (self.high - self.low)
        if self.integer:
            return int(min(self.high, max(self.low, round(value))))
        return min(self.high, max(self.low, float(f"{value:.{SIGNIFICANT_DIGITS}g}")))

    def to_unit(self, value: float) -> float:
        """Position of `value` in the range, clipped to [0, 1]."""
        if self.log:
            u = (math.log(max(value, 1e-300)) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        else:
            u = (value - self.low) / (self.high - self.low)
        return min(1.0, max(0.0, u))

    def describe(self) -> str:
        return f"{self.key}={self.low:g}:{self.high:g}" + (":log" if self.log else "")


def _lookup(params: dict[str, Any], dotted: str) -> Any:
    node: Any = params
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def numeric_keys(params: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted keys of every number (not bool) in a nested parameter mapping."""
    keys = []
    for key, value in params.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            keys.extend(numeric_keys(value, path + "."))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            keys.append(path)
    return keys


def _number(text: str, where: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise TuneError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise TuneError(f"{where}: {text!r} is not a finite number")
    return value


def parse_param_range(text: str, strategy: type) -> ParamRange:
    """'weights.points=0:2' (or '...=0.1:10:log') checked against the strategy's defaults."""
    where = f"--param {text!r}"
    key, sep, bounds = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise TuneError(f"{where}: expected KEY=LO:HI (e.g. weights.points=0:2)")
    known = numeric_keys(strategy.defaults)
    try:
        default = _lookup(strategy.defaults, key)
    except KeyError:
        raise TuneError(f"{where}: {strategy.name!r} has no parameter {key!r} "
                        f"(numeric parameters: {', '.join(known) or 'none'})") from None
    if key not in known:
        raise TuneError(f"{where}: {key!r} is not a numeric parameter of {strategy.name!r}")
    parts = [p.strip() for p in bounds.split(":")]
    log = len(parts) == 3 and parts[2] == "log"
    if len(parts) != 2 and not log:
        raise TuneError(f"{where}: expected LO:HI or LO:HI:log after '='")
    low, high = _number(parts[0], where), _number(parts[1], where)
    integer = isinstance(default, int)
    if integer and not (isinstance(low, int) and isinstance(high, int)):
        raise TuneError(f"{where}: {key!r} is an integer parameter; give integer bounds")
    if low >= high:
        raise TuneError(f"{where}: the low bound {low:g} must be below the high bound {high:g}")
    if log and low <= 0:
        raise TuneError(f"{where}: a log range needs a positive low bound, got {low:g}")
    return ParamRange(key, float(low), float(high), integer, log)


def parse_param_ranges(texts: Sequence[str], strategy: type) -> list[ParamRange]:
    """Every --param, each key at most once."""
    if not texts:
        raise TuneError("tune: give at least one --param KEY=LO:HI")
    ranges = [parse_param_range(text, strategy) for text in texts]
    keys = [r.key for r in ranges]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise TuneError(f"--param: {', '.join(repeated)} given more than once")
    return ranges


def with_values(params: dict[str, Any], ranges: Sequence[ParamRange], values: Sequence[Any]) -> dict[str, Any]:
    """A copy of `params` with each range's key set to its value."""
    out = copy.deepcopy(params)
    for spec, value in zip(ranges, values):
        *parents, leaf = spec.key.split(".")
        node = out
        for part in parents:
            node = node[part]
        node[leaf] = value
    return out


# ------------------------------------------------------------------ search
@dataclass
class Trial:
    """One evaluated parameter set: its values (in range order) and the
    objective of every game it played, in game order."""

    number: int
    generation: int
    values: tuple
    per_game: np.ndarray

    @property
    def objective(self) -> float:
        return float(self.per_game.mean())


class CrossEntropySearch:
    """Proposes parameter values generation by generation.

    Generation 1 is uniform over the ranges; later ones are normal around the
    mean of the elite (the best `elite` trials so far, the start included, in
    the unit cube) with
    the elite's spread, never narrower than MIN_SPREAD, clipped to the ranges.
    """

    def __init__(self, ranges: Sequence[ParamRange], seed: int, elite: int) -> None:
        self.ranges = list(ranges)
        self.rng = np.random.default_rng([SEARCH_STREAM, seed])
        self.elite = elite

    def propose(self, history: Sequence[Trial], count: int) -> list[tuple]:
        """`count` new value tuples given the trials evaluated so far."""
        dims = len(self.ranges)
        if not any(t.generation > 0 for t in history):
            units = self.rng.random((count, dims))
        else:
            best = sorted(history, key=lambda t: (-t.objective, t.number))[: self.elite]
            points = np.array([[r.to_unit(v) for r, v in zip(self.ranges, t.values)] for t in best])
            centre = points.mean(axis=0)
            spread = np.maximum(points.std(axis=0), MIN_SPREAD)
            units = np.clip(self.rng.normal(centre, spread, size=(count, dims)), 0.0, 1.0)
        return [tuple(r.from_unit(float(u)) for r, u in zip(self.ranges, row)) for row in units]


# ------------------------------------------------------------------- games
def strategy_class(ref: str, game: str = WELCOME_TO) -> type:
    """The class whose `defaults` the ranges are checked against: a Welcome To
    reference loaded, or a name looked up in `game`'s own strategy registry."""
    if game == WELCOME_TO:
        return load_strategy(ref)
    registry = game_module(game).STRATEGIES
    if ref not in registry:
        raise TuneError(f"tune: unknown {game} strategy {ref!r} (strategies: {', '.join(registry)})")
    return registry[ref]


def starting_params(cls: type, params: dict[str, Any], game: str = WELCOME_TO) -> dict[str, Any]:
    """The strategy's defaults overlaid with the start's parameters (checked by the strategy)."""
    if game == WELCOME_TO:
        return resolve_params(cls, params)
    try:
        return dict(cls(None, params).params)
    except (ValueError, TypeError) as exc:
        raise TuneError(f"tune: {exc}") from None


def check_table(base: RunSpec, seats: int) -> None:
    """A TuneError unless the variant of `base` seats the tuned strategy and its opponents."""
    try:
        if base.game == WELCOME_TO:
            base.variant.check(seats)
        else:
            load_game(base.game, base.game_params or {}, seats)
    except (VariantError, ValueError) as exc:
        raise TuneError(f"tune: {exc}") from None


def check_bounds(cls: type, params: dict[str, Any], ranges: Sequence[ParamRange]) -> None:
    """A TuneError when a strategy of another game refuses a range's bound
    (its `check_params`), so no worker fails in the middle of the search."""
    for spec in ranges:
        for bound in (spec.from_unit(0.0), spec.from_unit(1.0)):
            try:
                cls(None, with_values(params, [spec], [bound]))
            except (ValueError, TypeError) as exc:
                raise TuneError(f"--param {spec.describe()!r}: {exc}") from None


# ----------------------------------------------------------------- playing
def per_game_objective(columns: dict[str, list], objective: str) -> np.ndarray:
    """The objective of the tuned player in each game of a run's columns, in game order."""
    games = np.asarray(columns["game"])
    totals = np.asarray(columns["total"], dtype=float)
    ranks = np.asarray(columns["rank"], dtype=float)
    tuned = np.asarray(columns["player"]) == TUNED_PLAYER
    order = np.argsort(games[tuned], kind="stable")
    game_ids = games[tuned][order]
    own_total, own_rank = totals[tuned][order], ranks[tuned][order]
    if objective == "score":
        return own_total
    position = np.searchsorted(game_ids, games[~tuned])
    opponents = np.bincount(position, minlength=len(game_ids)).astype(float)
    if objective == "diff":
        other_total = np.bincount(position, weights=totals[~tuned], minlength=len(game_ids))
        return own_total - other_total / opponents
    beaten = (ranks[~tuned] > own_rank[position]) + 0.5 * (ranks[~tuned] == own_rank[position])
    return np.bincount(position, weights=beaten, minlength=len(game_ids)) / opponents


def table_spec(base: RunSpec, candidate: Any, opponents: Sequence[Any]) -> RunSpec:
    """The run of one candidate: the tuned seat first, then the opponents, seats rotated."""
    players = [PlayerConfig(TUNED_PLAYER, candidate)]
    players += [PlayerConfig("opponent" if i == 0 else f"opponent-{i + 1}", spec)
                for i, spec in enumerate(opponents)]
    return replace(base, players=tuple(players), rotate_seats=True)


def play_candidate(spec: RunSpec, objective: str,
                   progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The objective of the tuned seat in every game of `spec`, in game order,
    played by the runner (its workers, chunks and backend)."""
    columns, _seconds = run_chunks(
        spec, on_chunk=(lambda chunk: progress(chunk.stop - chunk.start)) if progress else None)
    per_game = per_game_objective(columns, objective)
    if len(per_game) != spec.games:
        raise TuneError(f"tune: {spec.games - len(per_game)} of {spec.games} games ended in a strategy "
                        "error; tuning compares every trial on every game")
    return per_game


def fresh_seed(seed: int) -> int:
    """The run seed of the replay games, derived from the search seed (so they share no game)."""
    return int(np.random.SeedSequence([FRESH_STREAM, seed]).generate_state(1, np.uint32)[0])


# ---------------------------------------------------------------- the tune
@dataclass
class TuneSettings:
    """What to tune and how hard to look."""

    ranges: list[ParamRange]
    objective: str = "diff"
    games: int = 100
    trials: int = 30
    population: int | None = None
    top: int = 3
    final_games: int | None = None

    def generation_size(self) -> int:
        return self.population or max(2, math.ceil(math.sqrt(self.trials)))

    def fresh_games(self) -> int:
        return self.final_games or 4 * self.games


@dataclass
class Finalist:
    """A trial replayed on the fresh games, and its gain over the start there."""

    trial: Trial
    fresh: np.ndarray
    gain: tuple[float, float, float]

    @property
    def objective(self) -> float:
        return float(self.fresh.mean())


@dataclass
class TuneResult:
    """A finished tune: every trial, the replayed ones, and the winner with its full parameters."""

    strategy: Any
    """A StrategySpec, or another game's strategy (ref and params)."""
    opponents: list[Any]
    settings: TuneSettings
    seed: int
    trials: list[Trial]
    finalists: list[Finalist]
    best: Finalist
    best_params: dict[str, Any]
    game: str = WELCOME_TO


def total_games(settings: TuneSettings) -> int:
    """Games a tune plays at most (repeated parameter values are not replayed)."""
    return (settings.trials + 1) * settings.games + (settings.top + 1) * settings.fresh_games()


def tune(base: RunSpec, strategy: Any, opponents: Sequence[Any],
         settings: TuneSettings, progress: Callable[[int], None] | None = None) -> TuneResult:
    """Search the ranges for the parameters of `strategy` that maximise the
    objective against `opponents` on the games of `base` (game, variant, seed,
    jobs; its players are ignored). Trial 0 is the starting parameters.
    `strategy` and `opponents` are StrategySpecs for Welcome To, or the seat
    strategies of `base.game` (see welcometo_sim.games.config)."""
    if settings.objective not in OBJECTIVES:
        raise TuneError(f"--objective: {settings.objective!r} is not one of {', '.join(OBJECTIVES)}")
    check_table(base, 1 + len(opponents))
    cls = strategy_class(strategy.ref, base.game)
    start_params = starting_params(cls, strategy.params, base.game)
    if base.game != WELCOME_TO:
        check_bounds(cls, start_params, settings.ranges)
    start_values = tuple(_lookup(start_params, r.key) for r in settings.ranges)

    search_games = replace(base, games=settings.games)
    fresh_games = replace(base, games=settings.fresh_games(), seed=fresh_seed(base.seed))
    played: dict[tuple, np.ndarray] = {}

    def evaluate(batch: list[tuple], games: RunSpec) -> list[np.ndarray]:
        """Each value tuple's per-game objective on `games`; a repeated tuple is not replayed."""
        for values in batch:
            if (values, games.seed) not in played:
                params = with_values(start_params, settings.ranges, values)
                spec = table_spec(games, type(strategy)(strategy.ref, params), opponents)
                played[(values, games.seed)] = play_candidate(spec, settings.objective, progress)
        return [played[(v, games.seed)] for v in batch]

    trials = [Trial(0, 0, start_values, evaluate([start_values], search_games)[0])]
    search = CrossEntropySearch(settings.ranges, base.seed,
                                elite=max(2, settings.generation_size() // 3))
    generation = 0
    while len(trials) <= settings.trials:
        generation += 1
        count = min(settings.generation_size(), settings.trials + 1 - len(trials))
        batch = search.propose(trials, count)
        for values, per_game in zip(batch, evaluate(batch, search_games)):
            trials.append(Trial(len(trials), generation, values, per_game))

    finalists = _replay_best(trials, settings, lambda batch: evaluate(batch, fresh_games))
    best = max(finalists, key=lambda f: (f.objective, -f.trial.number))
    return TuneResult(strategy, list(opponents), settings, base.seed, trials, finalists, best,
                      with_values(start_params, settings.ranges, best.trial.values), base.game)


def _replay_best(trials: list[Trial], settings: TuneSettings,
                 replay: Callable[[list[tuple]], list[np.ndarray]]) -> list[Finalist]:
    """The start and the `top` best distinct trials, replayed on fresh games."""
    ranked = sorted(trials[1:], key=lambda t: (-t.objective, t.number))
    chosen, seen = [trials[0]], {trials[0].values}
    for trial in ranked:
        if len(chosen) > settings.top:
            break
        if trial.values not in seen:
            chosen.append(trial)
            seen.add(trial.values)
    fresh = replay([t.values for t in chosen])
    return [Finalist(t, f, paired_bootstrap_ci(f - fresh[0], seed=BOOTSTRAP_SEED))
            for t, f in zip(chosen, fresh)]


# ------------------------------------------------------------------ output
def trials_table(result: TuneResult) -> pd.DataFrame:
    """One row per trial: generation, parameter values, objective and its
    95% bootstrap interval on the search games."""
    rows = []
    for trial in result.trials:
        mean, low, high = paired_bootstrap_ci(trial.per_game, seed=BOOTSTRAP_SEED)
        rows.append({"trial": trial.number, "generation": trial.generation,
                     **dict(zip([r.key for r in result.settings.ranges], trial.values)),
                     "objective": mean, "objective_low": low, "objective_high": high})
    return pd.DataFrame(rows).set_index("trial")


def finalists_table(result: TuneResult) -> pd.DataFrame:
    """The replayed trials: objective on the fresh games with its interval,
    and the paired gain over the start with its interval."""
    rows = []
    for finalist in result.finalists:
        mean, low, high = paired_bootstrap_ci(finalist.fresh, seed=BOOTSTRAP_SEED)
        gain, gain_low, gain_high = finalist.gain
        rows.append({"trial": finalist.trial.number,
                     **dict(zip([r.key for r in result.settings.ranges], finalist.trial.values)),
                     "objective": mean, "objective_low": low, "objective_high": high,
                     "vs_start": gain, "vs_start_low": gain_low, "vs_start_high": gain_high,
                     "best": finalist is result.best})
    return pd.DataFrame(rows).set_index("trial")


def _plain(value: Any) -> Any:
    """Numpy scalars and tuples as plain YAML values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _rounded_interval(name: str, estimate: tuple[float, float, float]) -> dict[str, float]:
    """An estimate and its interval as the fields `name`, `name_low`, `name_high`
    (the naming every table and document uses), to 4 decimals."""
    return {f"{name}{suffix}": round(float(value), 4) for suffix, value in zip(("", "_low", "_high"), estimate)}


def best_document(result: TuneResult, config: str) -> dict[str, Any]:
    """The YAML written by `wtsim tune`: `strategy` and `params` (what a config's
    player entry takes, directly or through `params_file`), and
    a `tuning` block saying how they were found (and, for another game, which)."""
    settings = result.settings
    mean, low, high = paired_bootstrap_ci(result.best.fresh, seed=BOOTSTRAP_SEED)
    gain, gain_low, gain_high = result.best.gain
    game = {} if result.game == WELCOME_TO else {"game": result.game}
    return _plain({
        "strategy": result.strategy.ref,
        "params": result.best_params,
        "tuning": {
            **game,
            "objective": settings.objective,
            "opponents": [spec_label(s) for s in result.opponents],
            "config": config,
            "seed": result.seed,
            "games": settings.games,
            "trials": settings.trials,
            "fresh_games": settings.fresh_games(),
            "ranges": [r.describe() for r in settings.ranges],
            "start": spec_label(result.strategy),
            "best_trial": result.best.trial.number,
            **_rounded_interval("fresh_objective", (mean, low, high)),
            **_rounded_interval("gain_over_start", (gain, gain_low, gain_high)),
        },
    })


def spec_label(spec: StrategySpec) -> str:
    """A strategy as it would be written on the command line."""
    flat = []

    def walk(node: dict, prefix: str) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}{key}.")
            else:
                flat.append(f"{prefix}{key}={value}")

    walk(spec.params, "")
    return spec.ref + (":" + ",".join(flat) if flat else "")


__all__ = ["OBJECTIVES", "TuneError", "ParamRange", "parse_param_range", "parse_param_ranges",
           "CrossEntropySearch", "Trial", "TuneSettings", "TuneResult", "Finalist", "tune",
           "per_game_objective", "play_candidate", "fresh_seed", "trials_table", "finalists_table",
           "best_document", "total_games", "numeric_keys", "with_values", "spec_label", "strategy_class",
           "starting_params", "check_table", "check_bounds"]
