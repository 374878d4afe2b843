"""Where a process playing games is, written on every strategy call and read by its parent.

A worker traces each strategy call (game, seat, turn, hook, and since when)
into a small memory-mapped file; the parent reads it to name the game of a
worker that died (`isolated`) and to stop a call that overruns the move
timeout (`watchdog`). Below both of them and below the chunk players that
write the traces (`chunks`).
"""

from __future__ import annotations

import mmap
import os
import struct
import time
from pathlib import Path
from typing import Any, NamedTuple

TRACE = struct.Struct("<qqqd32s")
"""game, seat (-1: none), turn, since (the monotonic clock when the strategy
call under way began; 0: no call under way), hook name."""
SINCE_OFFSET = struct.calcsize("<qqq")
SINCE = struct.Struct("<d")


class Where(NamedTuple):
    """A trace file's content: the game, seat, turn and hook a process is at,
    and since when (monotonic clock) its strategy call has been running."""

    game: int
    seat: int
    turn: int
    hook: str
    since: float


class Tracer:
    """Writes where a process is (game, seat, turn, hook, and when the strategy
    call began) into a shared memory map of a file that outlives the process:
    a write is a memory store, no system call, so it can be done on every
    strategy call, and the parent reads the file whenever it wants."""

    def __init__(self, path: str | os.PathLike) -> None:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            os.ftruncate(fd, TRACE.size)
            self.map = mmap.mmap(fd, TRACE.size)
        finally:
            os.close(fd)

    def mark(self, game: int, seat: int, turn: int, hook: str | bytes, timed: bool = True) -> None:
        """A strategy call begins (`timed`), or the process is at a place of the game
        (`hook` as text, or as its UTF-8 bytes when the caller keeps them)."""
        name = hook if isinstance(hook, bytes) else hook.encode("utf-8")[:32]
        TRACE.pack_into(self.map, 0, game, seat, turn, time.monotonic() if timed else 0.0, name)

    def returned(self) -> None:
        """The strategy call under way has returned."""
        SINCE.pack_into(self.map, SINCE_OFFSET, 0.0)


def read_trace(path: Path) -> Where | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < TRACE.size:
        return None
    game, seat, turn, since, hook = TRACE.unpack(data[:TRACE.size])
    return Where(game, seat, turn, hook.rstrip(b"\0").decode("utf-8", "replace"), since)


class Traced:
    """A strategy whose hooks first tell the tracer who is asked what, and when.
    Each hook's traced wrapper is made once and kept on the instance, so later
    calls find it without coming through `__getattr__`."""

    def __init__(self, strategy: Any, seat: int, game: int, tracer: Tracer) -> None:
        self._strategy, self._seat, self._game, self._tracer = strategy, seat, game, tracer

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._strategy, name)
        if not name.startswith("choose_") or not callable(attr):
            return attr
        mark, returned = self._tracer.mark, self._tracer.returned
        game, seat, hook = self._game, self._seat, name.encode("utf-8")[:32]

        def traced(*args: Any, **kwargs: Any) -> Any:
            turn = getattr(args[0], "turn", -1) if args else -1
            mark(game, seat, turn if isinstance(turn, int) else -1, hook)
            try:
                return attr(*args, **kwargs)
            finally:
                returned()

        setattr(self, name, traced)
        return traced
