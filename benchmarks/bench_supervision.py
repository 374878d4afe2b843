"""Cost of playing a one-job run in its supervised worker process.

    PYTHONPATH=. python benchmarks/bench_supervision.py --games 200 --repeat 3
    PYTHONPATH=. python benchmarks/bench_supervision.py --games 200 --move-timeout 5
    PYTHONPATH=. python benchmarks/bench_supervision.py --config configs/baseline-random.yaml --games 400
    PYTHONPATH=. python benchmarks/bench_supervision.py --games 200 --in-process   # the same run unsupervised

Instructions instead of seconds (a busy machine changes them little), as in
benchmarks/README.md ("What the supervised worker ... cost"): each of

    PYTHONHASHSEED=0 PYTHONPATH=. valgrind --tool=cachegrind --cache-sim=no --trace-children=yes \
        --cachegrind-out-file=out/%p python benchmarks/bench_supervision.py \
        --config configs/baseline-random.yaml --repeat 1 --games 40 [--in-process] [--move-timeout 5]

and the same with `--games 0` (imports and the run's spec only); a forked
worker's count starts from its parent's at the fork.

Plays the first `--games` games of `--config` (the bundled default without one) through the run
loop (`iter_chunks`, one job) and prints games per second of each round and
their median, in wall time and in CPU time of this process and its
workers (which a busy neighbour disturbs far less); with `--move-timeout`, every strategy call is also traced for
the watchdog. Run it with PYTHONPATH set to two source trees, alternately,
to compare them: the figures of one tree alone say little on a shared core.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from welcometo_sim.api import resolve_spec
from welcometo_sim.sim import runner
from welcometo_sim.sim.runner import iter_chunks


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished child processes."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def rate(config: str | None, games: int, move_timeout: float | None) -> tuple[float, float]:
    """Games per wall second and per CPU second of one run of `games` games
    of `config` with one job."""
    spec = resolve_spec(config, games=games, seed=1, jobs=1, move_timeout=move_timeout)
    started, cpu = time.perf_counter(), cpu_seconds()
    played = sum(chunk.games for chunk in iter_chunks(spec))
    return played / (time.perf_counter() - started), played / (cpu_seconds() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="a run config (the bundled default without one)")
    parser.add_argument("--games", type=int, default=200,
                        help="games of a round (0: only resolve the run and stop, the baseline an instruction "
                             "count subtracts)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds")
    parser.add_argument("--in-process", action="store_true",
                        help="play in this process, as a platform that cannot fork does (no supervised worker)")
    parser.add_argument("--move-timeout", type=float, default=None, help="seconds (traces every strategy call)")
    args = parser.parse_args()
    if args.in_process:
        runner.can_fork = lambda: False
    if args.games == 0:
        resolve_spec(args.config, games=1, seed=1, jobs=1, move_timeout=args.move_timeout)
        return
    rates = [rate(args.config, args.games, args.move_timeout) for _ in range(args.repeat)]
    for index, unit in ((0, "games/s"), (1, "games/CPU-s")):
        figures = [r[index] for r in rates]
        print(" ".join(f"{f:.1f}" for f in figures), f"median {statistics.median(figures):.1f} {unit}")


if __name__ == "__main__":
    main()
