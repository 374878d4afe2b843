"""Seeded, chunked, parallel runs of many games: scheduling chunks over workers.

Game i of a run with seed S is played with its own seed derived from
``numpy.random.SeedSequence(S, spawn_key=(i,))``; everything in the game
derives from that number (a chunk is played by ``chunks``, below this
module). Chunks of consecutive games go to workers
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

import logging
import math
import os
import sys
import tempfile
import time
import warnings
from concurrent.futures import CancelledError
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from joblib import Parallel, delayed, parallel_config

from ..config import ConfigError, RunSpec
from ..games.contract import StrategyError
from .chunks import TRACE_PREFIX, ChunkResult, batch_collection, game_seed, game_seeds, play_chunk
from .guard import loky_config, signal_received
from .isolated import WorkerLost, play_isolated
from .rows import empty_columns
from .supervised import can_fork, supervised_chunks
from .watchdog import Watchdog

MAX_CHUNK = 250
DASK_MISSING = "--backend dask needs dask.distributed: pip install 'welcometo-sim[dask]'"
SCHEDULER_TIMEOUT = "10s"
# Idle loky workers exit after this long (joblib's default keeps them 300 s), so
# they do not sit in memory while a long run assembles and summarises its table.
IDLE_WORKER_SECONDS = 10


def play_cluster_chunk(spec: RunSpec, start: int, stop: int, record: bool,
                       table_format: str | None = None) -> ChunkResult:
    """`play_chunk` as a task of a dask cluster worker. Under a move timeout
    the games are played in a supervised process forked from the worker, whose
    watchdog stops a strategy call that never returns (a thread of the worker
    could not be stopped, and would hold the worker and the run forever)."""
    if spec.move_timeout is not None and spec.capabilities.move_timeout and can_fork():
        chunks = list(supervised_chunks(spec, [(start, stop)], record, table_format))
        return chunks[0]
    return play_chunk(spec, start, stop, record, table_format)


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
            stack.enter_context(_children_write_to_devnull())
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


@contextmanager
def _children_write_to_devnull() -> Iterator[None]:
    """While a local cluster lives, point file descriptor 2 (which the worker
    processes inherit) at /dev/null, and keep this process's `sys.stderr` on
    the real standard error. A worker stopped while it starts (the run got
    SIGTERM) prints a traceback of its own, and one that outlives its run
    logs lost heartbeats: the user should see neither, as the run reports its
    own end and task errors come back through dask. A `sys.stderr` that is
    not file descriptor 2 (a test runner's capture) is left as it is."""
    original = sys.stderr
    try:
        on_fd_2 = original.fileno() == 2
    except (AttributeError, OSError, ValueError):
        on_fd_2 = False
    original.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    if on_fd_2:
        sys.stderr = open(saved, "w", encoding=original.encoding, errors=original.errors,
                          buffering=1, closefd=False)
    try:
        yield
    finally:
        if on_fd_2:
            sys.stderr.flush()
            sys.stderr = original
        os.dup2(saved, 2)
        os.close(saved)


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

    owner = os.getpid()
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
            # cancel would wait forever on the client's stopped event loop, or
            # collected in a forked process, which has no event loop at all.
            if waiting and not sys.is_finalizing() and os.getpid() == owner:
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
        if type(exc).__name__ == "ShutdownExecutorError":
            return False
        # A chunk finished while the command was exiting after a strategy error:
        # joblib's callback tried to send the next one to the stopped pool.
        return not (isinstance(exc, RuntimeError) and "after interpreter shutdown" in str(exc))


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


__all__ = ["game_seed", "game_seeds", "play_chunk", "batch_collection", "iter_chunks", "run_chunks", "chunk_bounds",
           "default_chunk_size", "check_backend", "release_workers", "dask_backend", "ChunkResult", "StrategyError"]
"""The chunk players among these live in ``chunks`` and stay importable from here."""
