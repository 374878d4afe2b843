"""Shake That City: strength of the built-in strategies and games per second.

    python benchmarks/bench_shake_that_city.py                      # the README's figures
    python benchmarks/bench_shake_that_city.py --games 200 --lookahead-games 50

Prints, on one core, with the shipped data (`data.yaml`, assumptions included):

- solo mode: for `random`, `greedy` and `learned` (`--games` games each) and
  `lookahead` (`--lookahead-games`): mean score, share of qualified games (every
  construction tile removed), share of wins (55 points or more) with its 95%
  Wilson interval, and games per CPU second;
- greedy against random, 2 players, seats swapped every other game: mean score
  of each, greedy's win share (a shared win counts half);

Game i is played with seed `--seed` + i, so every strategy meets the same shakes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from welcometo_sim.analysis.stats import wilson_interval
from welcometo_sim.games import load_game


def solo(strategy: str, games: int, seed: int) -> dict:
    """Solo results of one strategy over `games` seeds."""
    game = load_game("shake-that-city", {"variant": {"solo": True}}, 1)
    start = time.process_time()
    rows = [game.play([strategy], seed + i).rows[0] for i in range(games)]
    seconds = time.process_time() - start
    wins = sum(r["won"] for r in rows)
    low, high = wilson_interval(wins, games)
    return {"strategy": strategy, "games": games,
            "mean": float(np.mean([r["total"] for r in rows])),
            "qualified": float(np.mean([r["qualified"] for r in rows])),
            "wins": wins / games, "low": low, "high": high, "games_per_s": games / seconds}


def duel(games: int, seed: int) -> dict:
    """Greedy against random, 2 players, seats swapped every other game."""
    game = load_game("shake-that-city", {}, 2)
    totals = {"greedy": [], "random": []}
    wins = 0.0
    for i in range(games):
        seats = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        rows = game.play(seats, seed + i).rows
        by_name = {r["strategy"]: r for r in rows}
        for name, row in by_name.items():
            totals[name].append(row["total"])
        winners = [r["strategy"] for r in rows if r["won"]]
        wins += winners.count("greedy") / len(winners) if winners else 0.0
    return {"games": games, "greedy": float(np.mean(totals["greedy"])),
            "random": float(np.mean(totals["random"])), "greedy_wins": wins / games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="solo games of random, greedy and learned, and duel games")
    parser.add_argument("--lookahead-games", type=int, default=2000, help="solo games of lookahead")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("solo mode (win: 55+ points, every construction tile removed)")
    print(f"{'strategy':<10} {'games':>6} {'mean':>6} {'qualified':>9} {'wins':>6}  95% interval  games/s")
    for strategy, games in (("random", args.games), ("greedy", args.games),
                            ("lookahead", args.lookahead_games), ("learned", args.games)):
        r = solo(strategy, games, args.seed)
        print(f"{r['strategy']:<10} {r['games']:>6} {r['mean']:>6.1f} {r['qualified']:>9.1%} "
              f"{r['wins']:>6.1%}  {r['low']:.1%}-{r['high']:.1%}  {r['games_per_s']:>7.1f}",
              flush=True)
    d = duel(args.games, args.seed)
    print(f"\ngreedy vs random, 2 players, {d['games']} games: mean score greedy {d['greedy']:.1f}, "
          f"random {d['random']:.1f}; greedy wins {d['greedy_wins']:.1%}")


if __name__ == "__main__":
    main()
