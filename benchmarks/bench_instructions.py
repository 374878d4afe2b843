"""Instructions per game of the compiled and the Python engine, counted by valgrind.

    python benchmarks/bench_instructions.py
    python benchmarks/bench_instructions.py --only random:solo --games 300
    python benchmarks/bench_instructions.py --only greedy:4 --games 10

Wall time on a core shared with busy neighbours scatters by half from one
second to the next (see `bench_games.py`); the number of instructions a
game takes does not. For every line (`bench_games.py`'s STRATEGY:PLAYERS)
and each engine (`WTSIM_PURE_PYTHON=1` for the Python one), this runs
`valgrind --tool=cachegrind` over a process that plays GAMES seeded games
and over one that only imports what they need, and prints the difference
per game in millions of instructions, and the ratio Python / compiled.
String hashing is fixed (``PYTHONHASHSEED=0``): with random hashing the
greedy line's count moved by up to 10% from run to run, with it by 2%.
Valgrind runs programs about 50 times slower: keep GAMES small.

Needs valgrind (`apt install valgrind`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

DEFAULT_GAMES = {"random": 300, "greedy": 10}
"""Games per line when --games is not given (about ten seconds each under valgrind)."""

DEFAULT_LINES = "random:solo,random:4,greedy:4"

ENGINES = {"Python": "1", "compiled": "0"}
"""Each engine and its `WTSIM_PURE_PYTHON` value."""

INSTRUCTIONS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions_of(valgrind_output: str) -> int:
    """The instruction count in cachegrind's summary (ValueError when there is none)."""
    found = INSTRUCTIONS.search(valgrind_output)
    if found is None:
        raise ValueError("valgrind printed no instruction count")
    return int(found.group(1).replace(",", ""))


def play(strategy: str, players: str, games: int) -> None:
    """Play `games` seeded base games as `bench_games.rate` does (0: only the imports)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_games import PREPARED_GAMES, SOLO, line_games

    from welcometo_sim.games.welcome_to.game import play_game
    from welcometo_sim.games.seeding import prepare_families
    from welcometo_sim.sim.runner import batch_collection

    seats, variant = line_games(strategy, players if players == SOLO else int(players))
    with batch_collection():
        for game in range(games):
            if game % PREPARED_GAMES == 0:
                prepare_families(range(game, game + PREPARED_GAMES), 1 + len(seats))
            play_game(variant, seats, game)


def counted(strategy: str, players: str, games: int, pure: str) -> int:
    """Instructions of a process playing `games` games with one engine."""
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, __file__, "--play", strategy, players, str(games)]
    # The same dict layouts in every process, and no bytecode written by the
    # first one for the next to read: both compile what they import.
    environment = {**os.environ, "WTSIM_PURE_PYTHON": pure, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return instructions_of(done.stderr)


def per_game(strategy: str, players: str, games: int, pure: str) -> float:
    """Millions of instructions per game, the imports subtracted."""
    return (counted(strategy, players, games, pure) - counted(strategy, players, 0, pure)) / games / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=DEFAULT_LINES, help=f"lines, e.g. random:1,greedy:4 (default {DEFAULT_LINES})")
    parser.add_argument("--games", type=int, help="games per line (default 300 random, 10 greedy)")
    parser.add_argument("--play", nargs=3, metavar=("STRATEGY", "PLAYERS", "GAMES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        play(args.play[0], args.play[1], int(args.play[2]))
        return
    if shutil.which("valgrind") is None:
        parser.error("valgrind not found (apt install valgrind)")
    if args.games is not None and args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_games import parse_only

    from welcometo_sim.compiled_core import read_manifest
    if not read_manifest():
        parser.error("no compiled core in this install (pip install -e . with a C compiler at hand)")
    try:
        lines = parse_only(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"{'strategy':<9}{'players':>8}{'games':>7}{'Python':>10}{'compiled':>10}{'ratio':>7}"
          "   (millions of instructions per game)")
    for strategy, players in lines:
        games = args.games or DEFAULT_GAMES.get(strategy, 10)
        try:
            python, compiled = (per_game(strategy, str(players), games, ENGINES[e]) for e in ENGINES)
        except (RuntimeError, ValueError) as exc:
            parser.exit(2, f"{parser.prog}: {exc}\n")
        print(f"{strategy:<9}{players!s:>8}{games:>7}{python:>10.3f}{compiled:>10.3f}{python / compiled:>7.3f}")


if __name__ == "__main__":
    main()
