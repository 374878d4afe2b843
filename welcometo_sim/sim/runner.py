"""Seeded, chunked, parallel runs of many games.

Game i of a run with seed S is played with its own seed derived from
``numpy.random.SeedSequence(S, spawn_key=(i,))``; everything in the game
derives from that number. Chunks of consecutive games go to joblib workers,
which return compact column lists, so results are identical for any number
of workers or chunk size.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
from joblib import Parallel, delayed

from ..config import RunSpec
from ..rules.game import Game, GameResult, Seat, StrategyError
from .rows import empty_columns, game_rows

MAX_CHUNK = 250


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: 63 bits from SeedSequence(run_seed, spawn_key=(index,))."""
    state = np.random.SeedSequence(run_seed, spawn_key=(index,)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def seats_of(spec: RunSpec, index: int = 0) -> list[Seat]:
    return [Seat(p.name, p.strategy.id, p.strategy) for p in spec.seated(index)]


def play_one(spec: RunSpec, index: int, record: bool = False) -> GameResult:
    """Play game `index` of the run described by `spec`."""
    game = Game(spec.variant, seats_of(spec, index), game_seed(spec.seed, index), spec.plans, record)
    result = game.play()
    if result.record is not None:
        result.record = {"format": result.record["format"], "game": index,
                         **{k: v for k, v in result.record.items() if k != "format"}}
    return result


@dataclass
class ChunkResult:
    """What a worker sends back: the games' rows as columns, and JSON record lines."""

    start: int
    stop: int
    columns: dict[str, list]
    records: list[str]


def play_chunk(spec: RunSpec, start: int, stop: int, record: bool) -> ChunkResult:
    """Play games start..stop-1 (runs in a worker process)."""
    columns = empty_columns()
    records = []
    for index in range(start, stop):
        result = play_one(spec, index, record)
        for key, values in game_rows(spec, index, result).items():
            columns[key].extend(values)
        if result.record is not None:
            records.append(json.dumps(result.record, separators=(",", ":")))
    return ChunkResult(start, stop, columns, records)


def chunk_bounds(games: int, jobs: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """Split games into chunks: enough for load balance, few enough to keep overhead low."""
    if chunk_size is None:
        workers = max(1, jobs)
        chunk_size = max(1, min(MAX_CHUNK, math.ceil(games / (workers * 8))))
    return [(start, min(start + chunk_size, games)) for start in range(0, games, chunk_size)]


def effective_jobs(jobs: int) -> int:
    """joblib's meaning of jobs (-1 = all cores) as a positive count."""
    from joblib import cpu_count

    return jobs if jobs > 0 else max(1, cpu_count() + 1 + jobs)


def iter_chunks(spec: RunSpec, record: bool = False) -> Iterator[ChunkResult]:
    """Play the run and yield its chunks in game order as they finish."""
    jobs = effective_jobs(spec.jobs)
    bounds = chunk_bounds(spec.games, jobs, spec.chunk_size)
    if jobs == 1:
        for start, stop in bounds:
            yield play_chunk(spec, start, stop, record)
        return
    parallel = Parallel(n_jobs=jobs, return_as="generator")
    yield from parallel(delayed(play_chunk)(spec, start, stop, record) for start, stop in bounds)


def run_chunks(spec: RunSpec, record: bool = False,
               on_chunk: Callable[[ChunkResult], None] | None = None) -> tuple[dict[str, list], float]:
    """Play the whole run; returns all columns and the wall time in seconds.
    `on_chunk` sees every chunk as it arrives (progress bars, record writers)."""
    started = time.perf_counter()
    columns = empty_columns()
    for chunk in iter_chunks(spec, record):
        for key, values in chunk.columns.items():
            columns[key].extend(values)
        if on_chunk is not None:
            on_chunk(chunk)
    return columns, time.perf_counter() - started


__all__ = ["game_seed", "play_one", "play_chunk", "iter_chunks", "run_chunks", "chunk_bounds",
           "ChunkResult", "StrategyError"]
