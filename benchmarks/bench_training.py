"""Training throughput of `wtsim train`: games, decisions and afterstates per second on one core.

    python benchmarks/bench_training.py                      # base game, 2 players, shipped weights
    python benchmarks/bench_training.py --family solo --seconds 30
    python benchmarks/bench_training.py --weights training/base/weights.npz

Plays training games exactly as one shard of `wtsim train` does (every seat
`learned`, learning after each game) in this process, starting from a
model's weights (the shipped model of the family by default: a trained
model plays longer games than an untrained one), and prints per second of
wall time: games, decisions (calls of choose_play) and afterstates scored,
and the share of the time spent learning (the TD updates) rather than
playing; then games per second of this process's CPU time, which a busy
machine changes less than wall time. The decision time of `learned` alone is `bench_ladder.py`'s
`ms/move` column.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from welcometo_sim.strategies.learned import LearnedStrategy, load_model, shipped_path
from welcometo_sim.games.welcome_to.training import learn_from_game
from welcometo_sim.games.welcome_to.game import Game, Seat
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.sim.runner import game_seed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=["base", "solo"], default="base")
    parser.add_argument("--weights", help="model file to start from (default: the family's shipped model)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=0.3)
    parser.add_argument("--trace-decay", type=float, default=0.5)
    args = parser.parse_args()

    variant = Variant(solo=args.family == "solo")
    players = 1 if variant.solo else 2
    model = load_model(args.weights or shipped_path(args.family))
    model.weights = np.array(model.weights)  # learning changes a private copy
    seats = [Seat(f"s{i}", "learned", lambda rng: LearnedStrategy(rng, None, model, trace=True))
             for i in range(players)]
    games = decisions = afterstates = 0
    learning = 0.0
    started = time.perf_counter()
    cpu_started = time.process_time()
    while time.perf_counter() - started < args.seconds:
        game = Game(variant, seats, game_seed(12345, games))
        result = game.play()
        decisions += sum(len(strategy.trace) for strategy in game.strategies)
        afterstates += sum(strategy.afterstates_scored for strategy in game.strategies)
        before = time.perf_counter()
        learn_from_game(model.weights, game, result, args.rate, args.trace_decay)
        learning += time.perf_counter() - before
        games += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    print(f"training throughput, {args.family} ({players} seat{'s' if players > 1 else ''}), one core, "
          f"{elapsed:.1f} s:")
    print(f"  games/s        {games / elapsed:8.2f}")
    print(f"  decisions/s    {decisions / elapsed:8.1f}   ({1000 * elapsed / max(decisions, 1):.2f} ms "
          f"a decision, learning included)")
    print(f"  afterstates/s  {afterstates / elapsed:8.0f}   ({afterstates / max(decisions, 1):.0f} "
          f"a decision)")
    print(f"  learning share {learning / elapsed:8.1%}")
    print(f"  games per CPU second {games / cpu:.2f} ({cpu:.1f} s of CPU: the figure busy neighbours change least)")


if __name__ == "__main__":
    main()
