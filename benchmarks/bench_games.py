"""Games per second of the engine on one core, for random and greedy players.

    python benchmarks/bench_games.py            # default budgets
    python benchmarks/bench_games.py --seconds 5
    python benchmarks/bench_games.py --seconds 5 --repeat 5 --only random:1,greedy:4
    python benchmarks/bench_games.py --only random:solo,greedy:solo

Each line plays seeded base games with every seat on the same strategy and
prints the rate (players "solo": one player under the solo-mode rules, the
solo card and three fresh cards a turn; 1: one player on the standard deck); the seeds are the same on every run, so figures compare
between code versions on one machine. Games are played with the garbage
collector set as in a run's workers (`batch_collection`). A shared or
virtual machine can differ by a third between two runs of the same code:
`--repeat N` plays every line N times, round after round, and prints each
rate with their median and best, and `--only` limits the lines.
"""

from __future__ import annotations

import argparse
import statistics
import time

from welcometo_sim.rules.game import Seat, play_game
from welcometo_sim.rules.variant import Variant
from welcometo_sim.sim.runner import batch_collection
from welcometo_sim.strategy import StrategyLoadError, parse_strategy


SOLO = "solo"
"""The players of a line played under the solo-mode rules (one seat)."""


def rate(strategy: str, players: int | str, seconds: float) -> tuple[int, float, float]:
    """Play games until `seconds` have passed; returns (games, games/s, mean turns)."""
    spec = parse_strategy(strategy)
    seats = [Seat(f"p{i}", strategy, spec) for i in range(1 if players == SOLO else int(players))]
    variant = Variant(solo=players == SOLO)
    games = turns = 0
    with batch_collection():  # as in a run's workers
        start = time.perf_counter()
        while time.perf_counter() - start < seconds or games < 3:
            turns += play_game(variant, seats, games).turns
            games += 1
        elapsed = time.perf_counter() - start
    return games, games / elapsed, turns / games


LINES: tuple[tuple[str, int | str], ...] = (
    ("random", 1), ("random", SOLO), ("random", 4), ("greedy", 1), ("greedy", SOLO), ("greedy", 4))


def parse_only(text: str | None) -> list[tuple[str, int | str]]:
    """`--only random:1,greedy:4` as (strategy, players) pairs; all lines when None.
    Raises ValueError naming the item that is not STRATEGY:PLAYERS (1 to 5
    players, or `solo`)."""
    if not text:
        return list(LINES)
    lines = []
    for item in text.split(","):
        strategy, _, players = item.partition(":")
        if players == SOLO and strategy:
            lines.append((strategy, SOLO))
            continue
        if not strategy or not players.isdigit() or not 1 <= int(players) <= 5:
            raise ValueError(f"--only {item!r}: expected STRATEGY:PLAYERS with 1 to 5 players or solo, "
                             "e.g. greedy:4")
        lines.append((strategy, int(players)))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per line")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every line (default 1)")
    parser.add_argument("--only", help="lines to play, e.g. random:1,greedy:4,random:solo (default: all six)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    try:
        lines = parse_only(args.only)
        for strategy, _players in lines:
            parse_strategy(strategy)
    except (ValueError, StrategyLoadError) as exc:
        parser.error(str(exc))
    rounds: dict[tuple[str, int | str], list[tuple[int, float, float]]] = {line: [] for line in lines}
    for _ in range(args.repeat):
        for strategy, players in lines:
            rounds[(strategy, players)].append(rate(strategy, players, args.seconds))
    if args.repeat <= 1:
        print(f"{'strategy':<9}{'players':>8}{'games':>8}{'games/s':>10}{'turns':>8}")
        for (strategy, players), [(games, per_second, turns)] in rounds.items():
            print(f"{strategy:<9}{players:>8}{games:>8}{per_second:>10.1f}{turns:>8.1f}")
        return
    print(f"{'strategy':<9}{'players':>8}{'median':>9}{'best':>9}  games/s of each round")
    for (strategy, players), results in rounds.items():
        rates = [per_second for _games, per_second, _turns in results]
        print(f"{strategy:<9}{players:>8}{statistics.median(rates):>9.1f}{max(rates):>9.1f}  "
              + " ".join(f"{r:.1f}" for r in rates))


if __name__ == "__main__":
    main()
