"""Cost of playing a one-job run in its supervised worker process.

    PYTHONPATH=. python benchmarks/bench_supervision.py --games 200 --repeat 3
    PYTHONPATH=. python benchmarks/bench_supervision.py --games 200 --move-timeout 5

Plays the bundled default config's first `--games` games through the run
loop (`iter_chunks`, one job) and prints games per second of each round and
their median; with `--move-timeout`, every strategy call is also traced for
the watchdog. Run it with PYTHONPATH set to two source trees, alternately,
to compare them: the figures of one tree alone say little on a shared core.
"""

from __future__ import annotations

import argparse
import statistics
import time

from welcometo_sim.api import resolve_spec
from welcometo_sim.sim.runner import iter_chunks


def rate(games: int, move_timeout: float | None) -> float:
    """Games per second of one run of `games` games with one job."""
    spec = resolve_spec(None, games=games, seed=1, jobs=1, move_timeout=move_timeout)
    started = time.perf_counter()
    played = sum(chunk.games for chunk in iter_chunks(spec))
    return played / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games of a round")
    parser.add_argument("--repeat", type=int, default=3, help="rounds")
    parser.add_argument("--move-timeout", type=float, default=None, help="seconds (traces every strategy call)")
    args = parser.parse_args()
    rates = [rate(args.games, args.move_timeout) for _ in range(args.repeat)]
    print(" ".join(f"{r:.1f}" for r in rates), f"median {statistics.median(rates):.1f} games/s")


if __name__ == "__main__":
    main()
