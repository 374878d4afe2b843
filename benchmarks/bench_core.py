"""Games per CPU second of the figures the engine's speed is judged by, for
this tree or two trees alternated in one run.

    python benchmarks/bench_core.py                       # this tree
    python benchmarks/bench_core.py --against ../other    # A/B, alternated
    python benchmarks/bench_core.py --only learned-2p,random-solo --repeat 5
    python benchmarks/bench_core.py --default-run         # also the bundled default run's wall time
    python benchmarks/bench_core.py --against-pure-python # this tree against itself with WTSIM_PURE_PYTHON=1

Figures (seeded games, the same in every round and tree):
- ``learned-2p``: two `learned` seats, base game;
- ``learned-solo``: one `learned` seat, solo rules;
- ``greedy-4p``: four `greedy` seats;
- ``random-solo``: one `random` seat, solo rules;
- ``random-4p``: four `random` seats, base game (the speed target's other
  random line; both are played by the native game driver when it is built);
- ``lookahead-solo``: one `learned:lookahead=8` seat, solo rules (the
  search setting: 4 candidates × 8 sampled next turns a move);
- ``heuristic-2p``: `learned` against `heuristic`, base game (the bundled
  default config's table);
- ``python-2p``: two seats of a strategy written in plain Python
  (strategies/example_custom.py), the cost a custom strategy pays;
- ``training``: `wtsim train`'s self-play with learning, two seats;
- ``default-run`` (with --default-run): wall seconds of `wtsim run` with no
  argument (the bundled default config, its 1,000 games and its own
  `jobs`), start-up included.

Each measurement runs in a fresh process of the tree measured (its folder
first on PYTHONPATH) and reports games per CPU second of that process
(`time.process_time`, which a busy neighbour disturbs far less than wall
time) and games per wall second. `--repeat N` measures every figure N
times, the trees alternating, and prints the median of each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

FIGURES: dict[str, tuple[str, int]] = {
    "learned-2p": ("learned,learned|base", 40),
    "learned-solo": ("learned|solo", 60),
    "greedy-4p": ("greedy,greedy,greedy,greedy|base", 30),
    "random-solo": ("random|solo", 10000),
    "random-4p": ("random,random,random,random|base", 2000),
    "heuristic-2p": ("learned,heuristic|base", 40),
    "python-2p": ("strategies.example_custom:ScheduleStrategy,strategies.example_custom:ScheduleStrategy|base", 30),
    "lookahead-solo": ("learned:lookahead=8|solo", 6),
    "training": ("train|base", 30),
}
"""Figure -> (seats|variant, games per measurement): enough games for a
few tenths of a second each, so that what a process does once (the first
game's imports and lookups) weighs little."""

CHILD = r'''
import json, sys, time
seats_spec, variant_name, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.sim.runner import game_seed
variant = Variant(solo=True) if variant_name == "solo" else Variant()
from welcometo_sim.games.welcome_to.game import Game, Seat, play_game
if seats_spec == "train":
    import numpy as np
    from welcometo_sim.games.welcome_to.training import learn_from_game
    from welcometo_sim.strategies.learned import LearnedStrategy, load_model, shipped_path
    model = load_model(shipped_path("base"))
    model.weights = np.array(model.weights)  # learning changes a private copy
    seats = [Seat(f"s{i}", "learned", lambda rng: LearnedStrategy(rng, None, model, trace=True))
             for i in range(2)]
    def play():
        for index in range(games):
            game = Game(variant, seats, game_seed(4242, index))
            learn_from_game(model.weights, game, game.play(), 0.01, 0.5)
else:
    from welcometo_sim.strategy import parse_strategy
    refs = seats_spec.split(",")
    seats = [Seat(f"s{i}", ref, parse_strategy(ref)) for i, ref in enumerate(refs)]
    def play():
        for index in range(games):
            play_game(variant, seats, game_seed(4242, index))
cpu, wall = time.process_time(), time.perf_counter()
play()
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}))
'''


def measure(tree: Path, figure: str, pure_python: bool = False) -> tuple[float, float]:
    """(games per CPU second, games per wall second) of one figure in `tree`
    (with `pure_python`, without its compiled core and native modules)."""
    spec, games = FIGURES[figure]
    seats, variant = spec.split("|")
    environment = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1",
                   **({"WTSIM_PURE_PYTHON": "1"} if pure_python else {})}
    done = subprocess.run([sys.executable, "-c", CHILD, seats, variant, str(games)], cwd=tree,
                          env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{figure} in {tree}: {done.stderr.strip().splitlines()[-1:]}")
    times = json.loads(done.stdout.strip().splitlines()[-1])
    return games / times["cpu"], games / times["wall"]


def default_run_seconds(tree: Path, pure_python: bool = False) -> float:
    """Wall seconds of `wtsim run` of the bundled default, as a user runs it (its 1,000 games, its own jobs)."""
    environment = {**os.environ, "PYTHONPATH": str(tree), **({"WTSIM_PURE_PYTHON": "1"} if pure_python else {})}
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "welcometo_sim", "run", "--quiet",
                               "--out", str(Path(folder) / "run")], cwd=tree, env=environment,
                              capture_output=True, text=True)
        elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"default run in {tree}: {done.stderr.strip().splitlines()[-1:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="a second tree to compare with, alternated")
    parser.add_argument("--against-pure-python", action="store_true",
                        help="compare this tree with itself run as pure Python (WTSIM_PURE_PYTHON=1), alternated")
    parser.add_argument("--only", default=",".join(FIGURES), help="figures, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per figure and tree (default 3)")
    parser.add_argument("--default-run", action="store_true", help="also time the bundled default run")
    args = parser.parse_args()
    figures = [f.strip() for f in args.only.split(",") if f.strip()]
    unknown = [f for f in figures if f not in FIGURES]
    if unknown:
        parser.error(f"unknown figure {unknown[0]!r} (known: {', '.join(FIGURES)})")
    if args.against and args.against_pure_python:
        parser.error("--against and --against-pure-python compare with different things: give one")
    trees = [HERE] + ([args.against.resolve()] if args.against else [HERE] if args.against_pure_python else [])
    pure = [False, args.against_pure_python]
    names = ["this", "pure" if args.against_pure_python else "against"][:len(trees)]
    header = f"{'figure':<14}" + "".join(f"{n + ' cpu/s':>14}{n + ' wall/s':>14}" for n in names)
    print(header + (f"{'ratio cpu':>11}" if len(trees) == 2 else ""))
    for figure in figures:
        rates: list[list[tuple[float, float]]] = [[] for _ in trees]
        for _ in range(args.repeat):
            for index, tree in enumerate(trees):
                rates[index].append(measure(tree, figure, pure[index]))
        medians = [(statistics.median(r[0] for r in tree_rates), statistics.median(r[1] for r in tree_rates))
                   for tree_rates in rates]
        line = f"{figure:<14}" + "".join(f"{cpu:>14.1f}{wall:>14.1f}" for cpu, wall in medians)
        if len(trees) == 2:
            line += f"{medians[0][0] / medians[1][0]:>11.3f}"
        print(line, flush=True)
    if args.default_run:
        seconds = [default_run_seconds(tree, pure[index]) for index, tree in enumerate(trees)]
        print(f"{'default-run':<14}" + "".join(f"{s:>13.1f}s{'':>14}" for s in seconds))


if __name__ == "__main__":
    main()
