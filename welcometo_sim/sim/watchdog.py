"""The move timeout, enforced from outside the strategy call.

The game checks ``move_timeout`` when a strategy call returns (its driver does),
which cannot stop a call that never returns. So a worker playing under a move
timeout writes where it is into a trace file before and after every strategy
call (a memory store, see :class:`~welcometo_sim.sim.tracing.Tracer`), and a
:class:`Watchdog` thread in the parent reads those files: a call still
running `GRACE_SECONDS` after its timeout gets its process killed, and the
game is blamed on that strategy, seat and turn. The caller then treats the
dead process like any other (its other games are played again, see
``isolated``), and the blamed game is an error under the run's ``on_error``.

The grace leaves the calls that do return late to the game's own check,
which ends the game without killing anything.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from ..games.contract import StrategyError
from .chunks import game_seed
from .tracing import Where, read_trace

GRACE_SECONDS = 0.5
"""How long past its move_timeout a strategy call may run before its process is killed."""
POLL_SECONDS = 0.1
"""How often the watchdog reads the trace files."""

Traces = Callable[[], Iterable[tuple[Path, int]]]
"""The trace files to watch, each with the process that writes it."""


def overrun_error(spec: Any, where: Where, elapsed: float) -> StrategyError:
    """The StrategyError of a strategy call that ran `elapsed` seconds and was stopped."""
    seated = spec.seated(where.game)
    strategy = seated[where.seat].strategy.id if 0 <= where.seat < len(seated) else "?"
    return StrategyError(strategy, where.seat, game_seed(spec.seed, where.game), max(where.turn, 0),
                         f"exceeded move_timeout ({elapsed:.3g} s > {spec.move_timeout:g} s, stopped) "
                         f"in {where.hook}")


class Watchdog:
    """While the block runs, a thread kills every process of `traces` whose
    strategy call overruns the run's move_timeout by GRACE_SECONDS, after
    putting the game's StrategyError in `blamed` (game index -> error).
    Without a move_timeout it does nothing, and costs nothing."""

    def __init__(self, spec: Any, traces: Traces, blamed: dict[int, StrategyError]) -> None:
        self.spec, self.traces, self.blamed = spec, traces, blamed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Watchdog":
        if self.spec.move_timeout is not None:
            self._thread = threading.Thread(target=self._watch, name="wtsim-watchdog", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self.check()

    def check(self) -> None:
        """Kill the processes whose strategy call has run too long (and blame their game)."""
        limit = self.spec.move_timeout + GRACE_SECONDS
        for path, pid in list(self.traces()):
            where = read_trace(path)
            if where is None or where.since <= 0:
                continue
            elapsed = time.monotonic() - where.since
            if elapsed <= limit:
                continue
            self.blamed[where.game] = overrun_error(self.spec, where, elapsed)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # it ended by itself meanwhile
                pass
            path.unlink(missing_ok=True)
