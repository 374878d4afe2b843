"""Playing a chunk of a run: the games' seeds, one game, a chunk of games, error rows.

Game i of a run with seed S is played with its own seed derived from
``numpy.random.SeedSequence(S, spawn_key=(i,))``; everything in the game
derives from that number, so a chunk plays the same games in any process.
This is what a worker runs; scheduling chunks over workers (loky, dask, a
supervised process) is `runner`, above this module, as are the fallbacks
that play a chunk again (`isolated`, `supervised`) and the move timeout's
`watchdog`.
"""

from __future__ import annotations

import gc
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from ..config import RunSpec, loaded_game
from ..games import game_module
from ..games.contract import StrategyError
from ..games.records import numbered
from ..games.seeding import SeedFamily
from .frames import encode_table, parquet_available
from .guard import describe, escaped_error, interrupt_signals, signal_received, watch_parent
from .rows import empty_columns, other_game_rows
from .tracing import Traced, Tracer

BATCH_GC_THRESHOLD = 10_000
"""Young-generation threshold of the cyclic garbage collector while a chunk is played."""


@lru_cache(maxsize=64)
def run_seeds(run_seed: int) -> SeedFamily:
    """The games' seed family of a run seed (its mixing is shared by all games)."""
    return SeedFamily(run_seed)


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: the top 63 bits of the first uint64 of
    SeedSequence(run_seed, spawn_key=(index,)).generate_state (made by `seeding`)."""
    return run_seeds(run_seed).child_uint64(index) >> 1


def game_seeds(run_seed: int, start: int, stop: int) -> list[int]:
    """`game_seed` of games start .. stop - 1, hashed together."""
    return [seed >> 1 for seed in run_seeds(run_seed).children_uint64(range(start, stop))]


class RunGame(NamedTuple):
    """One finished game of a run: its rows as columns (the game number
    included) and its JSON record with the game number (None when the run
    keeps no records)."""

    columns: dict[str, list]
    record: dict | None


class WatchedFactory:
    """A seat's strategy factory that remembers the strategy it built (to tell
    whose frames a traceback holds, see guard.escaped_error) and, for a traced
    replay, wraps it; a game that plays its runs on its own driver builds its
    seats' strategies through it."""

    __slots__ = ("factory", "seat", "built", "game", "tracer", "seed", "strategy_id")

    def __init__(self, factory: Callable, seat: int, built: list, game: int, tracer: Any,
                 seed: int | None = None, strategy_id: str = "?") -> None:
        self.factory, self.seat, self.built, self.game, self.tracer = factory, seat, built, game, tracer
        self.seed, self.strategy_id = seed, strategy_id

    def __call__(self, rng: Any) -> Any:
        if self.tracer is not None:
            self.tracer.mark(self.game, self.seat, 0, "__init__")
        try:
            strategy = self.factory(rng)
            if self.tracer is not None:
                self.tracer.returned()
        except BaseException as exc:  # noqa: B036 - a strategy's constructor may raise anything
            if isinstance(exc, KeyboardInterrupt) and signal_received() is not None:
                raise
            raise StrategyError(self.strategy_id, self.seat, self.seed if self.seed is not None else -1, 0,
                                f"raised {describe(exc)} in __init__") from None
        self.built.append((self.seat, strategy))
        return strategy if self.tracer is None else Traced(strategy, self.seat, self.game, self.tracer)


def error_row(spec: RunSpec, index: int, error: StrategyError) -> dict:
    """One line of errors.csv: which game, who, when, and what went wrong (seat
    -1 and no player when no seat can be named)."""
    seated = spec.seated(index)
    player = seated[error.seat].name if 0 <= error.seat < len(seated) else ""
    return {"game": index, "seed": error.seed, "seat": error.seat, "player": player,
            "strategy": error.strategy, "turn": error.turn, "message": error.problem}


@dataclass
class ChunkResult:
    """What a worker sends back: the finished games' rows, their JSON record
    lines, one row per errored game, and (on_error fail) the error that
    stopped the chunk, in which case the chunk is incomplete.

    The rows come as columns, or, when the run saves its chunks to files of
    `table_format`, as that file's bytes in `table` (`columns` then empty):
    tens of kilobytes to send instead of thousands of Python objects, and
    encoded by the worker rather than by the parent."""

    start: int
    stop: int
    columns: dict[str, list]
    records: list[str]
    errors: list[dict] = field(default_factory=list)
    failure: StrategyError | None = None
    table_format: str | None = None
    table: bytes | None = None
    rows: int | None = None

    @property
    def games(self) -> int:
        return self.stop - self.start


@contextmanager
def batch_collection(threshold: int = BATCH_GC_THRESHOLD) -> Iterator[None]:
    """Play a batch of games with fewer runs of the cyclic garbage collector.

    A game allocates tens of thousands of short-lived containers (plays,
    lists, dicts), nearly all freed at once by reference counting. With
    CPython's default threshold (700 allocations) the collector still runs
    dozens of times per game, walking the surviving objects each time: about
    an eighth of the instructions of a random solo game (see
    benchmarks/README.md). A higher threshold keeps the collector (reference
    cycles are still found, only less often); the caller's setting is
    restored afterwards.
    """
    previous = gc.get_threshold()
    gc.set_threshold(threshold, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def play_chunk(spec: RunSpec, start: int, stop: int, record: bool,
               table_format: str | None = None, parent: int | None = None,
               marks: str | None = None) -> ChunkResult:
    """Play games start..stop-1 (runs in a worker); with a `table_format`, send
    the rows of a complete chunk as the bytes of its table file (or as
    columns, for the parent to encode, from a cluster worker without pyarrow).
    A worker started by process `parent` exits when that process is gone; with
    `marks` (a folder), the chunk leaves a file there when it starts, so that
    the parent knows which chunks a dead worker had in hand, and under a move
    timeout the worker traces its strategy calls in a file of its own there
    (``pid-<pid>``) for the parent's watchdog."""
    watch_parent(parent)
    tracer = None
    if marks is not None:
        try:
            Path(marks, str(start)).touch()
            if spec.move_timeout is not None and spec.capabilities.move_timeout:
                tracer = _process_tracer(marks)
        except OSError:
            pass
    with interrupt_signals():
        return chunk_result(spec, start, stop, record, table_format, tracer)


@lru_cache(maxsize=4)
def _process_tracer(marks: str) -> Tracer:
    """This worker process's trace file in the run's `marks` folder."""
    return Tracer(Path(marks, f"{TRACE_PREFIX}{os.getpid()}"))


TRACE_PREFIX = "pid-"
"""The trace files of loky workers in a run's marks folder: pid-<process id>."""


def chunk_result(spec: RunSpec, start: int, stop: int, record: bool, table_format: str | None = None,
                 tracer: Tracer | None = None) -> ChunkResult:
    """Play games start..stop-1 in this process (see `play_chunk`), tracing
    every strategy call with `tracer` when one is given."""
    with batch_collection():
        chunk = _play_chunk(spec, start, stop, record, tracer)
    if table_format is None or chunk.failure is not None:
        return chunk
    if table_format == "parquet" and not parquet_available():
        return chunk
    chunk.rows = len(chunk.columns["game"])
    chunk.table, chunk.table_format, chunk.columns = encode_table(chunk.columns, table_format), table_format, {}
    return chunk


def _play_chunk(spec: RunSpec, start: int, stop: int, record: bool, tracer: Tracer | None = None) -> ChunkResult:
    """Play games `start`..`stop` of a run; a failing strategy's game becomes an error row
    (or stops the chunk under `on_error: fail`), the others keep their rows and records."""
    seeds = game_seeds(spec.seed, start, stop)
    chunk = ChunkResult(start, stop, empty_columns(spec.game), [])
    module = game_module(spec.game)
    prepare = getattr(module, "prepare_chunk", None)
    if prepare is not None:
        prepare(spec, seeds, start)
    play = getattr(module, "play_run_game", play_through_game)
    for index, seed in zip(range(start, stop), seeds):
        try:
            game = play(spec, index, seed, record, tracer) if tracer is not None else play(spec, index, seed, record)
        except StrategyError as error:
            chunk.errors.append(error_row(spec, index, error))
            if spec.on_error == "fail":
                chunk.failure = error
                return chunk
            continue
        for key, values in game.columns.items():
            chunk.columns[key].extend(values)
        if game.record is not None:
            chunk.records.append(json.dumps(game.record, separators=(",", ":")))
    return chunk


def play_in_run(spec: RunSpec, index: int, seed: int, record: bool, tracer: Tracer | None = None) -> RunGame:
    """Game `index` of a run, played as `_play_chunk` plays it: by the game's own
    `play_run_game` when its module has one, else through its `Game.play`."""
    play = getattr(game_module(spec.game), "play_run_game", play_through_game)
    return play(spec, index, seed, record, tracer) if tracer is not None else play(spec, index, seed, record)


def play_other(spec: RunSpec, index: int, seed: int) -> Any:
    """Game `index` of a run through the game's `Game.play` (its result: rows and
    record); a strategy's failure is a StrategyError naming the run's strategy."""
    game = loaded_game(spec.game, spec.game_params, len(spec.players))
    seated = spec.seated(index)
    try:
        return game.play([p.strategy.seat(p.name) for p in seated], seed)
    except StrategyError as exc:  # named as the run names the seat's strategy
        seat = exc.seat
        strategy = seated[seat].strategy.id if 0 <= seat < len(seated) else exc.strategy
        raise StrategyError(strategy, seat, seed, exc.turn, exc.problem, exc.unit) from None
    except Exception as exc:  # noqa: BLE001 - whatever else a strategy raised, named with its game
        ids = "/".join(p.strategy.id for p in seated)
        raise StrategyError(ids, -1, seed, 0, f"raised {describe(exc)}") from None


def play_through_game(spec: RunSpec, index: int, seed: int, record: bool, tracer: Tracer | None = None) -> RunGame:
    """Game `index` of a run through the game's `Game.play`, for a game without
    a `play_run_game` of its own (`tracer` is unused: such a game has no move timeout)."""
    result = play_other(spec, index, seed)
    columns = empty_columns(spec.game)
    other_game_rows(index, result.rows, columns)
    return RunGame(columns, numbered(result.record, index) if record else None)
