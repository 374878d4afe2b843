"""CPU time per game with the hand-written seed derivation against plain numpy.

    python benchmarks/bench_seeding.py                       # default lines and rounds
    python benchmarks/bench_seeding.py --games 300 --rounds 6 --only random:solo,learned:2

`welcometo_sim.games.seeding` computes numpy's ``SeedSequence`` hash itself
(the same streams, bit for bit). This measures what that buys: each line
plays the same games of one run as a run's worker does (`_play_chunk`: the
chunk's game seeds, the games' generators, the games), once with the module
and once with plain numpy in its place (``SeedSequence(run_seed,
spawn_key=(i,))`` for the game seeds and ``default_rng(SeedSequence(seed,
spawn_key=(k,)))`` for the generators). Rounds alternate which goes first,
and the figure is CPU time (`time.process_time`), so a busy neighbour on a
shared core disturbs it less than wall time. Both ways must give the same
totals: the script stops if they do not.
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from welcometo_sim.compiled_core import engine
from welcometo_sim.config import RunSpec, parse_config
from welcometo_sim.games.welcome_to import game as game_module
from welcometo_sim.sim import chunks


class NumpyFamily:
    """``SeedFamily`` made with numpy's own SeedSequence (no hand-written hash)."""

    def __init__(self, entropy: int) -> None:
        self.entropy = entropy

    def generator(self, key: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(key,)))


def numpy_game_seeds(run_seed: int, start: int, stop: int) -> list[int]:
    """`chunks.game_seeds` with numpy's SeedSequence, one game at a time."""
    first_words = (np.random.SeedSequence(run_seed, spawn_key=(i,)).generate_state(1, np.uint64)[0]
                   for i in range(start, stop))
    return [int(word >> np.uint64(1)) for word in first_words]


@contextmanager
def plain_numpy() -> Iterator[None]:
    """Play with numpy's SeedSequence in place of `welcometo_sim.games.seeding`."""
    saved = chunks.game_seeds, chunks.prepare_families, game_module.SeedFamily
    chunks.game_seeds, chunks.prepare_families = numpy_game_seeds, lambda seeds, children: None
    game_module.SeedFamily = NumpyFamily
    try:
        yield
    finally:
        chunks.game_seeds, chunks.prepare_families, game_module.SeedFamily = saved


def line_spec(line: str, games: int) -> RunSpec:
    """The run of a line `STRATEGY:SEATS` (seats `solo`: one seat, solo-mode rules)."""
    strategy, _, seats = line.partition(":")
    solo = seats == "solo"
    players = [{"strategy": strategy, "name": f"p{i}"} for i in range(1 if solo else int(seats))]
    return parse_config({"games": games, "seed": 1, "variant": {"solo": solo}, "players": players})


def cpu_seconds(spec: RunSpec, games: int) -> tuple[float, list]:
    """CPU seconds to play games 0 .. games - 1 of the run as a worker does, and their totals."""
    with chunks.batch_collection():
        start = time.process_time()
        chunk = chunks._play_chunk(spec, 0, games, False)
        elapsed = time.process_time() - start
    return elapsed, chunk.columns["total"]


def measure(line: str, games: int, rounds: int) -> tuple[list[float], list[float]]:
    """Games per CPU second of the module and of plain numpy, one figure per round."""
    spec = line_spec(line, games)
    ours, theirs = [], []
    cpu_seconds(spec, min(games, 20))  # warm the caches (strategy weights, imports)
    for round_ in range(rounds):
        order = ("module", "numpy") if round_ % 2 == 0 else ("numpy", "module")
        totals = {}
        for way in order:
            if way == "numpy":
                with plain_numpy():
                    seconds, totals[way] = cpu_seconds(spec, games)
                theirs.append(games / seconds)
            else:
                seconds, totals[way] = cpu_seconds(spec, games)
                ours.append(games / seconds)
        if totals["module"] != totals["numpy"]:
            raise SystemExit(f"{line}: the two ways played different games")
    return ours, theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per line, way and round")
    parser.add_argument("--rounds", type=int, default=6, help="alternated rounds (default 6)")
    parser.add_argument("--only", default="random:solo,random:1,random:4,learned:2",
                        help="lines STRATEGY:SEATS, comma-separated (seats 1-5 or solo)")
    args = parser.parse_args()
    print(f"engine: {engine()}; CPU time, {args.games} games per line, way and round, {args.rounds} rounds")
    print(f"{'line':<14}{'module g/s':>11}{'numpy g/s':>11}{'gain':>8}  gain of each round")
    for line in args.only.split(","):
        ours, theirs = measure(line, args.games, args.rounds)
        gains = [a / b - 1.0 for a, b in zip(ours, theirs)]
        each = " ".join(f"{100 * g:+.1f}" for g in gains)
        print(f"{line:<14}{statistics.median(ours):>11.1f}{statistics.median(theirs):>11.1f}"
              f"{100 * statistics.median(gains):>+7.1f}%  {each}", flush=True)


if __name__ == "__main__":
    main()
