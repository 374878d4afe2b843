"""Strength on every bundled config: every seat one strategy, for each of several strategies.

    python benchmarks/bench_bundled.py                                   # learned vs lookahead, 200 games
    python benchmarks/bench_bundled.py --games 500 --jobs 2
    python benchmarks/bench_bundled.py --strategies learned,heuristic --configs base,solo --csv

For each config under `configs/` (its variant, plans and player count kept,
every seat replaced by the strategy), each strategy plays the same `--games`
seeded games. Per config and strategy: the mean score of a player with its
95% bootstrap interval and the share of games that ended on refusals; then
the paired difference of the first strategy's per-game mean against each
other's (the games share seeds, so the difference is paired by game).
Results are the same for any `--jobs`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import pandas as pd
import yaml

from welcometo_sim.analysis.stats import paired_bootstrap_ci
from welcometo_sim.api import resolve_spec, run
from welcometo_sim.config import PlayerConfig
from welcometo_sim.strategy import parse_strategy

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
BOOTSTRAP_SEED = 0


def per_game(spec, strategy: str) -> pd.DataFrame:
    """Every seat `strategy`: per game, the mean total of its players and the end reason."""
    seats = tuple(PlayerConfig(f"{strategy}-{i + 1}", parse_strategy(strategy)) for i in range(len(spec.players)))
    frame = run(replace(spec, players=seats))
    return frame.groupby("game").agg(mean_total=("total", "mean"), end_reason=("end_reason", "first"))


def config_rows(path: Path, strategies: list[str], games: int, seed: int, jobs: int) -> list[dict]:
    """One row per strategy on one config, the first strategy's paired difference to the others."""
    spec = resolve_spec(path, games=games, seed=seed, jobs=jobs)
    results = {name: per_game(spec, name) for name in strategies}
    first = strategies[0]
    rows = []
    for name, games_frame in results.items():
        mean, low, high = paired_bootstrap_ci(games_frame["mean_total"].to_numpy(float), seed=BOOTSTRAP_SEED)
        row = {"config": path.stem, "players": len(spec.players), "strategy": name,
               "mean": f"{mean:.2f} [{low:.2f}, {high:.2f}]",
               "refusal endings": round(float(games_frame["end_reason"].str.contains("refusals").mean()), 3)}
        if name != first:
            diff = results[first]["mean_total"].to_numpy(float) - games_frame["mean_total"].to_numpy(float)
            d, d_low, d_high = paired_bootstrap_ci(diff, seed=BOOTSTRAP_SEED)
            row[f"{first} minus"] = f"{d:+.2f} [{d_low:+.2f}, {d_high:+.2f}]"
        else:
            row[f"{first} minus"] = "-"
        rows.append(row)
    return rows


def welcome_to_configs() -> list[str]:
    """The bundled Welcome To configs, but the random baseline (another game's configs name their `game:`)."""
    names = []
    for path in sorted(CONFIGS.glob("*.yaml")):
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        if config.get("game", "welcome-to") == "welcome-to" and not path.stem.startswith("baseline"):
            names.append(path.stem)
    return names


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default="learned,lookahead",
                        help="comma-separated; the first is compared with each other (default learned,lookahead)")
    parser.add_argument("--configs", help="comma-separated config names under configs/ "
                                          "(default: every Welcome To config but the random baseline)")
    parser.add_argument("--games", type=int, default=200, help="games per config and strategy")
    parser.add_argument("--seed", type=int, default=1, help="run seed: every strategy plays the same seeds")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes; -1 = every core")
    parser.add_argument("--csv", action="store_true", help="print the table as CSV")
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs == 0 or args.seed < 0:
        parser.error("--games must be at least 1, --seed at least 0, --jobs not 0")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    names = args.configs.split(",") if args.configs else welcome_to_configs()
    rows = []
    for name in names:
        rows.extend(config_rows(CONFIGS / f"{name}.yaml", strategies, args.games, args.seed, args.jobs))
    table = pd.DataFrame(rows).set_index(["config", "strategy"])
    if args.csv:
        print(table.to_csv(), end="")
    else:
        with pd.option_context("display.width", 200, "display.max_columns", None):
            print(f"{args.games} games per config and strategy, seed {args.seed}")
            print(table.to_string())


if __name__ == "__main__":
    main()
