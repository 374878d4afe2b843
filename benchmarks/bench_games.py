"""Games per second of the engine on one core, for random and greedy players.

    python benchmarks/bench_games.py            # default budgets
    python benchmarks/bench_games.py --seconds 5
    python benchmarks/bench_games.py --seconds 5 --repeat 5 --only random:1,greedy:4
    python benchmarks/bench_games.py --seconds 1 --repeat 30 --only random:1
    python benchmarks/bench_games.py --only random:solo,greedy:solo

Each line plays seeded base games with every seat on the same strategy and
prints the rate (players "solo": one player under the solo-mode rules, the
solo card and three fresh cards a turn; 1: one player on the standard
deck). The seeds are the same in every round and on every run, so figures
compare between code versions on one machine. Games are played as in a
run's workers: with the garbage collector set by `batch_collection`, and
with the seeds of 250 games at a time hashed together (`prepare_families`).

A virtual machine whose core is shared with a busy neighbour runs the same
code at very different speeds from one second to the next. So every round
is framed by a fixed pure-Python reference loop (`reference_ms`): a round
is *quiet* when the loop ran within `QUIET_MARGIN` of its fastest time of
the run both before and after it. `--repeat N` plays every line N times,
round after round, and prints each rate (quiet ones starred) with the
median and best of all rounds and the median of the quiet ones, then for
the lines with a speed target (`TARGETS`) whether each median reaches it;
`--only` limits the lines. The first line says whether the engine runs
compiled or as Python (`welcometo_sim.compiled_core`; set
``WTSIM_PURE_PYTHON=1`` to measure the Python one).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import NamedTuple

from welcometo_sim.compiled_core import engine
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.seeding import prepare_families
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.sim.runner import batch_collection
from welcometo_sim.strategy import StrategyLoadError, parse_strategy

SOLO = "solo"
"""The players of a line played under the solo-mode rules (one seat)."""

REFERENCE_LOOPS = 100_000
"""Iterations of the reference loop (about 17 ms on a quiet reference machine)."""

QUIET_MARGIN = 1.2
"""A round is quiet when both its reference loops took at most this times the
run's fastest reference loop."""


class Round(NamedTuple):
    games: int
    per_second: float
    mean_turns: float
    reference_before: float
    reference_after: float


def reference_ms() -> float:
    """Milliseconds of a fixed pure-Python loop of dict and integer operations,
    like the engine's. It shows the machine's state next to every round: on a
    core shared with a busy neighbour it runs up to 1.7 times slower, and the
    games slow down with it."""
    counts: dict[int, int] = {}
    start = time.perf_counter()
    for i in range(REFERENCE_LOOPS):
        key = i & 1023
        counts[key] = counts.get(key, 0) + i % 13
    return (time.perf_counter() - start) * 1e3


PREPARED_GAMES = 250
"""Games whose seeds are hashed together, as a run's chunks do (`prepare_families`)."""


def line_games(strategy: str, players: int | str) -> tuple[list[Seat], Variant]:
    """The seats and variant of a line's games: every seat on `strategy`;
    players `SOLO` is one seat under the solo-mode rules."""
    spec = parse_strategy(strategy)
    seats = [Seat(f"p{i}", strategy, spec) for i in range(1 if players == SOLO else int(players))]
    return seats, Variant(solo=players == SOLO)


def rate(strategy: str, players: int | str, seconds: float) -> tuple[int, float, float]:
    """Play games until `seconds` have passed; returns (games, games/s, mean turns)."""
    seats, variant = line_games(strategy, players)
    games = turns = 0
    with batch_collection():  # as in a run's workers
        start = time.perf_counter()
        while time.perf_counter() - start < seconds or games < 3:
            if games % PREPARED_GAMES == 0:
                prepare_families(range(games, games + PREPARED_GAMES), 1 + len(seats))
            turns += play_game(variant, seats, games).turns
            games += 1
        elapsed = time.perf_counter() - start
    return games, games / elapsed, turns / games


def framed_round(strategy: str, players: int | str, seconds: float) -> Round:
    """One round of `rate`, with the reference loop timed just before and after."""
    before = reference_ms()
    games, per_second, turns = rate(strategy, players, seconds)
    return Round(games, per_second, turns, before, reference_ms())


def is_quiet(round_: Round, fastest_reference: float) -> bool:
    """Whether both reference loops of the round ran within `QUIET_MARGIN` of the fastest one."""
    return max(round_.reference_before, round_.reference_after) <= QUIET_MARGIN * fastest_reference


def quiet_rates(rounds: list[Round], fastest_reference: float) -> list[float]:
    """The rates of the quiet rounds."""
    return [r.per_second for r in rounds if is_quiet(r, fastest_reference)]


TARGETS: dict[tuple[str, int | str], float] = {("random", SOLO): 1000.0, ("random", 4): 250.0, ("greedy", 4): 30.0}
"""The engine-speed targets, in games/s on one core: random solo-mode games,
random and greedy four-seat base games."""


def target_verdicts(rounds: dict[tuple[str, int | str], list[Round]], fastest_reference: float) -> list[str]:
    """For every line with a target: whether the median of all rounds and the
    median of the quiet rounds reach it."""
    verdicts = []
    for line, results in rounds.items():
        target = TARGETS.get(line)
        if target is None:
            continue
        quiet = quiet_rates(results, fastest_reference)
        quiet_part = f"quiet rounds {_judged(quiet, target)}" if quiet else "no quiet round"
        verdicts.append(f"{line[0]}:{line[1]} target {target:g}: "
                        f"all rounds {_judged([r.per_second for r in results], target)}, {quiet_part}")
    return verdicts


def _judged(rates: list[float], target: float) -> str:
    """The median of the rates and whether it reaches the target."""
    median = statistics.median(rates)
    return f"{median:.1f} ({'met' if median >= target else 'below'})"


LINES: tuple[tuple[str, int | str], ...] = (
    ("random", 1), ("random", SOLO), ("random", 4), ("greedy", 1), ("greedy", SOLO), ("greedy", 4))


def parse_only(text: str | None) -> list[tuple[str, int | str]]:
    """`--only random:1,greedy:4` as (strategy, players) pairs; all lines when None.
    Raises ValueError naming the item that is not STRATEGY:PLAYERS (1 to 5
    players, or `solo`)."""
    if not text:
        return list(LINES)
    lines: list[tuple[str, int | str]] = []
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


def print_single(rounds: dict[tuple[str, int | str], list[Round]]) -> None:
    print(f"{'strategy':<9}{'players':>8}{'games':>8}{'games/s':>10}{'turns':>8}{'ref ms':>15}")
    for (strategy, players), [r] in rounds.items():
        print(f"{strategy:<9}{players:>8}{r.games:>8}{r.per_second:>10.1f}{r.mean_turns:>8.1f}"
              f"{r.reference_before:>8.1f}{r.reference_after:>7.1f}")


def print_repeated(rounds: dict[tuple[str, int | str], list[Round]]) -> None:
    references = [ms for results in rounds.values() for r in results
                  for ms in (r.reference_before, r.reference_after)]
    fastest = min(references)
    limit = QUIET_MARGIN * fastest
    print(f"{'strategy':<9}{'players':>8}{'median':>9}{'best':>9}{'quiet':>9}{'rounds':>8}"
          "  games/s of each round (* quiet)")
    for (strategy, players), results in rounds.items():
        rates = [r.per_second for r in results]
        quiet = quiet_rates(results, fastest)
        quiet_median = f"{statistics.median(quiet):.1f}" if quiet else "-"
        each = " ".join(f"{r.per_second:.1f}" + ("*" if is_quiet(r, fastest) else "") for r in results)
        print(f"{strategy:<9}{players:>8}{statistics.median(rates):>9.1f}{max(rates):>9.1f}"
              f"{quiet_median:>9}{len(quiet):>4}/{len(results):<3}  {each}")
    print(f"reference loop: fastest {fastest:.1f} ms, slowest {max(references):.1f} ms; "
          f"quiet rounds: both loops at most {limit:.1f} ms")
    for verdict in target_verdicts(rounds, fastest):
        print(verdict)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per line and round")
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
    rounds: dict[tuple[str, int | str], list[Round]] = {line: [] for line in lines}
    print(f"engine: {engine()}")
    for _ in range(args.repeat):
        for strategy, players in lines:
            rounds[(strategy, players)].append(framed_round(strategy, players, args.seconds))
    if args.repeat <= 1:
        print_single(rounds)
    else:
        print_repeated(rounds)


if __name__ == "__main__":
    main()
