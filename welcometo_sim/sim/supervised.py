"""A run of one job, played in one supervised worker process.

A strategy is code running in the process that plays its games. Played in
the command's own process, a strategy that calls ``os._exit`` ends the
command (exit 0, no table, a manifest left "running"), one that kills its
process takes the command with it, and one that never returns, or catches
the Ctrl-C or SIGTERM meant for the command and goes on, hangs it.

So a run of one job plays its chunks, in order, in one worker process
forked from the command (a fork costs milliseconds: nothing is imported or
sent again), which sends every finished chunk back through a pipe while it
plays the next one. The command only waits for chunks, so a signal always
reaches it, and it kills the worker on its way out. When the worker dies, the
chunk it had in hand is played again game by game in fresh processes
(``isolated``), which names the game, strategy, seat and turn, for the
run's ``on_error`` policy; a new worker goes on with the rest. Under a move
timeout the worker writes where it is into a trace file, and a watchdog
(``watchdog``) kills it when a move overruns.

Where processes cannot be forked (not POSIX), the chunks are played in the
command's process, as before.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import traceback
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Iterator

from .chunks import chunk_result
from .guard import die_with_parent
from .isolated import play_isolated
from .tracing import Tracer
from .watchdog import Watchdog


END_SECONDS = 5.0
"""How long a worker that has sent all its chunks may take to exit before it is killed."""


def can_fork() -> bool:
    """Whether this platform forks processes (POSIX): the supervised worker needs it."""
    return "fork" in multiprocessing.get_all_start_methods()


def supervised_chunks(spec: Any, bounds: list[tuple[int, int]], record: bool,
                      table_format: str | None) -> Iterator[Any]:
    """The ChunkResults of `bounds`, in order, played in a supervised worker
    process; one with a failure ends them."""
    pending = list(bounds)
    blamed: dict = {}
    with tempfile.TemporaryDirectory(prefix="wtsim-worker-") as scratch:
        trace = Path(scratch) / "trace"
        while pending:
            for chunk in _worker_chunks(spec, pending, record, table_format, trace, blamed):
                pending.pop(0)
                yield chunk
                if chunk.failure is not None:
                    return
            if not pending:
                return
            start, stop = pending.pop(0)  # the chunk the worker had in hand when it died
            chunk = play_isolated(spec, start, stop, record, blamed)
            yield chunk
            if chunk.failure is not None:
                return


def _worker_chunks(spec: Any, bounds: list[tuple[int, int]], record: bool, table_format: str | None,
                   trace: Path, blamed: dict) -> Iterator[Any]:
    """The chunks a new worker process sends back, until it has sent them all
    or dies; an exception the worker raised outside any game is raised here."""
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    worker = multiprocessing.get_context("fork").Process(
        target=_serve, args=(sender, spec, list(bounds), record, table_format, trace, os.getpid()),
        name="wtsim-worker", daemon=False)
    worker.start()
    sender.close()
    try:
        with Watchdog(spec, lambda: [(trace, worker.pid)], blamed):
            while True:
                message = _next_message(receiver, worker.sentinel)
                if message is not None and message[0] == "end":
                    worker.join(END_SECONDS)  # it flushes what its strategies printed, then exits
                    return
                if message is None:
                    return
                if message[0] == "raise":
                    raise message[1]
                yield message[1]
    finally:
        receiver.close()
        if worker.exitcode is None:
            worker.kill()
        worker.join()


def _next_message(receiver: Connection, sentinel: int) -> tuple | None:
    """The worker's next message, or None when it is dead and has nothing more to say."""
    while True:
        ready = wait([receiver, sentinel])
        if receiver in ready or receiver.poll():
            try:
                return receiver.recv()
            except (EOFError, OSError):
                return None
        if sentinel in ready:
            return None


def _serve(sender: Connection, spec: Any, bounds: list[tuple[int, int]], record: bool,
           table_format: str | None, trace: Path, parent: int) -> None:
    """The worker: play the chunks, send each back, and exit without running
    the command's exit handlers (they belong to the command)."""
    code = 0
    # Everything inherited from the command is the command's: frozen, it is never
    # collected here, so no finalizer of the command's objects runs in this
    # process (an unfinished dask run's generator, collected in a worker, waited
    # forever on the command's event loop, which a fork does not copy).
    gc.freeze()
    try:
        die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the command's: it ends this process
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        tracer = Tracer(trace) if spec.move_timeout is not None and spec.capabilities.move_timeout else None
        for start, stop in bounds:
            chunk = chunk_result(spec, start, stop, record, table_format, tracer)
            sender.send(("chunk", chunk))
            if chunk.failure is not None:
                break
        sender.send(("end",))
    except BaseException as exc:  # noqa: B036 - the command decides what an error outside a game means
        code = 1
        exc.add_note("".join(traceback.format_exception(exc)).rstrip())
        _send_raised(sender, exc)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream
                pass
        os._exit(code)


def _send_raised(sender: Connection, exc: BaseException) -> None:
    """Send an exception back as itself, or as a RuntimeError with its traceback
    when it cannot be pickled and unpickled (an exception class whose
    constructor takes other arguments than its message pickles, but the
    command could not rebuild it)."""
    try:
        pickle.loads(pickle.dumps(exc))
        sender.send(("raise", exc))
    except Exception:  # noqa: BLE001 - an exception that does not pickle
        text = "".join(traceback.format_exception(exc))
        try:
            sender.send(("raise", RuntimeError(f"the worker process failed: {text}")))
        except Exception:  # noqa: BLE001 - the command is gone
            pass
