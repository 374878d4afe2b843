"""A chunk whose worker process died, played again game by game in a fresh process.

When a worker dies (``os._exit`` or a segfault in a strategy, the OOM
killer), the pool cannot say which game did it. The chunks that were in
flight are played again here, each in a new Python process that plays its
games one at a time and sends every finished game back at once; before
every strategy call it writes the game, seat, turn and hook to a small trace
file. When the process dies, the game it was playing is the culprit: it
becomes a StrategyError (``crashed its worker process``) naming the
strategy, seat, game seed and turn from the trace, and the run's
``on_error`` policy decides, as for any strategy error. Under ``skip`` a new
process goes on with the next game.

The child runs :func:`child_main` with the write end of a pipe and the
trace file's path as arguments, and reads its job from stdin; not an
interface of its own.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterator

from ..games.contract import StrategyError
from .chunks import ChunkResult, batch_collection, error_row, game_seed, play_in_run
from .guard import watch_parent
from .rows import empty_columns
from .tracing import Tracer, Where, read_trace
from .watchdog import Watchdog

LENGTH = struct.Struct("<Q")
CHILD = "import sys; from welcometo_sim.sim.isolated import child_main; child_main(sys.argv[1:])"


class WorkerLost(RuntimeError):
    """Worker processes died where no game can be blamed (one line for the user)."""


# ------------------------------------------------------------ messages
def _send(out: BinaryIO, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(LENGTH.pack(len(data)) + data)
    out.flush()


def _messages(source: BinaryIO) -> Iterator[Any]:
    while True:
        head = source.read(LENGTH.size)
        if len(head) < LENGTH.size:
            return
        data = source.read(LENGTH.unpack(head)[0])
        try:
            yield pickle.loads(data)
        except Exception:  # noqa: BLE001 - a message cut short by the death of the process
            return


def _signal_name(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# ------------------------------------------------------------ parent side
def play_isolated(spec: Any, start: int, stop: int, record: bool, blamed: dict | None = None) -> ChunkResult:
    """Play games start..stop-1 one by one in fresh processes; a ChunkResult
    with columns (never a table file). A game whose process dies, and a game
    of `blamed` (game index -> StrategyError, e.g. a move that overran its
    timeout and got its process killed), is a StrategyError under the run's
    on_error policy; the games of `blamed` are not played again."""
    blamed = {} if blamed is None else blamed
    chunk = ChunkResult(start, stop, empty_columns(spec.game), [])
    index = start
    while index < stop:
        if index not in blamed:
            end = min([stop, *(game for game in blamed if index < game < stop)])
            index = _replay(spec, index, end, record, chunk, blamed)
            if chunk.failure is not None:
                return chunk
            continue
        error = blamed[index]
        chunk.errors.append(error_row(spec, index, error))
        if spec.on_error == "fail":
            chunk.failure = error
            return chunk
        index += 1
    return chunk


def _replay(spec: Any, start: int, stop: int, record: bool, chunk: Any, blamed: dict) -> int:
    """Play games start..stop-1 in one fresh process, adding them to `chunk`,
    until the process ends; returns the first game not played. A game whose
    process died goes into `blamed`, with the move timeout's watchdog's
    verdict or else as a crash."""
    import cloudpickle

    index = start
    with tempfile.TemporaryDirectory(prefix="wtsim-replay-") as scratch:
        trace = Path(scratch) / "trace"
        job = pickle.dumps((list(sys.path), os.getpid(), cloudpickle.dumps((spec, start, stop, record))))
        read_end, write_end = os.pipe()
        try:
            proc = subprocess.Popen([sys.executable, "-c", CHILD, str(write_end), str(trace)],
                                    stdin=subprocess.PIPE, pass_fds=(write_end,))
        finally:
            os.close(write_end)
        ready = False
        try:
            with os.fdopen(read_end, "rb") as source, Watchdog(spec, lambda: [(trace, proc.pid)], blamed):
                try:
                    proc.stdin.write(job)  # type: ignore[union-attr]
                    proc.stdin.close()  # type: ignore[union-attr]
                except BrokenPipeError:
                    pass
                for message in _messages(source):
                    kind = message[0]
                    if kind == "ready":
                        ready = True
                    elif kind == "game":
                        _, done, columns, line = message
                        for key, values in columns.items():
                            chunk.columns[key].extend(values)
                        if line is not None:
                            chunk.records.append(line)
                        index = done + 1
                    elif kind == "error":
                        _, done, error = message
                        chunk.errors.append(error_row(spec, done, error))
                        index = done + 1
                        if spec.on_error == "fail":
                            chunk.failure = error
                            return index
                    elif kind == "end":
                        return stop
            code = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if index >= stop:
            return stop
        if index not in blamed:
            if not ready:
                raise WorkerLost(f"a fresh worker process could not start ({_signal_name(code)})")
            blamed[index] = _crash_error(spec, index, read_trace(trace), code)
        return index


def _crash_error(spec: Any, index: int, where: Where | None, code: int) -> Any:
    """The StrategyError of game `index`, whose process died with exit `code` at `where`."""
    seed = game_seed(spec.seed, index)
    seated = spec.seated(index)
    if where is not None and where.game == index and 0 <= where.seat < len(seated):
        return StrategyError(seated[where.seat].strategy.id, where.seat, seed, max(where.turn, 0),
                             f"crashed its worker process ({_signal_name(code)}) in {where.hook}")
    turn = where.turn if where is not None and where.game == index else 0
    ids = "/".join(sorted({p.strategy.id for p in seated}))
    return StrategyError(ids, -1, seed, max(turn, 0), f"crashed its worker process ({_signal_name(code)})")


# ------------------------------------------------------------- child side
def _child(out_fd: int, trace_path: str) -> None:
    sys_path, parent, blob = pickle.loads(sys.stdin.buffer.read())
    sys.path[:] = sys_path
    watch_parent(parent)
    import cloudpickle  # only the replaying process needs it

    spec, start, stop, record = cloudpickle.loads(blob)
    tracer = Tracer(trace_path)
    with os.fdopen(out_fd, "wb") as out, batch_collection():
        _send(out, ("ready",))
        for index in range(start, stop):
            tracer.mark(index, -1, 0, "", timed=False)
            try:
                game = play_in_run(spec, index, game_seed(spec.seed, index), record,
                                   tracer if spec.capabilities.move_timeout else None)
            except StrategyError as error:
                _send(out, ("error", index, error))
                continue
            line = None if game.record is None else json.dumps(game.record, separators=(",", ":"))
            _send(out, ("game", index, game.columns, line))
        _send(out, ("end",))


def child_main(argv: list[str]) -> None:
    """The replaying process: `argv` is the pipe's write end and the trace file."""
    try:
        _child(int(argv[0]), argv[1])
    except KeyboardInterrupt:
        os._exit(130)
