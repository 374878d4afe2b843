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

import os
import pickle
import signal
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterator

TRACE = struct.Struct("<qqq32s")
"""game, seat (-1: none), turn, hook name."""
LENGTH = struct.Struct("<Q")
CHILD = "import sys; from welcometo_sim.sim.isolated import child_main; child_main(sys.argv[1:])"


class WorkerLost(RuntimeError):
    """Worker processes died where no game can be blamed (one line for the user)."""


class Tracer:
    """Writes where a process is (game, seat, turn, hook) to a file that
    outlives the process."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def mark(self, game: int, seat: int, turn: int, hook: str) -> None:
        os.pwrite(self.fd, TRACE.pack(game, seat, turn, hook.encode("utf-8")[:32]), 0)


def read_trace(path: Path) -> tuple[int, int, int, str] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < TRACE.size:
        return None
    game, seat, turn, hook = TRACE.unpack(data[:TRACE.size])
    return game, seat, turn, hook.rstrip(b"\0").decode("utf-8", "replace")


class Traced:
    """A strategy whose hooks first tell the tracer who is asked what, and when."""

    __slots__ = ("_strategy", "_seat", "_game", "_tracer")

    def __init__(self, strategy: Any, seat: int, game: int, tracer: Tracer) -> None:
        self._strategy, self._seat, self._game, self._tracer = strategy, seat, game, tracer

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._strategy, name)
        if not name.startswith("choose_") or not callable(attr):
            return attr

        def traced(*args: Any, **kwargs: Any) -> Any:
            turn = getattr(args[0], "turn", -1) if args else -1
            self._tracer.mark(self._game, self._seat, turn if isinstance(turn, int) else -1, name)
            return attr(*args, **kwargs)

        return traced


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
def play_isolated(spec: Any, start: int, stop: int, record: bool) -> Any:
    """Play games start..stop-1 one by one in fresh processes; a ChunkResult
    with columns (never a table file). A game whose process dies is a
    StrategyError under the run's on_error policy."""
    import cloudpickle

    from ..rules.game import StrategyError
    from .rows import empty_columns
    from .runner import ChunkResult, error_row, game_seed

    chunk = ChunkResult(start, stop, empty_columns(spec.game), [])
    index = start
    while index < stop:
        with tempfile.TemporaryDirectory(prefix="wtsim-replay-") as scratch:
            trace = Path(scratch) / "trace"
            job = pickle.dumps((list(sys.path), os.getpid(),
                                cloudpickle.dumps((spec, index, stop, record))))
            read_end, write_end = os.pipe()
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-c", CHILD, str(write_end), str(trace)],
                    stdin=subprocess.PIPE, pass_fds=(write_end,))
            finally:
                os.close(write_end)
            ready = False
            try:
                with os.fdopen(read_end, "rb") as source:
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
                                return chunk
                        elif kind == "end":
                            index = stop
                code = proc.wait()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            if index >= stop:
                break
            if not ready:
                raise WorkerLost(f"a fresh worker process could not start ({_signal_name(code)})")
            where = read_trace(trace)
            seed = game_seed(spec.seed, index)
            seated = spec.seated(index)
            if where is not None and where[0] == index and 0 <= where[1] < len(seated):
                _, seat, turn, hook = where
                error = StrategyError(seated[seat].strategy.id, seat, seed, max(turn, 0),
                                      f"crashed its worker process ({_signal_name(code)}) in {hook}")
            else:
                turn = where[2] if where is not None and where[0] == index else 0
                ids = "/".join(sorted({p.strategy.id for p in seated}))
                error = StrategyError(ids, -1, seed, max(turn, 0),
                                      f"crashed its worker process ({_signal_name(code)})")
            chunk.errors.append(error_row(spec, index, error))
            if spec.on_error == "fail":
                chunk.failure = error
                return chunk
            index += 1
    return chunk


# ------------------------------------------------------------- child side
def _child(out_fd: int, trace_path: str) -> None:
    from .guard import watch_parent

    sys_path, parent, blob = pickle.loads(sys.stdin.buffer.read())
    sys.path[:] = sys_path
    watch_parent(parent)
    import cloudpickle

    import welcometo_sim  # noqa: F401  (selects the compiled core before the engine loads)
    from ..rules.game import StrategyError
    from .rows import game_rows
    from .runner import batch_collection, play_one

    spec, start, stop, record = cloudpickle.loads(blob)
    tracer = Tracer(trace_path)
    import json

    with os.fdopen(out_fd, "wb") as out, batch_collection():
        _send(out, ("ready",))
        for index in range(start, stop):
            tracer.mark(index, -1, 0, "")
            if spec.game != "welcome-to":
                _send(out, _other_game(spec, index, record))
                continue
            try:
                result = play_one(spec, index, record, tracer=tracer)
            except StrategyError as error:
                _send(out, ("error", index, error))
                continue
            line = None
            if result.record is not None:
                line = json.dumps(result.record, separators=(",", ":"))
            _send(out, ("game", index, game_rows(spec, index, result), line))
        _send(out, ("end",))


def _other_game(spec: Any, index: int, record: bool) -> tuple:
    """The message of game `index` of another game's run, played in this process."""
    import json

    from ..rules.game import StrategyError
    from .rows import empty_columns, other_game_rows
    from .runner import game_seed, play_other

    try:
        result = play_other(spec, index, game_seed(spec.seed, index))
    except StrategyError as error:
        return ("error", index, error)
    columns = empty_columns(spec.game)
    other_game_rows(index, result.rows, columns)
    line = json.dumps({**result.record, "index": index}, separators=(",", ":")) if record else None
    return ("game", index, columns, line)


def child_main(argv: list[str]) -> None:
    """The replaying process: `argv` is the pipe's write end and the trace file."""
    try:
        _child(int(argv[0]), argv[1])
    except KeyboardInterrupt:
        os._exit(130)
