"""The strategy ladder: strength and decision time of every built-in strategy.

    python benchmarks/bench_ladder.py                          # every built-in, 200 games
    python benchmarks/bench_ladder.py --games 2000 --seed 1 --jobs 2
    python benchmarks/bench_ladder.py --strategies random,greedy --games 50 --csv

For each strategy, on base games:

- 2 players: a round robin of every pair, `--games` games per pair, seats
  rotated and the same seeds for every pair: mean score with its 95%
  bootstrap interval, win rate with its Wilson interval (a tie counts half),
  and the paired mean score difference against `--reference` (default greedy);
- 4 players: every table of four different strategies (with fewer than four
  strategies, one table filled with copies of the reference), `--games`
  games per table on the same seeds, seats rotated: mean score and win rate
  over all of a strategy's tables (a win shared by k players counts 1/k);
- decision time: `--timing-games` four-player games of four copies of the
  strategy, played in this process on one core: CPU milliseconds (process
  time, so other work on the machine does not inflate it) spent in the
  strategy's hooks per move (one seat's turn) and seconds per game, as a
  Python strategy is asked (`ms/move`); and the same games played as a run
  plays them (`ms/move run`: the whole game's CPU time per move, natively
  for the built-ins the native core plays, start to scores).

Results (not timings) are the same for any `--jobs`.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from itertools import combinations
from typing import Any

import pandas as pd

from welcometo_sim.strategies import BUILTIN
from welcometo_sim.analysis.stats import compare_pair, paired_bootstrap_ci, wilson_interval
from welcometo_sim.api import resolve_spec
from welcometo_sim.config import PlayerConfig, RunSpec
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.sim.runner import game_seed
from welcometo_sim.sim.tournament import round_robin
from welcometo_sim.strategy import StrategyLoadError, parse_strategy

BOOTSTRAP_SEED = 0
TABLE_SIZE = 4


# ------------------------------------------------------------------ strength
def win_shares(frame: pd.DataFrame) -> pd.Series:
    """Per row: 1/k when the player is one of k players ranked first, else 0."""
    keys = ["match", "game"] if "match" in frame.columns else ["game"]
    first = frame["rank"] == 1
    sharing = first.groupby([frame[k] for k in keys]).transform("sum")
    return first / sharing.where(sharing > 0, 1)


def player_summary(frame: pd.DataFrame, player: str) -> dict[str, float]:
    """Mean score (bootstrap 95% interval) and win rate (Wilson 95%) of one player."""
    rows = frame["player"] == player
    totals = frame.loc[rows, "total"].to_numpy(dtype=float)
    mean, low, high = paired_bootstrap_ci(totals, seed=BOOTSTRAP_SEED)
    wins = float(win_shares(frame)[rows].sum())
    win_low, win_high = wilson_interval(wins, len(totals))
    return {"games": len(totals), "mean": mean, "low": low, "high": high,
            "win_rate": wins / len(totals), "win_low": win_low, "win_high": win_high}


def two_player_ladder(spec: RunSpec, names: list[str], reference: str | None) -> dict[str, dict]:
    """Round robin of every pair; per strategy its summary and the paired
    difference against the reference."""
    frame = round_robin(replace(spec, players=tuple(PlayerConfig(n, parse_strategy(n)) for n in names)))
    ladder = {name: player_summary(frame, name) for name in names}
    if reference is None:
        return ladder
    for name in names:
        if name == reference:
            continue
        pair = frame[frame["match"].isin(frame.loc[frame["player"] == name, "match"])
                     & frame["match"].isin(frame.loc[frame["player"] == reference, "match"])]
        against = player_summary(pair, name)
        result = compare_pair(pair, name, reference, seed=BOOTSTRAP_SEED)
        ladder[name].update(ref_mean=against["mean"], ref_low=against["low"], ref_high=against["high"],
                            vs_ref=result["mean_diff"], vs_low=result["diff_low"], vs_high=result["diff_high"])
    return ladder


def four_player_tables(names: list[str], reference: str) -> list[tuple[PlayerConfig, ...]]:
    """Every table of four different strategies; with fewer than four, one
    table filled up with copies of the reference."""
    players = {name: PlayerConfig(name, parse_strategy(name)) for name in names}
    if len(names) >= TABLE_SIZE:
        return [tuple(players[n] for n in table) for table in combinations(names, TABLE_SIZE)]
    fill = [PlayerConfig(f"{reference}-copy-{i}", parse_strategy(reference))
            for i in range(1, TABLE_SIZE - len(names) + 1)]
    return [(*players.values(), *fill)]


def four_player_ladder(spec: RunSpec, names: list[str], reference: str) -> dict[str, dict]:
    """Every table of four plays the same seeds, seats rotated; each strategy's
    summary over all its tables (copies filling a table are not summarised)."""
    frames = []
    for number, table in enumerate(four_player_tables(names, reference)):
        frame = round_robin(replace(spec, players=table), table=True)
        frame["match"] = number
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    return {name: player_summary(frame, name) for name in names}


# -------------------------------------------------------------- decision time
class TimedStrategy:
    """Delegates to a strategy and adds the time spent in its `choose_*` hooks to a clock."""

    def __init__(self, inner: Any, clock: list[float]) -> None:
        self._inner = inner
        self._clock = clock

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not name.startswith("choose_") or not callable(attribute):
            return attribute

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return attribute(*args, **kwargs)
            finally:
                self._clock[0] += time.process_time() - started

        return timed


def decision_time(spec: RunSpec, name: str, games: int) -> dict[str, float]:
    """CPU milliseconds in the hooks per move, and CPU seconds per four-player game,
    over `games` games of four copies of the strategy (in this process)."""
    strategy = parse_strategy(name)
    clock = [0.0]

    def factory(rng) -> TimedStrategy:
        return TimedStrategy(strategy(rng), clock)

    seats = [Seat(f"{name}-{i}", name, factory) for i in range(TABLE_SIZE)]
    moves, cpu = 0, 0.0
    for index in range(games):
        started = time.process_time()
        result = Game(spec.rules.variant, seats, game_seed(spec.seed, index), spec.rules.plans).play()
        cpu += time.process_time() - started
        moves += result.turns * TABLE_SIZE
    plain = [Seat(f"{name}-{i}", name, strategy) for i in range(TABLE_SIZE)]  # untimed: natively when it can
    run_cpu = 0.0
    for index in range(games):
        started = time.process_time()
        Game(spec.rules.variant, plain, game_seed(spec.seed, index), spec.rules.plans).play()
        run_cpu += time.process_time() - started
    return {"ms_per_move": 1000.0 * clock[0] / moves, "s_per_game": cpu / games,
            "run_ms_per_move": 1000.0 * run_cpu / moves}


# -------------------------------------------------------------------- output
def interval(mean: float, low: float, high: float, digits: int) -> str:
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def ladder_table(names: list[str], two: dict, four: dict, timing: dict, reference: str | None) -> pd.DataFrame:
    """One row per strategy, best 2-player round-robin win rate first. Each
    strength cell is 'mean [95% interval]'."""
    rows = []
    for name in names:
        t, f = two[name], four[name]
        row = {
            "strategy": name,
            "2p score": interval(t["mean"], t["low"], t["high"], 1),
            "2p win": interval(t["win_rate"], t["win_low"], t["win_high"], 3),
        }
        if reference is not None:
            against = "vs_ref" in t
            row[f"2p score vs {reference}"] = interval(t["ref_mean"], t["ref_low"], t["ref_high"], 1) if against else "-"
            row[f"2p diff vs {reference}"] = interval(t["vs_ref"], t["vs_low"], t["vs_high"], 1) if against else "-"
        row.update({
            "4p score": interval(f["mean"], f["low"], f["high"], 1),
            "4p win": interval(f["win_rate"], f["win_low"], f["win_high"], 3),
            "ms/move": round(timing[name]["ms_per_move"], 3),
            "ms/move run": round(timing[name]["run_ms_per_move"], 3),
            "s/4p game": round(timing[name]["s_per_game"], 3),
            "_order": -t["win_rate"],
        })
        rows.append(row)
    table = pd.DataFrame(rows).sort_values("_order", kind="stable").drop(columns="_order")
    return table.set_index("strategy")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair (2p) and per table (4p)")
    parser.add_argument("--seed", type=int, default=1, help="run seed: every pair and table plays the same seeds")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the strength games; -1 = every core")
    parser.add_argument("--strategies", help="comma-separated strategies (default: every built-in)")
    parser.add_argument("--reference", default="greedy", help="the 2p score and difference are against it")
    parser.add_argument("--timing-games", type=int, default=3, help="4-player games timed per strategy (one core)")
    parser.add_argument("--csv", action="store_true", help="print the table as CSV")
    args = parser.parse_args(argv)
    if args.games < 1 or args.timing_games < 1 or args.jobs == 0 or args.seed < 0:
        parser.error("--games and --timing-games must be at least 1, --seed at least 0, --jobs not 0")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    names = [n.strip() for n in args.strategies.split(",")] if args.strategies else list(BUILTIN)
    try:
        for name in {*names, args.reference}:
            parse_strategy(name)
    except StrategyLoadError as exc:
        sys.exit(f"bench_ladder: {exc}")
    if len(set(names)) != len(names) or len(names) < 2:
        sys.exit("bench_ladder: name at least two different strategies")
    spec = resolve_spec(None, games=args.games, seed=args.seed, jobs=args.jobs)
    started = time.perf_counter()
    two = two_player_ladder(spec, names, args.reference if args.reference in names else None)
    four = four_player_ladder(spec, names, args.reference)
    strength_seconds = time.perf_counter() - started
    timing = {name: decision_time(spec, name, args.timing_games) for name in names}
    table = ladder_table(names, two, four, timing, args.reference if args.reference in names else None)
    if args.csv:
        print(table.to_csv(), end="")
        return
    print(f"base game, seed {args.seed}: {args.games} games per pair (2p round robin) and per table "
          f"(4p: every table of four), seats rotated, the same seeds everywhere; "
          f"strength games took {strength_seconds:.0f} s with --jobs {args.jobs}")
    print("scores and wins: mean [95% CI]; a shared win counts 1/k; "
          f"ms/move and s/4p game: {args.timing_games} four-player games of four copies on one core, "
          f"the strategy asked as a Python strategy; ms/move run: those games as a run plays them "
          f"(natively for the built-ins the native core plays)")
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(table.to_string())


if __name__ == "__main__":
    main()
