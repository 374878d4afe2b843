"""What a strategy or a worker can do besides answering: one failure path.

- Signals. Ctrl-C (SIGINT) and SIGTERM raise :class:`Interrupted` (a
  KeyboardInterrupt) through :func:`interrupt_signals`, which remembers that a
  signal came: a KeyboardInterrupt without one was raised by a strategy.
- Escaped exceptions. Anything a game lets through besides a StrategyError
  (``sys.exit`` in a strategy, a KeyboardInterrupt it raises, an exception
  whose ``__str__`` raises) is turned by :func:`escaped_error` into a
  StrategyError naming the strategy, seat, game seed and turn, found from the
  strategy frames of its traceback.
- Orphans. :func:`die_with_parent` makes a worker process die with the
  process that started it (killed, even by SIGKILL): the kernel kills it at
  once where it can (Linux), and :func:`watch_parent` makes it exit within a
  second anyway. Every loky pool of the project runs it in its workers
  (:func:`loky_config`).
"""

from __future__ import annotations

import faulthandler
import os
import signal
import threading
import time
import sys
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Iterator, Sequence

from ..games.contract import StrategyError

SIGNAL_NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}
_received: list[int] = []
_depth = [0]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM, as received by this process."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def signal_name(self) -> str:
        return SIGNAL_NAMES.get(self.signum, f"signal {self.signum}")


def _on_signal(signum: int, frame: Any) -> None:
    _received.append(signum)
    raise Interrupted(signum)


def signal_received() -> int | None:
    """The signal (SIGINT, SIGTERM) that interrupted this process, if any came."""
    return _received[-1] if _received else None


@contextmanager
def interrupt_signals(signals: Sequence[int] = (signal.SIGINT,)) -> Iterator[None]:
    """Within the block, `signals` raise Interrupted and are remembered (main
    thread only: elsewhere no signal can arrive, so nothing changes). The
    previous handlers come back afterwards; the outermost block forgets the
    signals of earlier blocks."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth[0] == 0:
        _received.clear()
    previous = {}
    for signum in signals:
        try:
            previous[signum] = signal.signal(signum, _on_signal)
        except (ValueError, OSError):  # not settable here
            pass
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


# ------------------------------------------------------------ attribution
def describe(exc: BaseException) -> str:
    """`Type: message` of an exception, even one whose __str__ raises."""
    try:
        text = str(exc)
    except BaseException:  # noqa: B036 - a user __str__ may raise anything
        text = None
    if type(text) is not str:
        text = "(its message cannot be shown)"
    text = " ".join(text.split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop(0)
        if current is None or any(current is s for s in seen) or len(seen) > 20:
            continue
        seen.append(current)
        todo += [current.__cause__, current.__context__]
    return seen


def _frames(tb: TracebackType | None) -> Iterator[Any]:
    depth = 0
    while tb is not None and depth < 10_000:
        yield tb.tb_frame
        tb, depth = tb.tb_next, depth + 1


def strategy_frame(exc: BaseException, built: Sequence[tuple[int, Any]]) -> tuple[BaseException, int, str] | None:
    """(the exception, seat, hook) of the outermost call into a strategy object
    of `built` ((seat, strategy) pairs) in the tracebacks of `exc` and of the
    exceptions it was raised from or while handling."""
    for current in _chain(exc):
        for frame in _frames(current.__traceback__):
            try:
                owner = frame.f_locals.get("self")
            except Exception:  # noqa: BLE001 - a frame whose locals cannot be read
                continue
            for seat, strategy in built:
                if owner is strategy:
                    return current, seat, frame.f_code.co_name
    return None


def escaped_error(spec: Any, index: int, seed: int, turn: int, built: Sequence[tuple[int, Any]],
                  exc: BaseException) -> StrategyError | None:
    """The StrategyError for an exception that left a game (None: not a
    strategy's doing, e.g. a real Ctrl-C or an error of the engine itself)."""
    if isinstance(exc, KeyboardInterrupt) and signal_received() is not None:
        return None
    found = strategy_frame(exc, built)
    seated = spec.seated(index)
    if found is not None:
        source, seat, hook = found
        return StrategyError(seated[seat].strategy.id, seat, seed, turn, f"raised {describe(source)} in {hook}")
    if isinstance(exc, Exception):
        return None  # the engine's own error: a traceback is the honest answer
    # sys.exit, KeyboardInterrupt and the like come from strategy code, but no Python frame says whose.
    ids = sorted({p.strategy.id for p in seated})
    return StrategyError("/".join(ids), -1, seed, turn, f"raised {describe(exc)}")


# ------------------------------------------------------------ orphans
_watching: list[int] = []


def watch_parent(parent: int | None, interval: float = 0.5) -> None:
    """In a worker process started by `parent`: exit as soon as `parent` is
    gone. The worker's fault handler is turned off too: a crash is reported by
    the parent, which finds the game that caused it, in one line."""
    if parent is None or os.getpid() == parent or os.getppid() != parent or os.getpid() in _watching:
        return
    _watching.append(os.getpid())
    faulthandler.disable()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="wtsim-parent-watch", daemon=True).start()


PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when the thread that started it ends."""


def die_with_parent(parent: int | None) -> None:
    """In a worker process started by `parent`: be killed (SIGKILL) by the
    kernel as soon as `parent` is gone, where the kernel can (Linux), and in
    any case exit within a second (`watch_parent`). A worker whose parent is
    already gone exits now."""
    if parent is None or os.getpid() == parent:
        return
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl in this C library: the watch below remains
            pass
    if os.getppid() != parent:
        os._exit(1)
    watch_parent(parent)


@contextmanager
def loky_config(**options: Any) -> Iterator[None]:
    """joblib's loky backend, with `options`, whose workers die with this
    process (`die_with_parent`): no worker or resource tracker outlives a
    killed command."""
    from joblib import parallel_config

    with parallel_config(backend="loky", initializer=die_with_parent, initargs=(os.getpid(),), **options):
        yield
