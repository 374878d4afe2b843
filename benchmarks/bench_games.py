"""Games per second of the engine on one core, for random and greedy players.

    python benchmarks/bench_games.py            # default budgets
    python benchmarks/bench_games.py --seconds 5

Each line plays seeded base games with every seat on the same strategy and
prints the rate; the seeds are the same on every run, so figures compare
between code versions on one machine.
"""

from __future__ import annotations

import argparse
import time

from welcometo_sim.rules.game import Seat, play_game
from welcometo_sim.rules.variant import Variant
from welcometo_sim.strategy import parse_strategy


def rate(strategy: str, players: int, seconds: float) -> tuple[int, float, float]:
    """Play games until `seconds` have passed; returns (games, games/s, mean turns)."""
    spec = parse_strategy(strategy)
    seats = [Seat(f"p{i}", strategy, spec) for i in range(players)]
    variant = Variant()
    games = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or games < 3:
        turns += play_game(variant, seats, games).turns
        games += 1
    elapsed = time.perf_counter() - start
    return games, games / elapsed, turns / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per line")
    args = parser.parse_args()
    print(f"{'strategy':<9}{'players':>8}{'games':>8}{'games/s':>10}{'turns':>8}")
    for strategy in ("random", "greedy"):
        for players in (1, 4):
            games, per_second, turns = rate(strategy, players, args.seconds)
            print(f"{strategy:<9}{players:>8}{games:>8}{per_second:>10.1f}{turns:>8.1f}")


if __name__ == "__main__":
    main()
