"""The analyses of `wtsim` as Python functions: compare, plans, sweep, tune, balance.

Each returns pandas DataFrames (a small dataclass of named frames when the
command prints several tables) and is what the command line calls, so a
notebook gets the numbers the commands print::

    import welcometo_sim
    result = welcometo_sim.compare(["greedy", "random"], games=200, seed=1)
    result.tables["pairs"]

A config is a path, a dict in the YAML schema (checked like a file, with the
same one-line ConfigError), a RunSpec, or None for the bundled base config.
`progress` is a callable(done, total) told of the games finished (first
with done 0), or True for a notebook-friendly tqdm bar.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from .analysis.balance import BalanceResult, BalanceSettings, balanced_document, confirmation_table, rounds_table
from .analysis.balance import balance as balance_search
from .analysis.balance import total_games as balance_games
from .analysis.plan_balance import plan_balance_table, skill_tables
from .analysis.sequential import SprtSettings, batch_seed, run_sequential
from .analysis.sweep import grid, sweep as sweep_grid
from .compiled_core import engine
from .config import WELCOME_TO, ConfigError, RunSpec, parse_config, players_from_refs
from .defaults import diverse, every_seat
from .games.config import game_players
from .games.objectives import NoObjectives, Objectives, check_decks, objectives_of
from .games.tables import comparison_tables
from .sim.results import read_table, to_frame
from .sim.runner import run_chunks
from .sim.tournament import round_robin, total_games
from .specs import DICT_SOURCE, Config, Progress, load_spec, resolve_spec, ticking
from .strategy import StrategySpec, parse_strategy
from .tuning import (TuneResult, TuneSettings, best_document, finalists_table, parse_param_ranges,
                     strategy_class, trials_table)
from .tuning import total_games as tune_games
from .tuning import tune as tune_search

BOOTSTRAP_SEED = 0
"""Fixed, so that the same games always give the same intervals, fresh or reloaded."""


def seated(spec: RunSpec, ref: str | None) -> RunSpec:
    """The spec with every seat playing `ref` (when given), each strategy that
    fills several seats exploring (see `welcometo_sim.defaults`)."""
    players = every_seat(spec.players, ref, spec.game) if ref else spec.players
    return replace(spec, players=diverse(players))


# ------------------------------------------------------------------ compare
@dataclass
class Sequential:
    """How a sequential compare of `a` against `b` ended: its settings, the
    verdict ("A better", "B better", "no difference" or "undecided"), the
    games it took, and one row per look (index games; mean, sd, llr_a, llr_b)."""

    a: str
    b: str
    settings: SprtSettings
    verdict: str
    games: int
    looks: pd.DataFrame


@dataclass
class Comparison:
    """What `compare` returns: `frame`, the result table of every game played
    (RECORDS.md §2, with `match`, and `batch` when sequential); `tables`, the
    tables `wtsim compare` prints, by name: `win_rates` (row player's win
    rate against each column player X as numbers X, X_low, X_high; NA
    against itself), `pairs` (each pair's games, a_win_rate with
    a_win_rate_low/a_win_rate_high, mean_diff with mean_diff_low/
    mean_diff_high, verdict), `ratings` (Bradley–Terry rating with
    rating_low/rating_high, rating_se, strength, comparisons as integers,
    fit) and `breakdown` (mean of each score category); `sequential` with
    `until_significant`. Every 95% interval is X, X_low, X_high."""

    frame: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    seed: int | None
    table: bool = False
    sequential: Sequential | None = None

    def meta(self) -> dict[str, Any]:
        """What `compare --out` writes as analysis.json."""
        meta: dict[str, Any] = {"command": "compare", "seed": self.seed, "table": self.table}
        if self.sequential is not None:
            meta["sequential"] = {**vars(self.sequential.settings), "verdict": self.sequential.verdict,
                                  "games": self.sequential.games}
        return meta


def compare(strategies: Sequence[str] | None = None, *, config: Config = None, games: int | None = None,
            seed: int | None = None, jobs: int | None = None, table: bool = False,
            results: str | None = None, until_significant: bool = False, alpha: float = SprtSettings.alpha,
            beta: float = SprtSettings.beta, effect: float = SprtSettings.effect,
            batch: int = SprtSettings.batch, max_games: int = SprtSettings.max_games,
            progress: Progress = None) -> Comparison:
    """Compare strategies (the config's players when none are named): every
    pair plays `games` games with rotated seats on the same seeds (with
    `table`, all at one table), so differences are paired; `results` reads a
    saved folder instead. With `until_significant` two strategies play
    `batch` games at a time until an SPRT decides (see
    `welcometo_sim.analysis.sequential`); the progress total is then
    `max_games` and the count stops where the test did."""
    if until_significant:
        for given, name in ((games, "games (use batch and max_games)"), (table or None, "table"),
                            (results, "results")):
            if given is not None:
                raise ConfigError(f"compare until_significant: {name} does not apply")
        settings = SprtSettings(alpha=alpha, beta=beta, effect=effect, batch=batch, max_games=max_games)
        spec = resolve_spec(load_spec(config, players=strategies or None), seed=seed, jobs=jobs)
        return _sequential_compare(spec, settings, progress)
    if results:
        frame, seed = read_table(results), None
    else:
        spec = resolve_spec(load_spec(config, players=strategies or None), games=games, seed=seed, jobs=jobs)
        if len(spec.players) < 2:
            raise ConfigError("compare: name at least two strategies")
        seed = spec.seed
        with ticking(total_games(spec, table), progress) as step:
            frame = round_robin(spec, table, step)
    return Comparison(frame, comparison_tables(frame, seed=BOOTSTRAP_SEED), seed, table)


def _sequential_compare(spec: RunSpec, settings: SprtSettings, progress: Progress) -> Comparison:
    """Play batches until the SPRT decides: the looks, the verdict and the
    comparison tables of every game played."""
    if len(spec.players) != 2:
        raise ConfigError(f"compare --until-significant: name exactly two strategies, got {len(spec.players)}")
    spec = replace(spec, players=diverse(spec.players))  # another game's strategies are left as given
    a, b = (p.name for p in spec.players)
    frames: list[pd.DataFrame] = []

    def play(step: Callable[[int], None] | None):
        def next_batch(number: int, size: int) -> np.ndarray:
            part = replace(spec, games=size, seed=batch_seed(spec.seed, number))
            frame = round_robin(part, False, step)
            frame["game"] += sum(done["game"].nunique() for done in frames)
            frame.insert(1, "batch", number)
            frames.append(frame)
            totals = frame.pivot(index="game", columns="player", values="total")
            return (totals[a] - totals[b]).dropna().to_numpy(dtype=float)  # games lost to on_error: skip
        return run_sequential(next_batch, settings, a, b)

    with ticking(settings.max_games, progress) as step:
        result = play(step)
    frame = pd.concat(frames, ignore_index=True)
    looks = pd.DataFrame([vars(look) for look in result.looks]).set_index("games")
    tables = comparison_tables(frame, seed=BOOTSTRAP_SEED)
    return Comparison(frame, tables, spec.seed, False, Sequential(a, b, settings, result.verdict, result.games, looks))


# -------------------------------------------------------------------- plans
@dataclass
class PlanStudy:
    """What `plans` returns: `trials`, one row per seat and game (the result
    table with `forced_plan`, and `skill` in a skill trace); `plans`, one row
    per plan with its measures and 95% intervals (of the strongest skill
    level in a skill trace; the plan's values as high_points and low_points,
    `outlier` NA for a plan that is none); `skill`, the skill-trace tables by name (empty
    without `strategies`); `levels`, the skill levels, weakest first."""

    trials: pd.DataFrame
    plans: pd.DataFrame
    skill: dict[str, pd.DataFrame] = field(default_factory=dict)
    levels: list[str] = field(default_factory=list)
    seed: int | None = None
    races: bool = True
    """Whether the objectives have high and low values (plans do, bonus tiles do not)."""

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by the name `plans --out` writes it under."""
        return {"plans": self.plans, **{name.replace(" ", "_"): t for name, t in self.skill.items()}}


def plans(config: Config = None, *, games_per_plan: int = 200, seed: int | None = None,
          jobs: int | None = None, decks: Sequence[int] | None = None, strategy: str | None = None,
          strategies: Sequence[str] | None = None, results: str | None = None,
          progress: Progress = None) -> PlanStudy:
    """Objective balance (Welcome To's city plans, Shake That City's bonus
    tiles, ...: see welcometo_sim.games.objectives): force each objective of
    the config's `decks` (default all) into `games_per_plan` games on the same
    seeds (a plan into its deck slot, the other two drawn at random);
    `strategy` fills every seat, `strategies` (weakest first) plays the whole
    study once per skill level; `results` reads a saved folder."""
    spec = resolve_spec(load_spec(config), seed=seed, jobs=jobs)
    goals = game_objectives(spec, "plans")
    levels = skill_levels(strategies, strategy, spec.game)
    chosen = _decks(goals, spec, decks or ())
    if results:
        trials = read_table(results)
        if "forced_plan" not in trials.columns:
            raise ConfigError(f"{results}: not a `wtsim plans` results folder (no forced_plan column)")
        levels = list(dict.fromkeys(trials["skill"])) if "skill" in trials.columns else []
    else:
        trials = _play_plans(goals, spec, games_per_plan, chosen, strategy, levels, progress)
    catalog = goals.catalogue(spec)
    unknown = sorted(set(trials["forced_plan"]) - set(catalog))
    if unknown:
        raise ConfigError(f"plans: {', '.join(unknown)} not in the config's variant")
    strongest = trials[trials["skill"] == levels[-1]] if levels else trials
    skill = skill_tables(trials, catalog, levels, goals.outcome) if levels else {}
    return PlanStudy(trials, plan_balance_table(strongest, catalog, goals.outcome), skill, levels, spec.seed,
                     goals.races)


def game_objectives(spec: RunSpec, command: str) -> Objectives:
    """The objectives of the config's game; a ConfigError in one line when it has none."""
    try:
        return objectives_of(spec.game)
    except NoObjectives as exc:
        raise ConfigError(f"{spec.source}: game: wtsim {command}: {exc}") from None


def _decks(goals: Objectives, spec: RunSpec, decks: Sequence[int]) -> tuple[int, ...]:
    """The decks asked for (all when none), checked against the config's."""
    try:
        return check_decks(goals, spec, decks)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def skill_levels(strategies: Sequence[str] | str | None, strategy: str | None,
                 game: str = WELCOME_TO) -> list[str]:
    """The strategy references of a skill trace, checked as strategies of
    `game` (none without it); a string is split at commas, as `--strategies A,B` is."""
    if strategies is None:
        return []
    if strategy:
        raise ConfigError("plans: --strategy and --strategies exclude each other")
    given = strategies.split(",") if isinstance(strategies, str) else list(strategies)
    levels = [ref.strip() for ref in given if ref.strip()]
    if len(levels) < 2 or len(set(levels)) < len(levels):
        shown = strategies if isinstance(strategies, str) else ",".join(given)
        raise ConfigError(f"--strategies {shown}: name at least two different strategies, weakest first")
    players_from_refs(levels, game)
    return levels


def _play_plans(goals: Objectives, spec: RunSpec, games_per_plan: int, decks: tuple[int, ...],
                strategy: str | None, levels: list[str], progress: Progress) -> pd.DataFrame:
    """The objective trials: once with the seated players, or once per skill
    level (same seeds) with a `skill` column."""
    specs = [(level, seated(spec, level)) for level in levels] or [(None, seated(spec, strategy))]
    count = goals.trial_games(spec, games_per_plan, decks) * len(specs)
    frames = []
    with ticking(count, progress) as step:
        for level, each in specs:
            frame = goals.trials(each, games_per_plan, decks, step)
            if level is not None:
                frame.insert(0, "skill", level)
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


# -------------------------------------------------------------------- sweep
def sweep(config: Config = None, settings: Sequence[str] = (), *, games: int | None = None,
          seed: int | None = None, jobs: int | None = None, strategy: str | None = None,
          progress: Progress = None) -> pd.DataFrame:
    """Run a grid of what-if changes (`settings`, each "KEY=V1,V2") to the
    config and compare every grid point with the first, on the same seeds.

    Returns the long table of `wtsim sweep --csv`: one row per grid point and
    measure, columns: the set keys (values as JSON), point, measure, kind,
    value with value_low/value_high (95% interval), diff with diff_low/diff_high
    (paired, against point 0) and change (NA when there is nothing to compare). `table.attrs["facts"]` holds how the sweep
    was run (what `--json` and analysis.json say besides the rows)."""
    spec = seated(load_spec(config), strategy)
    where = config_label(config)
    base = spec.to_dict()
    base.update({k: v for k, v in {"games": games, "seed": seed, "jobs": jobs}.items() if v is not None})
    base["name"] = "sweep"
    settings = list(settings)
    configs = [point for _chosen, point in grid(base, settings)]
    total = sum(int(point.get("games") or 0) for point in configs)
    with ticking(total, progress) as step:
        table = sweep_grid(base, settings, _point_runner(where, step))
    table.attrs["facts"] = sweep_facts(base, settings, len(configs))
    return table


def _point_runner(where: str, step: Callable[[int], None] | None) -> Callable[[dict], pd.DataFrame]:
    """The function that plays one grid point's games in memory, ticking the bar."""
    def run(point: dict) -> pd.DataFrame:
        spec = parse_config(point, where=where)
        on_chunk = None if step is None else (lambda chunk: step(chunk.stop - chunk.start))
        columns, _seconds = run_chunks(spec, on_chunk=on_chunk)
        return to_frame(columns)
    return run


def sweep_facts(base: dict, settings: Sequence[str], points: int) -> dict[str, Any]:
    """What a sweep's document and analysis.json say about how it was run."""
    players = [_player_ref(p) for p in base.get("players") or []]
    return {"command": "sweep", "settings": list(settings), "grid_points": points, "games": base.get("games"),
            "seed": base.get("seed"), "players": players, "engine": engine(), "version": _version()}


def _player_ref(player: Any) -> str:
    """A config's player entry as 'name = strategy:key=value,...' (just the
    strategy when it is also the name)."""
    if isinstance(player, str):
        return player
    params = ",".join(f"{k}={json.dumps(v)}" for k, v in _flat(player.get("params") or {}))
    ref = str(player.get("strategy")) + (f":{params}" if params else "")
    name = str(player.get("name") or ref)
    return ref if name == ref else f"{name} = {ref}"


def _flat(params: dict, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in params.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _version() -> str:
    try:
        return version("welcometo-sim")
    except PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------- tune
def config_label(config: Config) -> str:
    """How a result file names the config it came from."""
    if isinstance(config, (str, os.PathLike)):
        return os.fspath(config)
    if isinstance(config, RunSpec):
        return config.source
    return DICT_SOURCE if isinstance(config, Mapping) else "<bundled base config>"


@dataclass
class Tuning:
    """What `tune` returns: `trials`, one row per trial (generation, the
    parameter values, objective with objective_low/objective_high on the
    search games); `finalists`, the best trials and the start replayed on
    fresh games (objective with its bounds, vs_start with vs_start_low/
    vs_start_high, and `best`, True for the best); `best`,
    the YAML document `wtsim tune` writes (strategy, params, tuning);
    `result`, the search itself."""

    trials: pd.DataFrame
    finalists: pd.DataFrame
    best: dict[str, Any]
    result: TuneResult


def tune(strategy: str, params: Sequence[str] | Mapping[str, str], *, objective: str = "diff",
         opponents: Sequence[str] = (), config: Config = None, games: int = 100, trials: int = 30,
         population: int | None = None, top: int = 3, final_games: int | None = None,
         seed: int | None = None, jobs: int | None = None, progress: Progress = None) -> Tuning:
    """Search the parameters of `strategy` (a reference; its parameters are
    trial 0) that play best against `opponents` (default: the strategy with
    its defaults). `params` are ranges, "KEY=LO:HI[:log]" strings or a
    {key: "LO:HI"} mapping. Every trial plays the same `games` seeds; the
    `top` best are replayed on fresh games. The config's game (Welcome To or
    e.g. Shake That City) says whose strategies the names are. Raises
    TuneError on bad ranges."""
    base = resolve_spec(load_spec(config), seed=seed, jobs=jobs)
    start, opponent_specs = _tune_table(base.game, strategy, opponents)
    cls = strategy_class(start.ref, base.game)
    texts = [f"{k}={v}" for k, v in params.items()] if isinstance(params, Mapping) else list(params)
    settings = TuneSettings(parse_param_ranges(texts, cls), objective, games, trials, population, top, final_games)
    with ticking(tune_games(settings), progress) as step:
        result = tune_search(base, start, opponent_specs, settings, step)
    document = best_document(result, config_label(config))
    return Tuning(trials_table(result), finalists_table(result), document, result)


def _tune_table(game: str, strategy: str, opponents: Sequence[str]) -> tuple[Any, list[Any]]:
    """The start and the opponents (default: the start's strategy with its
    defaults), resolved as strategies of `game`."""
    if game == WELCOME_TO:
        start = parse_strategy(strategy)
        return start, [parse_strategy(o) for o in opponents] or [StrategySpec(start.ref, {})]
    start = game_players(game, [strategy], "tune")[0].strategy
    refs = list(opponents) or [start.ref]
    return start, [p.strategy for p in game_players(game, refs, "tune --opponent")]


# ------------------------------------------------------------------ balance
@dataclass
class Balancing:
    """What `balance` returns: `rounds`, one row per search round (spread,
    then for each plan P the numbers P.high_points, P.low_points and P.worth,
    its points per player-game); `confirmation`, the best round and the start
    replayed on fresh games (per plan and the spread: high_points_before,
    low_points_before, before with before_low/before_high, the same after;
    NA values on the spread row); `config`, the balanced config
    `wtsim balance` writes (with its `overrides:` block); `result`, the
    search, and `settings`, how hard it looked; `races`, whether the
    objectives have high and low values (a bonus tile has one)."""

    rounds: pd.DataFrame
    confirmation: pd.DataFrame
    config: dict[str, Any]
    result: BalanceResult
    settings: BalanceSettings
    races: bool = True


def balance(config: Config = None, *, deck: int, games: int = 100, rounds: int = 4, tolerance: float = 0.5,
            final_games: int | None = None, strategy: str | None = None, seed: int | None = None,
            jobs: int | None = None, progress: Progress = None) -> Balancing:
    """Search point values that make every objective of `deck` (a plan deck;
    Shake That City's deck 1, its bonus tiles) worth the same points per
    player-game: each round plays every objective of the deck on the same
    seeds and scales each one's values towards the deck's average; the best
    round is replayed on fresh seeds next to the start. Raises BalanceError
    on settings it cannot use."""
    loaded = resolve_spec(load_spec(config), seed=seed, jobs=jobs)
    goals = game_objectives(loaded, "balance")
    spec = seated(loaded, strategy)
    settings = BalanceSettings(deck, games, rounds, tolerance, final_games)
    with ticking(balance_games(spec, settings), progress) as step:
        result = balance_search(spec, settings, step)
    measured = replace(loaded, players=every_seat(loaded.players, strategy, loaded.game)) if strategy else loaded
    return Balancing(rounds_table(result), confirmation_table(result),
                     balanced_document(measured.to_dict(), result), result, settings, goals.races)


__all__ = ["Balancing", "Comparison", "PlanStudy", "Sequential", "Tuning", "balance", "compare", "load_spec",
           "plans", "sweep", "tune"]
