"""Welcome To's games of a run, as the runner's chunks play them
(`play_run_game`, which `welcometo_sim.sim.chunks` asks the game for).

A run's game is played on the engine's own driver (`Game.play`, compiled
where built, and whole in native code when every seat is a built-in it
knows), with the seeds of a chunk hashed together beforehand
(`prepare_chunk`), and, under a move timeout, every strategy call traced
for the parent's watchdog. A solo game of one plain `random` seat is
played from its seed alone (`play_seeded_natively`).
"""

from __future__ import annotations

from typing import Any

from ...sim.chunks import RunGame, WatchedFactory, game_seed
from ...sim.guard import escaped_error
from ..contract import StrategyError
from ..seeding import prepare_families
from .game import Game, GameResult, Seat, play_seeded_natively
from .rows import game_rows


def seats_of(spec: Any, index: int = 0, built: list | None = None, tracer: Any = None,
             seed: int | None = None) -> list[Seat]:
    """The seats of game `index`; with `built`, every strategy built for them is
    appended to it, and a strategy whose constructor raises is a StrategyError."""
    if built is None:
        return [Seat(p.name, p.strategy.id, p.strategy) for p in spec.seated(index)]
    return [Seat(p.name, p.strategy.id, WatchedFactory(p.strategy, seat, built, index, tracer, seed, p.strategy.id))
            for seat, p in enumerate(spec.seated(index))]


def play_one(spec: Any, index: int, record: bool = False, seed: int | None = None,
             tracer: Any = None) -> GameResult:
    """Play game `index` of the run described by `spec` (its `move_timeout`
    applies); `seed` is its `game_seed`, when the caller has it already.
    Whatever a strategy raises (SystemExit and KeyboardInterrupt included, but
    not a real Ctrl-C) comes out as a StrategyError."""
    seed = game_seed(spec.seed, index) if seed is None else seed
    rules = spec.rules
    if not record and tracer is None and spec.move_timeout is None:
        result = play_seeded_natively(rules.variant, seats_of(spec, index), seed, rules.plans)
        if result is not None:
            return result
    built: list = []
    game = None
    try:
        game = Game(rules.variant, seats_of(spec, index, built, tracer, seed), seed, rules.plans, record)
        game.move_timeout = spec.move_timeout
        result = game.play()
    except StrategyError:
        raise
    except BaseException as exc:  # noqa: B036 - a strategy may raise anything, SystemExit included
        turn = getattr(game, "turn", 0) if game is not None else 0
        error = escaped_error(spec, index, seed, turn if isinstance(turn, int) else 0, built, exc)
        if error is None:
            raise
        raise error from None
    if result.record is not None:
        result.record = {"format": result.record["format"], "game": index,
                         **{k: v for k, v in result.record.items() if k != "format"}}
    return result


def prepare_chunk(spec: Any, seeds: list[int], start: int) -> None:
    """Hash the seed families of a chunk's games together (the game seed and
    one per seat), which is cheaper than one game at a time."""
    prepare_families(seeds, 1 + len(spec.seated(start)))


def play_run_game(spec: Any, index: int, seed: int, record: bool, tracer: Any = None) -> RunGame:
    """Game `index` of a run: its rows as columns and its record (None unless `record`)."""
    if tracer is None:
        result = play_one(spec, index, record, seed)
    else:
        result = play_one(spec, index, record, seed, tracer=tracer)
    return RunGame(game_rows(spec, index, result), result.record)
