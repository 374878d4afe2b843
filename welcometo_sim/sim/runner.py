"""Seeded, chunked, parallel runs of many games.

Game i of a run with seed S is played with its own seed derived from
``numpy.random.SeedSequence(S, spawn_key=(i,))``; everything in the game
derives from that number. Chunks of consecutive games go to workers
(local processes with loky, or tasks of a dask.distributed cluster), which return
compact column lists, so results are identical for any number of workers,
chunk size or backend.

A strategy that raises, answers illegally or exceeds ``move_timeout`` ends
its game with a :class:`StrategyError`; so does one that calls ``sys.exit``,
raises KeyboardInterrupt itself, or raises an exception that cannot be
printed (see ``guard``), and one that kills its worker process (its chunk is
then played again game by game in fresh processes, see ``isolated``). A run
of one job plays in a supervised worker process too (``supervised``), and a
move that overruns ``move_timeout`` is stopped by a watchdog that kills its
worker (``watchdog``), at any number of jobs. With
``on_error: fail`` the worker stops its chunk there and hands the error
back; with ``on_error: skip`` the game is left out of the rows, listed in
the chunk's ``errors``, and the chunk goes on.
"""

from __future__ import annotations

import gc
import json
import logging
import math
import os
import sys
import tempfile
import time
import warnings
from concurrent.futures import CancelledError
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

from joblib import Parallel, delayed, parallel_config

from ..config import WELCOME_TO, ConfigError, RunSpec
from ..rules.game import Game, GameResult, Seat, StrategyError
from ..rules.seeding import SeedFamily, prepare_families
from .guard import describe, escaped_error, interrupt_signals, loky_config, signal_received, watch_parent
from .isolated import Traced, Tracer, WorkerLost, play_isolated
from .results import encode_table, parquet_available
from .rows import empty_columns, game_rows, other_game_rows
from .supervised import can_fork, supervised_chunks
from .watchdog import Watchdog

MAX_CHUNK = 250
DASK_MISSING = "--backend dask needs dask.distributed: pip install 'welcometo-sim[dask]'"
SCHEDULER_TIMEOUT = "10s"
# Idle loky workers exit after this long (joblib's default keeps them 300 s), so
# they do not sit in memory while a long run assembles and summarises its table.
IDLE_WORKER_SECONDS = 10
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


class _Built:
    """A seat's strategy factory that remembers the strategy it built (to tell
    whose frames a traceback holds) and, for a traced replay, wraps it."""

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


def seats_of(spec: RunSpec, index: int = 0, built: list | None = None, tracer: Any = None,
             seed: int | None = None) -> list[Seat]:
    """The seats of game `index`; with `built`, every strategy built for them is
    appended to it, and a strategy whose constructor raises is a StrategyError."""
    if built is None:
        return [Seat(p.name, p.strategy.id, p.strategy) for p in spec.seated(index)]
    return [Seat(p.name, p.strategy.id, _Built(p.strategy, seat, built, index, tracer, seed, p.strategy.id))
            for seat, p in enumerate(spec.seated(index))]


def play_one(spec: RunSpec, index: int, record: bool = False, seed: int | None = None,
             tracer: Any = None) -> GameResult:
    """Play game `index` of the run described by `spec` (its `move_timeout`
    applies); `seed` is its `game_seed`, when the caller has it already.
    Whatever a strategy raises (SystemExit and KeyboardInterrupt included, but
    not a real Ctrl-C) comes out as a StrategyError."""
    seed = game_seed(spec.seed, index) if seed is None else seed
    built: list = []
    game = None
    try:
        game = Game(spec.variant, seats_of(spec, index, built, tracer, seed), seed, spec.plans, record)
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
            if spec.move_timeout is not None and spec.game == WELCOME_TO:
                tracer = _process_tracer(marks)
        except OSError:
            pass
    with interrupt_signals():
        return chunk_result(spec, start, stop, record, table_format, tracer)


def play_cluster_chunk(spec: RunSpec, start: int, stop: int, record: bool,
                       table_format: str | None = None) -> ChunkResult:
    """`play_chunk` as a task of a dask cluster worker. Under a move timeout
    the games are played in a supervised process forked from the worker, whose
    watchdog stops a strategy call that never returns (a thread of the worker
    could not be stopped, and would hold the worker and the run forever)."""
    if spec.move_timeout is not None and spec.game == WELCOME_TO and can_fork():
        chunks = list(supervised_chunks(spec, [(start, stop)], record, table_format))
        return chunks[0]
    return play_chunk(spec, start, stop, record, table_format)


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
    if spec.game == WELCOME_TO:
        prepare_families(seeds, 1 + len(spec.seated(start)))  # every game's own seeds, hashed together
        store = _store_welcome_to
    else:
        store = _store_other_game
    for index, seed in zip(range(start, stop), seeds):
        try:
            if tracer is None:
                store(spec, index, seed, record, chunk)
            else:
                _store_welcome_to(spec, index, seed, record, chunk, tracer)
        except StrategyError as error:
            chunk.errors.append(error_row(spec, index, error))
            if spec.on_error == "fail":
                chunk.failure = error
                return chunk
    return chunk


def _store_welcome_to(spec: RunSpec, index: int, seed: int, record: bool, chunk: ChunkResult,
                      tracer: Tracer | None = None) -> None:
    """Play game `index` of Welcome To and add its rows (and record) to `chunk`;
    with a `tracer`, every strategy call is traced for the move timeout's watchdog."""
    if tracer is None:
        result = play_one(spec, index, record, seed)
    else:
        result = play_one(spec, index, record, seed, tracer=tracer)
    for key, values in game_rows(spec, index, result).items():
        chunk.columns[key].extend(values)
    if result.record is not None:
        chunk.records.append(json.dumps(result.record, separators=(",", ":")))


@lru_cache(maxsize=8)
def _loaded_game(name: str, params_json: str, n_players: int) -> Any:
    """The game of a run, loaded once per process (its rules are checked and read-only)."""
    from ..games import load_game

    return load_game(name, json.loads(params_json), n_players)


def run_game(spec: RunSpec) -> Any:
    """The :class:`~welcometo_sim.games.Game` a run of another game plays."""
    params = json.dumps(spec.game_params or {}, sort_keys=True)
    return _loaded_game(spec.game, params, len(spec.players))


def play_other(spec: RunSpec, index: int, seed: int) -> Any:
    """Game `index` of a run of another game; a strategy's failure is a StrategyError."""
    game = run_game(spec)
    seated = spec.seated(index)
    try:
        return game.play([p.strategy.seat(p.name) for p in seated], seed)
    except Exception as exc:  # noqa: BLE001 - whatever a strategy raised, named with its game
        seat = getattr(exc, "seat", -1)
        strategy = seated[seat].strategy.id if 0 <= seat < len(seated) else "?"
        problem = str(exc).split(": ", 1)[-1] if hasattr(exc, "round") else f"raised {describe(exc)}"
        raise StrategyError(strategy, seat, seed, getattr(exc, "round", 0), problem) from None


def _store_other_game(spec: RunSpec, index: int, seed: int, record: bool, chunk: ChunkResult) -> None:
    """Play game `index` of another game through its game interface and add its rows to `chunk`."""
    result = play_other(spec, index, seed)
    other_game_rows(index, result.rows, chunk.columns)
    if record:
        chunk.records.append(json.dumps({**result.record, "index": index}, separators=(",", ":")))


def default_chunk_size(games: int, jobs: int) -> int:
    """Enough chunks for load balance (about 8 per worker), few enough to keep overhead low."""
    return max(1, min(MAX_CHUNK, math.ceil(games / (max(1, jobs) * 8))))


def chunk_bounds(games: int, jobs: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """Split games into consecutive (start, stop) chunks."""
    if chunk_size is None:
        chunk_size = default_chunk_size(games, jobs)
    return [(start, min(start + chunk_size, games)) for start in range(0, games, chunk_size)]


OVERSUBSCRIBE_VARIABLE = "WTSIM_OVERSUBSCRIBE"
"""Set (to anything but empty or 0) to start more local workers than the machine has cores."""


def effective_jobs(jobs: int) -> int:
    """joblib's meaning of jobs (-1 = all cores) as a positive count, at most
    the machine's cores (more workers would only share them, each with its
    own memory) unless WTSIM_OVERSUBSCRIBE is set."""
    from joblib import cpu_count

    cores = cpu_count()
    if jobs <= 0:
        return max(1, cores + 1 + jobs)
    if os.environ.get(OVERSUBSCRIBE_VARIABLE, "") not in ("", "0"):
        return jobs
    return min(jobs, cores)


def check_backend(spec: RunSpec) -> None:
    """Fail before anything is written when the run's backend is not installed."""
    if spec.backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ConfigError(DASK_MISSING) from None


DASK_POLL_SECONDS = 0.5
"""How often a dask run looks at its scheduler and workers while it waits for chunks."""
SCHEDULER_GONE_SECONDS = 10.0
"""A scheduler that does not answer for this long has gone away: the run stops (exit 3)."""
NO_WORKER_SECONDS = 60.0
"""A cluster without a single worker for this long cannot play the run: it stops (exit 3)."""


@contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A dask.distributed client of the cluster at `scheduler`, or of a local
    cluster of `workers` single-threaded processes when no address is given.
    The cluster's own log lines about lost connections are kept quiet while
    it is used: the run reports them in one line of its own."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(DASK_MISSING) from None
    with ExitStack() as stack:
        stack.push(_quiet_dask_logs())
        if scheduler:
            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ConfigError(f"--scheduler {scheduler}: cannot connect: {exc}") from None
        else:
            cluster = _local_cluster(LocalCluster, workers)
            stack.callback(_close_quietly, cluster)
            client = Client(cluster)
        stack.callback(_close_quietly, client)
        yield client


def _local_cluster(factory: Callable[..., Any], workers: int) -> Any:
    """A local cluster that this run closes, and dask never again at exit: a
    cluster stopped (Ctrl-C, SIGTERM) while its workers start fails that second
    close with a traceback. Stopped while it is being made, it is closed here."""
    from distributed.deploy.spec import SpecCluster

    instances = getattr(SpecCluster, "_instances", set())  # dask's own register of clusters to close at exit
    before = set(instances)
    try:
        cluster = factory(n_workers=workers, threads_per_worker=1, dashboard_address=":0",
                          silence_logs=logging.ERROR)
    except BaseException:
        for unfinished in set(instances) - before:
            unfinished.shutdown_on_close = False
            _close_quietly(unfinished)
        raise
    cluster.shutdown_on_close = False
    return cluster


def _reason(exc: BaseException) -> str:
    """Why dask gave up, in a few words: the scheduler connection, or the error's class."""
    text = str(exc)
    if "scheduler-connection-lost" in text or "lost the connection to the scheduler" in text:
        return "the connection to the scheduler was lost"
    return type(exc).__name__


def _quiet_dask_logs() -> Callable[..., None]:
    """Silence every distributed.* logger (each may have its own level) and
    asyncio's; returns the undo, an exit callback that leaves them silent when
    the run ends by an exception (a signal, a lost cluster): the tasks of
    workers that never started then report their end at interpreter exit."""
    names = ["asyncio", "distributed",
             *(name for name in logging.root.manager.loggerDict if name.startswith("distributed."))]
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)

    def restore(exc_type: Any, *_exc: Any) -> None:
        if exc_type is None:
            for name, level in levels.items():
                logging.getLogger(name).setLevel(level)
    return restore


def _close_quietly(closable: Any) -> None:
    """Close a dask client or cluster, which may fail when its scheduler is
    gone or its workers are still starting: the run reports its own end."""
    try:
        closable.close(timeout=2)
    except Exception:  # noqa: BLE001
        pass


@contextmanager
def dask_backend(scheduler: str | None, workers: int) -> Iterator[None]:
    """joblib's dask backend on the cluster of `dask_client` (runs use
    `_dask_chunks`, which watches the cluster; this is for other joblib loops)."""
    with dask_client(scheduler, workers):
        with parallel_config(backend="dask"):
            yield


def _dask_chunks(spec: RunSpec, bounds: list[tuple[int, int]], record: bool, ordered: bool,
                 table_format: str | None, workers: int) -> Iterator[ChunkResult]:
    """The chunks, played as tasks of a dask cluster and yielded in game order
    when `ordered`. The run never waits forever: a scheduler that stops
    answering for SCHEDULER_GONE_SECONDS, or a cluster left without workers for
    NO_WORKER_SECONDS, is a WorkerLost (one line, exit 3; the chunks saved so
    far are kept). A chunk whose task killed its workers (dask gives up after
    a few tries) is played again game by game in fresh local processes, as
    with loky, which names the game that kills them."""
    from dask.distributed import wait
    from distributed import KilledWorker

    with dask_client(spec.scheduler, workers) as client:
        where = spec.scheduler or "the local dask cluster"
        futures = {client.submit(play_cluster_chunk, spec, start, stop, record, table_format, pure=False): (start, stop)
                   for start, stop in bounds}
        waiting = set(futures)
        ready: dict[int, ChunkResult] = {}
        order = [start for start, _stop in bounds]
        position = 0
        unanswered = without_workers = 0.0
        last = time.monotonic()
        try:
            while waiting:
                try:
                    done, waiting = wait(waiting, timeout=DASK_POLL_SECONDS, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                except (CancelledError, OSError) as exc:
                    raise WorkerLost(f"lost {where} ({_reason(exc)})") from None
                now = time.monotonic()
                elapsed, last = now - last, now
                for future in done:
                    start, stop = futures[future]
                    try:
                        chunk = future.result(timeout=SCHEDULER_GONE_SECONDS)
                    except KilledWorker:
                        chunk = play_isolated(spec, start, stop, record)
                    except (OSError, TimeoutError, CancelledError) as exc:
                        raise WorkerLost(f"lost {where} while fetching games {start}-{stop - 1} "
                                         f"({_reason(exc)})") from None
                    if chunk.failure is not None or not ordered:
                        yield chunk
                        if chunk.failure is not None:
                            return
                        continue
                    ready[start] = chunk
                    while position < len(order) and order[position] in ready:
                        yield ready.pop(order[position])
                        position += 1
                if done or not waiting:
                    continue
                if client.status != "running":
                    unanswered += elapsed
                    if unanswered >= SCHEDULER_GONE_SECONDS:
                        raise WorkerLost(f"the dask scheduler at {where} went away (no answer for "
                                         f"{SCHEDULER_GONE_SECONDS:g} s)")
                    continue
                unanswered = 0.0
                try:
                    workers_now = len(client.nthreads())
                except Exception:  # noqa: BLE001 - the scheduler went away between two looks
                    continue
                without_workers = without_workers + elapsed if workers_now == 0 else 0.0
                if without_workers >= NO_WORKER_SECONDS:
                    raise WorkerLost(f"{where} has had no worker for {NO_WORKER_SECONDS:g} s")
            for start in order[position:]:
                if start in ready:
                    yield ready.pop(start)
        finally:
            # A generator left unfinished is closed at interpreter exit, when a
            # cancel would wait forever on the client's stopped event loop.
            if waiting and not sys.is_finalizing():
                try:
                    client.cancel(list(waiting))
                except Exception:  # noqa: BLE001 - nothing left to cancel on a dead scheduler
                    pass


def iter_chunks(spec: RunSpec, bounds: list[tuple[int, int]] | None = None, record: bool = False,
                ordered: bool = True, table_format: str | None = None) -> Iterator[ChunkResult]:
    """Play the chunks `bounds` (default: the whole run) and yield them in game
    order, or as they finish when not `ordered`; with a `table_format`, each
    complete chunk carries its table file's bytes instead of columns."""
    if bounds is None:
        bounds = chunk_bounds(spec.games, effective_jobs(spec.jobs), spec.chunk_size)
    jobs = effective_jobs(spec.jobs)
    if spec.backend == "dask":
        yield from _dask_chunks(spec, bounds, record, ordered, table_format, jobs)
        return
    if jobs == 1 and can_fork():
        yield from supervised_chunks(spec, bounds, record, table_format)
        return
    if jobs == 1:
        for start, stop in bounds:
            yield play_chunk(spec, start, stop, record, table_format)
        return
    yield from _loky_chunks(spec, bounds, record, ordered, table_format, jobs)


class _AfterShutdown(logging.Filter):
    """Drops loky's reports of chunks that could not be sent after the run
    stopped its pool on purpose (a strategy error, Ctrl-C): not errors of the run."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return type(exc).__name__ != "ShutdownExecutorError"


_AFTER_SHUTDOWN = _AfterShutdown()


def _quiet_shutdown() -> None:
    logger = logging.getLogger("concurrent.futures")
    if _AFTER_SHUTDOWN not in logger.filters:
        logger.addFilter(_AFTER_SHUTDOWN)
        warnings.filterwarnings("ignore", r"\d+ tasks (have been successfully executed|which were still being "
                                r"processed)", UserWarning, r"joblib\.parallel")


def _worker_died(exc: BaseException) -> bool:
    from joblib.externals.loky.process_executor import BrokenProcessPool, TerminatedWorkerError

    return isinstance(exc, (TerminatedWorkerError, BrokenProcessPool))


def _loky_chunks(spec: RunSpec, bounds: list[tuple[int, int]], record: bool, ordered: bool,
                 table_format: str | None, jobs: int) -> Iterator[ChunkResult]:
    """The chunks, played by loky workers. When a worker dies, the chunks it
    may have had in hand (those started and not returned) are played again
    game by game in fresh processes (`play_isolated`), which finds the game
    that killed it; the others go back to a new pool. The chunks come in game
    order when `ordered`. Under a move timeout, a watchdog kills the worker
    whose strategy call overruns it; its game is blamed, not played again."""
    _quiet_shutdown()
    pending = list(bounds)
    ready: dict[int, ChunkResult] = {}
    return_as = "generator" if ordered else "generator_unordered"
    blamed: dict[int, StrategyError] = {}
    with tempfile.TemporaryDirectory(prefix="wtsim-chunks-") as marks, \
            Watchdog(spec, lambda: _worker_traces(marks), blamed):
        while pending:
            parent = os.getpid()
            tasks = (delayed(play_chunk)(spec, start, stop, record, table_format, parent, marks)
                     for start, stop in pending)
            returned: set[int] = set()
            try:
                with loky_config(idle_worker_timeout=IDLE_WORKER_SECONDS):
                    for chunk in Parallel(n_jobs=jobs, return_as=return_as)(tasks):
                        returned.add(chunk.start)
                        while ordered and ready and min(ready) < chunk.start:
                            yield ready.pop(min(ready))
                        yield chunk
                        if chunk.failure is not None:
                            return
                pending = []
            except Exception as exc:
                if not _worker_died(exc):
                    raise
                if signal_received() is not None:
                    raise KeyboardInterrupt from None
                pending = [(a, b) for a, b in pending if a not in returned]
                in_hand = [(a, b) for a, b in pending if Path(marks, str(a)).exists()]
                if not in_hand:
                    raise WorkerLost(f"a worker process died before it played any game ({exc})") from None
                for trace, _pid in _worker_traces(marks):
                    trace.unlink(missing_ok=True)
                for start, stop in in_hand:
                    chunk = play_isolated(spec, start, stop, record, blamed)
                    pending.remove((start, stop))
                    if chunk.failure is not None or not ordered:
                        yield chunk
                        if chunk.failure is not None:
                            return
                    else:
                        ready[start] = chunk
                for start, _stop in pending:
                    Path(marks, str(start)).unlink(missing_ok=True)
        for start in sorted(ready):
            yield ready[start]


def _worker_traces(marks: str) -> list[tuple[Path, int]]:
    """The trace files of the workers of a run (see `play_chunk`), with their process ids."""
    return [(path, int(path.name[len(TRACE_PREFIX):])) for path in Path(marks).glob(f"{TRACE_PREFIX}*")]


def release_workers() -> None:
    """Stop joblib's idle loky workers now rather than after IDLE_WORKER_SECONDS:
    called once every chunk of a run is played, so that the workers' memory is
    given back before the parent assembles and summarises the final table."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)  # None: no worker was ever started
    if executor is None:
        return
    if hasattr(executor, "terminate"):  # joblib's executor also cleans its temporary folder
        executor.terminate(kill_workers=False)
    else:
        executor.shutdown(wait=True)


def run_chunks(spec: RunSpec, record: bool = False,
               on_chunk: Callable[[ChunkResult], None] | None = None) -> tuple[dict[str, list], float]:
    """Play the whole run in memory; returns all columns and the wall time in seconds.
    `on_chunk` sees every chunk as it arrives (progress bars, record writers).
    Raises the first StrategyError under on_error fail; skipped games have no rows."""
    started = time.perf_counter()
    columns = empty_columns(spec.game)
    for chunk in iter_chunks(spec, record=record):
        if chunk.failure is not None:
            raise chunk.failure
        for key, values in chunk.columns.items():
            columns[key].extend(values)
        if on_chunk is not None:
            on_chunk(chunk)
    return columns, time.perf_counter() - started


__all__ = ["game_seed", "game_seeds", "play_one", "play_chunk", "batch_collection", "iter_chunks", "run_chunks", "chunk_bounds",
           "default_chunk_size", "check_backend", "release_workers", "dask_backend", "ChunkResult", "StrategyError"]
