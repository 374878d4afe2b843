"""The native sheet (welcometo_sim/native/sheet.pyx) against the Python sheet
on the same random move sequences: CPU time of listing the legal plays and
applying the chosen play and effect use, per move.

    python benchmarks/bench_native_sheet.py                    # 200 advanced games, 7 alternated rounds
    python benchmarks/bench_native_sheet.py --games 50 --rounds 3

The sequences are made first (seeded: the same on every run) by a random
player on the Python sheet of the advanced rules: per turn maybe a
roundabout, three offers of random deck numbers and effects, a random
legal play and a random use of its effect. Each round then replays all of
them on fresh sheets, in turn (so that a busy neighbour slows all alike):
- python: effects.legal_plays, apply_play, apply_effect;
- native tuples: NativeSheet.legal_plays (shared plain tuples), apply_play;
- native Play: through welcometo_sim/native/moves.py (Play values, as
  Python callers get them);
- native index: NativeSheet.apply_play_at, the play taken by its index
  without listing the plays as Python values (as a native game will).
The figures are the medians over the rounds; the ratios are of those
medians. Every replay must end on the same records, or the script stops.
The Python rules run as the checkout has them (the compiled core when it is
built, else pure Python: the first line says which).
Needs the native module built (python benchmarks/build_native.py).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from welcometo_sim.compiled_core import engine  # noqa: E402
from welcometo_sim.native import moves, native_module  # noqa: E402
from welcometo_sim.games.welcome_to.effects import (Effect, Offer, apply_effect, apply_play,  # noqa: E402
                                                    effect_options, legal_plays)
from welcometo_sim.games.welcome_to.sheet import Sheet  # noqa: E402
from welcometo_sim.games.welcome_to.variant import Variant  # noqa: E402

VARIANT = Variant(advanced=True)
TURNS = 40

Move = tuple[tuple[int, int] | None, list[Offer], int, Effect | None]
"""One turn: the roundabout built first (or None), the offers, the index of
the play taken among the legal plays, and the effect use (or None)."""


def make_games(n_games: int, seed: int) -> list[list[Move]]:
    """Random legal move sequences, played on the Python sheet."""
    rng = random.Random(seed)
    data = VARIANT.data
    games = []
    for _ in range(n_games):
        sheet, game = Sheet(data), []
        for _turn in range(TURNS):
            spot = None
            spots = sheet.roundabout_options()
            if sheet.n_roundabouts < data.max_roundabouts and spots and rng.random() < 0.1:
                spot = rng.choice(spots)
                sheet.build_roundabout(*spot)
            offers = [Offer(rng.choice(data.deck)[0], rng.choice(data.deck)[1], i, i) for i in range(3)]
            plays = legal_plays(sheet, offers)
            if not plays:
                game.append((spot, offers, -1, None))
                continue
            index = rng.randrange(len(plays))
            apply_play(sheet, plays[index])
            uses = effect_options(sheet, offers[plays[index].offer], plays[index])
            use = rng.choice(uses) if uses else None
            if use is not None:
                apply_effect(sheet, use)
            game.append((spot, offers, index, use))
        games.append(game)
    return games


def replay_python(games: list[list[Move]]) -> list[Any]:
    sheets = []
    for game in games:
        sheet = Sheet(VARIANT.data)
        for spot, offers, index, use in game:
            if spot is not None:
                sheet.build_roundabout(*spot)
            plays = legal_plays(sheet, offers)
            if index >= 0:
                apply_play(sheet, plays[index])
                if use is not None:
                    apply_effect(sheet, use)
        sheets.append(sheet)
    return sheets


def native_replay(list_plays: Callable[[Any, list[Offer]], list]) -> Callable[[list[list[Move]]], list[Any]]:
    """The replay on native sheets, listing plays with `list_plays`."""
    native_sheet = native_module("sheet").NativeSheet

    def replay(games: list[list[Move]]) -> list[Any]:
        sheets = []
        for game in games:
            sheet = native_sheet(VARIANT.data)
            for spot, offers, index, use in game:
                if spot is not None:
                    sheet.build_roundabout(*spot)
                plays = list_plays(sheet, offers)
                if index >= 0:
                    sheet.apply_play(plays[index])
                    if use is not None:
                        sheet.apply_effect(use)
            sheets.append(sheet)
        return sheets
    return replay


def replay_native_by_index(games: list[list[Move]]) -> list[Any]:
    """The replay on native sheets taking each play by its index
    (`NativeSheet.apply_play_at`): no play is made as a Python value."""
    native_sheet = native_module("sheet").NativeSheet
    sheets = []
    for game in games:
        sheet = native_sheet(VARIANT.data)
        for spot, offers, index, use in game:
            if spot is not None:
                sheet.build_roundabout(*spot)
            if index >= 0:
                sheet.apply_play_at(offers, index)
                if use is not None:
                    sheet.apply_effect(use)
        sheets.append(sheet)
    return sheets


def cpu_seconds(replay: Callable[[list[list[Move]]], list[Any]], games: list[list[Move]]) -> tuple[float, list]:
    started = time.process_time()
    sheets = replay(games)
    return time.process_time() - started, sheets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="move sequences (games of 40 turns)")
    parser.add_argument("--rounds", type=int, default=7, help="alternated rounds of the replays")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1:
        print("error: --games and --rounds must be at least 1", file=sys.stderr)
        return 2
    if native_module("sheet") is None:
        print("error: the native sheet is not built (python benchmarks/build_native.py)", file=sys.stderr)
        return 2
    games = make_games(args.games, args.seed)
    n_moves = sum(len(game) for game in games)
    replays = {
        "python": replay_python,
        "native tuples": native_replay(lambda sheet, offers: sheet.legal_plays(offers)),
        "native Play": native_replay(moves.legal_plays),
        "native index": replay_native_by_index,
    }
    times: dict[str, list[float]] = {name: [] for name in replays}
    for _ in range(args.rounds):
        records = []
        for name, replay in replays.items():
            seconds, sheets = cpu_seconds(replay, games)
            times[name].append(seconds)
            records.append([sheet.to_record() for sheet in sheets])
        if any(other != records[0] for other in records[1:]):
            print("error: the native replay ended on other sheets than the Python one", file=sys.stderr)
            return 1
    print(f"rules engine: {engine()}")
    print(f"{args.games} games, {n_moves} moves (legal plays + play + effect use), {args.rounds} rounds, "
          f"{VARIANT.to_record()}; CPU microseconds per move, median of the rounds:")
    python = statistics.median(times["python"])
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"  {name:14} {1e6 * median / n_moves:7.2f} us/move   {python / median:5.2f}x the Python speed   "
              f"(rounds {min(seconds):.3f}..{max(seconds):.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
